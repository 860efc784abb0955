/**
 * @module operations/invoke
 * Running one operation, the same for every transport (HTTP routes, MCP tools): judge the input
 * (operations/judge: the services it needs, validation, prepare), then the offer first: an unpaid
 * request to a paid route is asked to pay whatever its input, the challenge saying whether the
 * input would be answered, so a crawler meets the offer and no one pays to learn their input is
 * wrong. A request that pays (or signs in, or is not charged) with bad input gets the input's
 * refusal, and the gate never claims its payment. With a valid input: take the payment, run the
 * handler on what was prepared (a failure releases the payment), settle before the answer leaves.
 *
 * The outcome is a value (answered, payment required, refused with a documented error) that each
 * transport renders in one place: api/outcome.ts for HTTP, mcp/call-result.ts for MCP.
 * Only what no one meant (a bug, a store gone) is thrown.
 */
import type { SettleResponse } from "@x402/core/types";
import type { PaymentGate } from "../payments/gate.ts";
import { VALID_INPUT } from "../payments/input-verdict.ts";
import { type PaymentOffer, type PaymentRequiredOutcome, type Refused, refusing } from "../payments/offer.ts";
import type { OperationContext } from "./context.ts";
import { judge } from "./judge.ts";
import type { AnyOperation } from "./operation.ts";

export type Invoked =
  /** The operation's answer, with the settlement of its payment when it was paid for. */
  | { type: "answered"; answer: unknown; settlement?: SettleResponse }
  | PaymentRequiredOutcome
  | Refused;

/** `raw`: the input as the transport read it, or an UnreadableInput (operations/judge) saying why it could not. */
export function invoke(op: AnyOperation, raw: unknown, ctx: OperationContext, payments: PaymentGate, offer: PaymentOffer): Promise<Invoked> {
  return refusing(() => run(op, raw, ctx, payments, offer));
}

async function run(op: AnyOperation, raw: unknown, ctx: OperationContext, payments: PaymentGate, offer: PaymentOffer): Promise<Invoked> {
  const judged = await judge(op, raw, ctx);
  if (!judged.ok) return (await payments.askFirst(op, { ...offer, input: judged.verdict })) ?? { type: "refused", error: judged.error };
  // The validated input, in the schema's order: what a retry under a payment identifier must ask again.
  const requestKey = `${op.name} ${JSON.stringify(judged.input)}`;
  const admitted = await payments.begin(op, { ...offer, input: VALID_INPUT, requestKey }, ctx.requestId);
  if (admitted.type === "payment-required" || admitted.type === "refused") return admitted;
  if (admitted.type === "paid-before") return { type: "answered", answer: admitted.kept.answer, settlement: admitted.kept.settlement };
  const payment = admitted.type === "payment-verified" ? admitted.payment : undefined;
  let answer: unknown;
  try {
    answer = await op.handler(judged.prepared, ctx);
  } catch (error) {
    // The handler's error is the answer; a release that fails leaves only that signature unusable (nothing was charged).
    if (payment) await payment.release().catch(() => undefined);
    throw error;
  }
  if (!payment) return { type: "answered", answer };
  const settled = await payment.settle(answer);
  return settled.type === "settled" ? { type: "answered", answer, settlement: settled.settlement } : settled;
}
