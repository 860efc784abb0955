/**
 * @module payments/ledger-postgres
 * The payment ledger in PostgreSQL (`CKG_STATE_URL`), shared by every replica of ckg: a claim is one
 * INSERT ... ON CONFLICT DO NOTHING on the payment's key, so of two replicas given the same payment
 * at once exactly one runs the handler, and a replay on any replica finds the record. Bun's built-in
 * PostgreSQL client; the table is made on first use under an advisory lock (replicas start at once).
 */
import { SQL } from "bun";
import { isoSeconds } from "../time.ts";
import type { ClaimResult, PaymentClaim, PaymentLedger, PaymentRecord, PaymentState } from "./ledger.ts";

/** Any constant both replicas agree on: serialises the schema step of replicas starting together. */
const SCHEMA_LOCK = 0x636b67_01;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS ckg_payments (
    payment_key  TEXT PRIMARY KEY,
    state        TEXT NOT NULL CHECK (state IN ('verifying', 'verified', 'settling', 'settled', 'unknown', 'failed')),
    operation    TEXT NOT NULL,
    amount       TEXT NOT NULL,
    asset        TEXT NOT NULL,
    network      TEXT NOT NULL,
    pay_to       TEXT NOT NULL,
    payer        TEXT,
    nonce        TEXT,
    valid_before BIGINT,
    tx_hash      TEXT,
    error        TEXT,
    request_id   TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS ckg_payments_unknown ON ckg_payments (state) WHERE state = 'unknown';`;

export class PostgresLedger implements PaymentLedger {
  private readonly sql: SQL;
  private readonly ready: Promise<void>;

  constructor(url: string) {
    this.sql = new SQL(url, { max: 8 });
    this.ready = this.sql.begin(async (tx) => {
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
      await tx.unsafe(SCHEMA);
    });
    this.ready.catch(() => undefined); // reported by the first call that needs it
  }

  async claim(c: PaymentClaim): Promise<ClaimResult> {
    const at = isoSeconds();
    const inserted = await this.run(
      `INSERT INTO ckg_payments (payment_key, state, operation, amount, asset, network, pay_to, payer, nonce, valid_before, request_id, created_at, updated_at)
       VALUES ($1, 'verifying', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) ON CONFLICT (payment_key) DO NOTHING`,
      [c.key, c.operation, c.amount, c.asset, c.network, c.payTo, c.payer, c.nonce, c.validBefore, c.requestId, at],
    );
    if (inserted.count === 1) return { ok: true };
    return { ok: false, existing: (await this.get(c.key))! };
  }

  async get(key: string): Promise<PaymentRecord | null> {
    const rows = await this.run("SELECT * FROM ckg_payments WHERE payment_key = $1", [key]);
    return rows[0] ? record(rows[0]) : null;
  }

  async mark(key: string, state: PaymentState, extra: { tx?: string; error?: string; payer?: string } = {}): Promise<void> {
    await this.run(
      "UPDATE ckg_payments SET state = $1, tx_hash = coalesce($2, tx_hash), error = $3, payer = coalesce($4, payer), updated_at = $5 WHERE payment_key = $6",
      [state, extra.tx ?? null, extra.error ?? null, extra.payer ?? null, isoSeconds(), key],
    );
  }

  async release(key: string): Promise<void> {
    await this.run("DELETE FROM ckg_payments WHERE payment_key = $1 AND state IN ('verifying', 'verified')", [key]);
  }

  async unknown(): Promise<PaymentRecord[]> {
    return (await this.run("SELECT * FROM ckg_payments WHERE state = 'unknown'", [])).map(record);
  }

  async counts(): Promise<Record<string, number>> {
    const rows = await this.run("SELECT state, count(*)::int AS n FROM ckg_payments GROUP BY state", []);
    return Object.fromEntries(rows.map((r) => [String(r.state), Number(r.n)]));
  }

  async close(): Promise<void> {
    await this.sql.close();
  }

  private async run(text: string, params: unknown[]): Promise<Record<string, unknown>[] & { count: number }> {
    await this.ready;
    return (await this.sql.unsafe(text, params)) as Record<string, unknown>[] & { count: number };
  }
}

/** A row as the SQLite ledger returns it (valid_before a number, not a BIGINT string). */
function record(row: Record<string, unknown>): PaymentRecord {
  return { ...(row as unknown as PaymentRecord), valid_before: row.valid_before === null ? null : Number(row.valid_before) };
}
