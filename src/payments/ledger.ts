/**
 * @module payments/ledger
 * The durable ledger of payments in the state store: one payment buys one answer. A payment is
 * claimed (by the hash of network, asset, payer and authorization nonce) with one INSERT, so the
 * same signature sent twice at once runs the handler once, and a replay after a restart finds it.
 * A claim whose handler failed, or whose verification failed, is released: nothing was charged and
 * the payer may use the signature for another request.
 *
 * The ledger lives in the state store (store/state.ts): SQLite in the data directory, or PostgreSQL
 * (`CKG_STATE_URL`) where replicas of ckg share it, so a payment used on one is refused on every
 * other, also when sent to two at once.
 */
import type { StateStore } from "../store/state.ts";
import { isoSeconds } from "../time.ts";

export type PaymentState = "verifying" | "verified" | "settling" | "settled" | "unknown" | "failed";

export interface PaymentClaim {
  key: string;
  operation: string;
  amount: string;
  asset: string;
  network: string;
  payTo: string;
  payer: string | null;
  nonce: string | null;
  validBefore: number | null;
  requestId: string;
}

export interface PaymentRecord {
  payment_key: string;
  state: PaymentState;
  operation: string;
  payer: string | null;
  nonce: string | null;
  asset: string;
  valid_before: number | null;
  tx_hash: string | null;
  network: string;
  error: string | null;
  updated_at: string;
}

export type ClaimResult = { ok: true } | { ok: false; existing: PaymentRecord };

/** Why a payment already in the ledger cannot buy this request, in words for its 402. */
export function whyRefused(existing: PaymentRecord): string {
  switch (existing.state) {
    case "verifying":
    case "verified":
    case "settling":
      return "this payment is being used by another request right now; one payment buys one answer";
    case "failed":
      return `this payment failed before (${existing.error ?? "settlement failed"}); sign a new one`;
    default:
      return "this payment was already used; one payment buys one answer";
  }
}

export class PaymentLedger {
  constructor(private readonly state: StateStore) {}

  /** Claims a payment for one request; the record in the way when it is already used or in use. */
  async claim(c: PaymentClaim): Promise<ClaimResult> {
    const at = isoSeconds();
    const inserted = await this.state.run(
      `INSERT INTO payments (payment_key, state, operation, amount, asset, network, pay_to, payer, nonce, valid_before, request_id, created_at, updated_at)
       VALUES (?, 'verifying', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (payment_key) DO NOTHING`,
      [c.key, c.operation, c.amount, c.asset, c.network, c.payTo, c.payer, c.nonce, c.validBefore, c.requestId, at, at],
    );
    if (inserted === 1) return { ok: true };
    return { ok: false, existing: (await this.get(c.key))! };
  }

  async get(key: string): Promise<PaymentRecord | null> {
    const row = await this.state.get<PaymentRecord>("SELECT * FROM payments WHERE payment_key = ?", [key]);
    return row ? record(row) : null;
  }

  async mark(key: string, state: PaymentState, extra: { tx?: string; error?: string; payer?: string } = {}): Promise<void> {
    await this.state.run("UPDATE payments SET state = ?, tx_hash = coalesce(?, tx_hash), error = ?, payer = coalesce(?, payer), updated_at = ? WHERE payment_key = ?", [
      state,
      extra.tx ?? null,
      extra.error ?? null,
      extra.payer ?? null,
      isoSeconds(),
      key,
    ]);
  }

  /** Nothing was charged (verification or the handler failed): the signature is free to use again. */
  async release(key: string): Promise<void> {
    await this.state.run("DELETE FROM payments WHERE payment_key = ? AND state IN ('verifying', 'verified')", [key]);
  }

  /** Settlements whose outcome is not known (reconcile.ts looks them up on chain). */
  async unknown(): Promise<PaymentRecord[]> {
    return (await this.state.all<PaymentRecord>("SELECT * FROM payments WHERE state = 'unknown'")).map(record);
  }

  async counts(): Promise<Record<string, number>> {
    const rows = await this.state.all<{ state: string; n: number }>("SELECT state, CAST(count(*) AS INTEGER) AS n FROM payments GROUP BY state");
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  }
}

/** valid_before is a BIGINT in PostgreSQL, which its client returns as text. */
function record(row: PaymentRecord): PaymentRecord {
  return { ...row, valid_before: row.valid_before === null ? null : Number(row.valid_before) };
}
