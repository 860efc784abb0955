/**
 * @module payments/settle
 * Settling one verified payment, after its answer is ready: settled -> the answer goes out (and is
 * kept under the payment's identifier for retries, and its payer may sign in to the resource
 * again); refused by the chain -> payment required again, nothing charged, the answer withheld;
 * sent but not confirmed (`settlement_pending`), no outcome within SETTLE_TIMEOUT_MS or an error ->
 * recorded `unknown` (with its transaction when one was sent) and refused with settlement_unknown
 * (the payer may have paid: never a fresh payment asked), for the reconciler to read the chain.
 */
import type { x402ResourceServer } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { CkgError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { PaidAnswers } from "./idempotency.ts";
import type { PaymentLedger } from "./ledger.ts";
import type { Challenge, Settlement } from "./offer.ts";
import type { SignInAccess } from "./sign-in.ts";

/** How long a settlement may take before its outcome counts as unknown. */
const SETTLE_TIMEOUT_MS = 60_000;

class SettleTimeout extends Error {}

/** The facilitators' reason for a transaction sent whose confirmation did not come in time. */
const PENDING = "settlement_pending";

class SettlementPending extends Error {
  constructor(
    readonly transaction: string,
    reason: string,
  ) {
    super(reason);
  }
}

export interface SettleDeps {
  server: x402ResourceServer;
  ledger: PaymentLedger;
  answers: PaidAnswers;
  /** Records who paid for what, when repeat access by signing in is on. */
  signIn?: SignInAccess;
  log: Logger;
}

export interface SettlingPayment {
  /** The ledger's key of the payment. */
  key: string;
  /** Its payment identifier, when the client gave one. */
  id: string | undefined;
  /** The resource its payer may sign in to once it settles: the one the server answered over HTTP (never the one the client's payload names). */
  signInTo: string | undefined;
  payload: PaymentPayload;
  matched: PaymentRequirements;
  requestId: string;
  challenge: Challenge;
}

export async function settleOnce(deps: SettleDeps, payment: SettlingPayment, answer: unknown): Promise<Settlement> {
  const { key, id, requestId } = payment;
  await deps.ledger.mark(key, "settling");
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const result = await Promise.race([
      deps.server.settlePayment(payment.payload, payment.matched),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new SettleTimeout()), SETTLE_TIMEOUT_MS);
      }),
    ]);
    if (!result.success) {
      // Chain errors run to pages; the first line says what happened.
      const detail = result.errorMessage?.split("\n")[0]?.slice(0, 200);
      const reason = `${result.errorReason ?? "settlement failed"}${detail ? ` (${detail})` : ""}`;
      // Sent but not confirmed in time: the transfer may still land. Not a failure: unknown, below.
      if (result.transaction && (result.errorReason === PENDING || result.errorMessage?.startsWith(PENDING))) throw new SettlementPending(result.transaction, reason);
      await deps.ledger.mark(key, "failed", { error: reason });
      if (id) await deps.answers.release(id);
      deps.log.warn({ req_id: requestId, payment: key, reason }, "settlement failed; the answer is withheld");
      return await payment.challenge(`settlement failed: ${reason}; nothing was charged and the answer is withheld`);
    }
    // Settled: the answer goes out whatever happens to the bookkeeping after it.
    try {
      await deps.ledger.mark(key, "settled", { tx: result.transaction, payer: result.payer });
      if (id) await deps.answers.keep(id, { answer, settlement: result });
      if (deps.signIn && payment.signInTo && result.payer) await deps.signIn.record(payment.signInTo, result.payer);
    } catch (error) {
      deps.log.error({ req_id: requestId, payment: key, err: (error as Error).message }, "a settled payment could not be recorded as settled");
    }
    return { type: "settled", settlement: result };
  } catch (error) {
    // The payer may have paid: never a fresh challenge. Record it; the reconciler reads the chain. The
    // identifier stays claimed: a retry under it is told to wait, never asked to pay again.
    const reason = error instanceof SettleTimeout ? `no settlement result within ${SETTLE_TIMEOUT_MS} ms` : (error as Error).message;
    await deps.ledger.mark(key, "unknown", { error: reason, ...(error instanceof SettlementPending ? { tx: error.transaction } : {}) });
    deps.log.error({ req_id: requestId, payment: key, err: reason }, "settlement outcome unknown; recorded for reconciliation");
    const message = "The payment's settlement outcome is unknown; it is recorded and will be reconciled. Do not pay again for this request.";
    return { type: "refused", error: new CkgError("settlement_unknown", message, { details: { payment_key: key, reason } }) };
  } finally {
    clearTimeout(timer);
  }
}
