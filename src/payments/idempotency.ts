/**
 * @module payments/idempotency
 * x402's `payment-identifier` extension: a client names its payment (16-128 characters) and, when it
 * retries with the same identifier (its answer was lost, it timed out), gets the same answer and is
 * charged once. The first paid answer is kept under the identifier in the state store (24 h), so
 * this holds across restarts and, with the store in PostgreSQL, across replicas; it is given again
 * only to a retry whose payment verifies as the same payer's. The identifier is claimed before the
 * payment is verified: two requests with it at once run one handler.
 */
import { PAYMENT_IDENTIFIER, declarePaymentIdentifierExtension, extractPaymentIdentifier } from "@x402/extensions/payment-identifier";
import type { x402ResourceServer } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { CkgError } from "../errors.ts";
import type { StateStore } from "../store/state.ts";
import { isoSeconds } from "../time.ts";
import { mismatch } from "./matching.ts";
import { walletKey } from "./rails.ts";
import type { Challenge, KeptAnswer, PaymentRequiredOutcome } from "./offer.ts";

/** What every 402 declares: the extension, optional (a client without it pays per request as ever). */
export const PAYMENT_IDENTIFIER_DECLARATION = { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) };

/** A claim whose request never finished (its process died) is free again after this long. */
const UNFINISHED_MS = 10 * 60_000;
/** How long a paid answer is given again under its identifier. */
const KEPT_MS = 24 * 3600_000;

/** The identifier a payment carries, or undefined; a malformed one is a 400. */
export function paymentIdentifier(payload: PaymentPayload): string | undefined {
  try {
    return extractPaymentIdentifier(payload, true) ?? undefined;
  } catch (error) {
    throw new CkgError("invalid_request", `The payment's payment-identifier is not valid: ${(error as Error).message}`, { details: { extension: PAYMENT_IDENTIFIER } });
  }
}

/**
 * A retry under a kept identifier gets the answer only with a payment that verifies as the wallet's
 * that bought it (it is not settled: nothing is charged, and the signature stays the client's).
 * Undefined when it does; the challenge when the payment does not verify.
 */
export async function provePayer(
  server: x402ResourceServer,
  payload: PaymentPayload,
  accepts: PaymentRequirements[],
  payer: string | null,
  challenge: Challenge,
): Promise<PaymentRequiredOutcome | undefined> {
  const matched = server.findMatchingRequirements(accepts, payload);
  if (!matched) return challenge(mismatch(accepts, payload.accepted));
  const verified = await server.verifyPayment(payload, matched);
  if (!verified.isValid) return challenge(`payment invalid: ${verified.invalidReason ?? "rejected"}`);
  if (!payer || !verified.payer || walletKey(verified.payer) !== payer) {
    throw new CkgError("invalid_request", "This payment identifier's answer was bought by another wallet; use an identifier of your own.", { details: { extension: PAYMENT_IDENTIFIER } });
  }
  return undefined;
}

export class PaidAnswers {
  constructor(private readonly state: StateStore) {}

  /**
   * Claims `id` for this request: `{ claimed: true }` when it is new (or its earlier claim was left
   * unfinished or its answer is past keeping); the kept answer and who paid for it when the same
   * request was answered under it; a clear refusal when it names another request or is running.
   */
  async claim(id: string, requestKey: string, now = Date.now()): Promise<{ claimed: true } | { claimed: false; kept: KeptAnswer; payer: string | null }> {
    const at = isoSeconds(new Date(now));
    const inserted = await this.state.run("INSERT INTO paid_answers (payment_id, request_key, created_at) VALUES (?, ?, ?) ON CONFLICT (payment_id) DO NOTHING", [id, requestKey, at]);
    if (inserted === 1) return { claimed: true };
    // Left unfinished (no answer) or past keeping: taken anew, by one of any claimants at once.
    const stale = await this.state.run(
      "UPDATE paid_answers SET request_key = ?, answer = NULL, settlement = NULL, payer = NULL, created_at = ? WHERE payment_id = ? AND ((answer IS NULL AND created_at < ?) OR created_at < ?)",
      [requestKey, at, id, isoSeconds(new Date(now - UNFINISHED_MS)), isoSeconds(new Date(now - KEPT_MS))],
    );
    if (stale === 1) return { claimed: true };
    const row = await this.state.get<{ request_key: string; answer: string | null; settlement: string | null; payer: string | null }>(
      "SELECT request_key, answer, settlement, payer FROM paid_answers WHERE payment_id = ?",
      [id],
    );
    if (!row) return this.claim(id, requestKey, now); // released meanwhile: try again
    if (row.request_key !== requestKey) {
      throw new CkgError("invalid_request", `The payment identifier ${id} was used for another request; a retry must ask the same thing, a new request needs a new identifier.`, {
        details: { extension: PAYMENT_IDENTIFIER },
      });
    }
    if (row.answer === null || row.settlement === null) {
      throw new CkgError("not_ready", `A request with the payment identifier ${id} is running; retry shortly for its answer.`, { retryAfterSeconds: 2 });
    }
    return { claimed: false, kept: { answer: JSON.parse(row.answer) as unknown, settlement: JSON.parse(row.settlement) as SettleResponse }, payer: row.payer };
  }

  /** The paid answer, kept for retries by the same payer. */
  async keep(id: string, kept: KeptAnswer): Promise<void> {
    await this.state.run("UPDATE paid_answers SET answer = ?, settlement = ?, payer = ? WHERE payment_id = ?", [
      JSON.stringify(kept.answer),
      JSON.stringify(kept.settlement),
      kept.settlement.payer ? walletKey(kept.settlement.payer) : null,
      id,
    ]);
  }

  /** Nothing was charged: the identifier is free again. */
  async release(id: string): Promise<void> {
    await this.state.run("DELETE FROM paid_answers WHERE payment_id = ? AND answer IS NULL", [id]);
  }
}
