/**
 * @module operations/invoke
 * Running one operation, the same for every transport (HTTP routes, MCP tools): validate the
 * input, pin the live snapshot and check the services it needs, prepare (all before payment is
 * asked for), take the payment, run the handler on what was prepared (a failure releases the
 * payment), settle before the answer leaves. Throws CkgError for the documented errors and
 * PaymentRequiredError for a 402.
 */
import type { SettleResponse } from "@x402/core/types";
import type { PaymentGate } from "../payments/gate.ts";
import type { PaymentOffer } from "../payments/offer.ts";
import type { OperationContext } from "./context.ts";
import { type AnyOperation, validateInput } from "./operation.ts";

export interface Invoked {
  answer: unknown;
  /** The settlement of the payment, when the operation was paid for. */
  settlement?: SettleResponse;
}

export async function invoke(op: AnyOperation, raw: unknown, ctx: OperationContext, payments: PaymentGate, offer: PaymentOffer): Promise<Invoked> {
  const input = validateInput(op, raw);
  checkNeeds(op, ctx);
  const prepared = op.prepare ? await op.prepare(input, ctx) : input;
  // The validated input, in the schema's order: what a retry under a payment identifier must ask again.
  const paid = await payments.begin(op, { ...offer, requestKey: `${op.name} ${JSON.stringify(input)}` }, ctx.requestId);
  if (paid?.kept) return { answer: paid.kept.answer, settlement: paid.kept.settlement };
  let answer: unknown;
  try {
    answer = await op.handler(prepared, ctx);
  } catch (error) {
    // The handler's error is the answer; a release that fails leaves only that signature unusable (nothing was charged).
    if (paid) await paid.release().catch(() => undefined);
    throw error;
  }
  return paid ? { answer, settlement: await paid.settle(answer) } : { answer };
}

/** Pins the live snapshot for the request (503 when there is none) and checks the graph is loaded. */
function checkNeeds(op: AnyOperation, ctx: OperationContext): void {
  if (op.needs.includes("snapshot") || op.needs.includes("graph")) void ctx.live;
  if (op.needs.includes("graph")) ctx.services.graph.assertReady();
}
