/**
 * @module api/invoke
 * Running one operation, the same for every transport (HTTP routes, MCP tools): validate the
 * input, check the services it needs, run its precheck (all before payment is asked for), take the
 * payment, run the handler (a failure releases the payment), settle before the answer leaves.
 * Throws CkgError for the documented errors and PaymentRequiredError for a 402.
 */
import type { SettleResponse } from "@x402/core/types";
import type { PaymentGate, PaymentOffer } from "../payments/gate.ts";
import type { Services } from "../services.ts";
import { type AnyOperation, type OperationContext, validateInput } from "./operation.ts";

export interface Invoked {
  answer: unknown;
  /** The settlement of the payment, when the operation was paid for. */
  settlement?: SettleResponse;
}

export async function invoke(op: AnyOperation, raw: unknown, ctx: OperationContext, payments: PaymentGate, offer: PaymentOffer): Promise<Invoked> {
  const input = validateInput(op, raw);
  checkNeeds(op, ctx.services);
  await op.precheck?.(input, ctx);
  const paid = await payments.begin(op, offer, ctx.requestId);
  let answer: unknown;
  try {
    answer = await op.handler(input, ctx);
  } catch (error) {
    paid?.release();
    throw error;
  }
  return paid ? { answer, settlement: await paid.settle() } : { answer };
}

function checkNeeds(op: AnyOperation, services: Services): void {
  if (op.needs.includes("snapshot") || op.needs.includes("graph")) services.snapshot();
  if (op.needs.includes("graph")) services.graph.assertReady();
}
