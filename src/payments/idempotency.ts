/**
 * @module payments/idempotency
 * x402's `payment-identifier` extension: a client names its payment (16-128 characters) and, when it
 * retries with the same identifier (its answer was lost, it timed out), gets the same answer and is
 * charged once. The first paid answer is kept under the identifier in the state store, so this
 * holds across restarts and, with the store in PostgreSQL, across replicas. The identifier is
 * claimed before the payment is verified: two requests with it at once run one handler.
 */
import { PAYMENT_IDENTIFIER, declarePaymentIdentifierExtension, extractPaymentIdentifier } from "@x402/extensions/payment-identifier";
import type { PaymentPayload, SettleResponse } from "@x402/core/types";
import { CkgError } from "../errors.ts";
import type { StateStore } from "../store/state.ts";
import { isoSeconds } from "../time.ts";

/** What every 402 declares: the extension, optional (a client without it pays per request as ever). */
export const PAYMENT_IDENTIFIER_DECLARATION = { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) };

export interface KeptAnswer {
  answer: unknown;
  settlement: SettleResponse;
}

/** The identifier a payment carries, or undefined; a malformed one is a 400. */
export function paymentIdentifier(payload: PaymentPayload): string | undefined {
  try {
    return extractPaymentIdentifier(payload, true) ?? undefined;
  } catch (error) {
    throw new CkgError("invalid_request", `The payment's payment-identifier is not valid: ${(error as Error).message}`, { details: { extension: PAYMENT_IDENTIFIER } });
  }
}

export class PaidAnswers {
  constructor(private readonly state: StateStore) {}

  /**
   * Claims `id` for this request: `{ claimed: true }` when it is new; the kept answer when the same
   * request was answered under it; a clear refusal when it names another request or is running.
   */
  async claim(id: string, requestKey: string): Promise<{ claimed: true } | { claimed: false; kept: KeptAnswer }> {
    const inserted = await this.state.run("INSERT INTO paid_answers (payment_id, request_key, created_at) VALUES (?, ?, ?) ON CONFLICT (payment_id) DO NOTHING", [id, requestKey, isoSeconds()]);
    if (inserted === 1) return { claimed: true };
    const row = await this.state.get<{ request_key: string; answer: string | null; settlement: string | null }>("SELECT request_key, answer, settlement FROM paid_answers WHERE payment_id = ?", [id]);
    if (!row) return this.claim(id, requestKey); // released meanwhile: try again
    if (row.request_key !== requestKey) {
      throw new CkgError("invalid_request", `The payment identifier ${id} was used for another request; a retry must ask the same thing, a new request needs a new identifier.`, {
        details: { extension: PAYMENT_IDENTIFIER },
      });
    }
    if (row.answer === null || row.settlement === null) {
      throw new CkgError("not_ready", `A request with the payment identifier ${id} is running; retry shortly for its answer.`, { retryAfterSeconds: 2 });
    }
    return { claimed: false, kept: { answer: JSON.parse(row.answer) as unknown, settlement: JSON.parse(row.settlement) as SettleResponse } };
  }

  /** The paid answer, kept for retries. */
  async keep(id: string, kept: KeptAnswer): Promise<void> {
    await this.state.run("UPDATE paid_answers SET answer = ?, settlement = ? WHERE payment_id = ?", [JSON.stringify(kept.answer), JSON.stringify(kept.settlement), id]);
  }

  /** Nothing was charged: the identifier is free again. */
  async release(id: string): Promise<void> {
    await this.state.run("DELETE FROM paid_answers WHERE payment_id = ? AND answer IS NULL", [id]);
  }
}
