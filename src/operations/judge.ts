/**
 * @module operations/judge
 * What an operation makes of a request's input before any payment, in the order it always had:
 * the input read and validated against the schema; the live snapshot pinned and the services it
 * needs checked; the input prepared (the entity exists, the query parses, the batch's size). A
 * refusal of the input (an error whose fault is the request's: src/errors.ts) is a verdict rather
 * than a throw: operations/invoke offers an unpaid request the payment first, saying what is
 * wrong, and gives a request that pays the refusal, uncharged. An error whose fault is the
 * server's (no snapshot yet, the graph loading, the first scan running) is no verdict: a check
 * that cannot run says nothing of the input, so it is thrown.
 */
import { CkgError, errorMeaning, isCkgError } from "../errors.ts";
import { type InputVerdict, refusedInput } from "../payments/input-verdict.ts";
import type { OperationContext } from "./context.ts";
import { type AnyOperation, validateInput } from "./operation.ts";

/**
 * Input a transport could not read (a body that is not JSON or not an object, a parameter given
 * twice, no SPARQL query): judged like any other bad input, so it too is offered the payment first.
 */
export class UnreadableInput {
  constructor(readonly error: CkgError) {}
}

export type Judged = { ok: true; input: unknown; prepared: unknown } | { ok: false; error: CkgError; verdict: InputVerdict };

export async function judge(op: AnyOperation, raw: unknown, ctx: OperationContext): Promise<Judged> {
  try {
    if (raw instanceof UnreadableInput) throw raw.error;
    const input = validateInput(op, raw);
    checkNeeds(op, ctx);
    return { ok: true, input, prepared: op.prepare ? await op.prepare(input, ctx) : input };
  } catch (error) {
    if (!isCkgError(error) || errorMeaning(error.code).fault === "server") throw error;
    return { ok: false, error, verdict: refusedInput(error.toJSON().error) };
  }
}

/** Pins the live snapshot for the request (not_ready when there is none) and checks the graph is loaded. */
function checkNeeds(op: AnyOperation, ctx: OperationContext): void {
  if (op.needs.includes("snapshot") || op.needs.includes("graph")) void ctx.live;
  if (op.needs.includes("graph")) ctx.services.graph.assertReady();
}
