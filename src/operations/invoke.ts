/**
 * @module operations/invoke
 * Running one operation, the same for every transport (HTTP routes, MCP tools): judge the input
 * (operations/judge: the services it needs, validation, prepare), then the offer first: an unpaid
 * request to a paid route is answered 402 whatever its input, the 402 saying whether the input
 * would be answered, so a crawler meets the offer and no one pays to learn their input is wrong.
 * A request that pays (or signs in, or is not charged) with bad input gets the input's 4xx, and
 * the gate never claims its payment. With a valid input: take the payment, run the handler on
 * what was prepared (a failure releases the payment), settle before the answer leaves. Throws
 * CkgError for the documented errors and PaymentRequiredError for a 402.
 */
import type { SettleResponse } from "@x402/core/types";
import type { PaymentGate } from "../payments/gate.ts";
import { VALID_INPUT } from "../payments/input-verdict.ts";
import type { PaymentOffer } from "../payments/offer.ts";
import type { OperationContext } from "./context.ts";
import { judge } from "./judge.ts";
import type { AnyOperation } from "./operation.ts";

export interface Invoked {
  answer: unknown;
  /** The settlement of the payment, when the operation was paid for. */
  settlement?: SettleResponse;
}

/** `raw`: the input as the transport read it, or an UnreadableInput (operations/judge) saying why it could not. */
export async function invoke(op: AnyOperation, raw: unknown, ctx: OperationContext, payments: PaymentGate, offer: PaymentOffer): Promise<Invoked> {
  const judged = await judge(op, raw, ctx);
  if (!judged.ok) {
    await payments.askFirst(op, { ...offer, input: judged.verdict });
    throw judged.error;
  }
  // The validated input, in the schema's order: what a retry under a payment identifier must ask again.
  const requestKey = `${op.name} ${JSON.stringify(judged.input)}`;
  const paid = await payments.begin(op, { ...offer, input: VALID_INPUT, requestKey }, ctx.requestId);
  if (paid?.kept) return { answer: paid.kept.answer, settlement: paid.kept.settlement };
  let answer: unknown;
  try {
    answer = await op.handler(judged.prepared, ctx);
  } catch (error) {
    // The handler's error is the answer; a release that fails leaves only that signature unusable (nothing was charged).
    if (paid) await paid.release().catch(() => undefined);
    throw error;
  }
  return paid ? { answer, settlement: await paid.settle(answer) } : { answer };
}
