/**
 * @module payments/ledger
 * The durable ledger of payments in the state database: one payment buys one answer. A payment is
 * claimed (by the hash of network, asset, payer and authorization nonce) with one INSERT, so the
 * same signature sent twice at once runs the handler once, and a replay after a restart finds it.
 * A claim whose handler failed, or whose verification failed, is released: nothing was charged and
 * the payer may use the signature for another request.
 *
 * Two implementations of one interface: the state database (SQLite, the embedded default) and
 * PostgreSQL (`CKG_STATE_URL`, ledger-postgres.ts), where replicas of ckg share it, so a payment
 * used on one is refused on every other, also when sent to two at once.
 */
import type { StateDb } from "../store/state-db.ts";
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
  error: string | null;
}

export type ClaimResult = { ok: true } | { ok: false; existing: PaymentRecord };

export interface PaymentLedger {
  /** Claims a payment for one request; the record in the way when it is already used or in use. */
  claim(c: PaymentClaim): Promise<ClaimResult>;
  get(key: string): Promise<PaymentRecord | null>;
  mark(key: string, state: PaymentState, extra?: { tx?: string; error?: string; payer?: string }): Promise<void>;
  /** Nothing was charged (verification or the handler failed): the signature is free to use again. */
  release(key: string): Promise<void>;
  /** Settlements whose outcome is not known (reconcile.ts looks them up on chain). */
  unknown(): Promise<PaymentRecord[]>;
  counts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/** The ledger in the state database (its `payments` table, state-db.ts). */
export class SqliteLedger implements PaymentLedger {
  constructor(private readonly db: StateDb) {}

  async claim(c: PaymentClaim): Promise<ClaimResult> {
    const at = isoSeconds();
    const inserted = this.db
      .query(
        `INSERT INTO payments (payment_key, state, operation, amount, asset, network, pay_to, payer, nonce, valid_before, request_id, created_at, updated_at)
         VALUES (?, 'verifying', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (payment_key) DO NOTHING`,
      )
      .run(c.key, c.operation, c.amount, c.asset, c.network, c.payTo, c.payer, c.nonce, c.validBefore, c.requestId, at, at);
    if (inserted.changes === 1) return { ok: true };
    return { ok: false, existing: (await this.get(c.key))! };
  }

  async get(key: string): Promise<PaymentRecord | null> {
    return this.db.query<PaymentRecord, [string]>("SELECT * FROM payments WHERE payment_key = ?").get(key);
  }

  async mark(key: string, state: PaymentState, extra: { tx?: string; error?: string; payer?: string } = {}): Promise<void> {
    this.db
      .query("UPDATE payments SET state = ?, tx_hash = coalesce(?, tx_hash), error = ?, payer = coalesce(?, payer), updated_at = ? WHERE payment_key = ?")
      .run(state, extra.tx ?? null, extra.error ?? null, extra.payer ?? null, isoSeconds(), key);
  }

  async release(key: string): Promise<void> {
    this.db.query("DELETE FROM payments WHERE payment_key = ? AND state IN ('verifying', 'verified')").run(key);
  }

  async unknown(): Promise<PaymentRecord[]> {
    return this.db.query<PaymentRecord, []>("SELECT * FROM payments WHERE state = 'unknown'").all();
  }

  async counts(): Promise<Record<string, number>> {
    const rows = this.db.query<{ state: string; n: number }, []>("SELECT state, count(*) AS n FROM payments GROUP BY state").all();
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  }

  /** The state database is the server's; it closes it. */
  async close(): Promise<void> {}
}
