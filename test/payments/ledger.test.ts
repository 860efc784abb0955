/**
 * The payment ledger's contract, on both implementations: the state database (SQLite) and
 * PostgreSQL (CKG_STATE_URL, a real PostgreSQL 15 from Debian), where two replicas' ledgers share
 * one table. Needs postgresql-15 for the second (`.ci/run` installs it; CKG_REQUIRE_ENGINES=1 makes
 * its absence fail).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { type PaymentClaim, type PaymentLedger, SqliteLedger } from "../../src/payments/ledger.ts";
import { PostgresLedger } from "../../src/payments/ledger-postgres.ts";
import { type StateDb, openStateDb } from "../../src/store/state-db.ts";
import { type Postgres, postgresAvailable, startPostgres } from "../support/postgres.ts";
import { tempDir } from "../support/temp-dirs.ts";

const pgAvailable = postgresAvailable();
if (!pgAvailable && process.env.CKG_REQUIRE_ENGINES === "1") throw new Error("postgresql-15 is not installed (.ci/run installs it)");
if (!pgAvailable) console.warn("postgresql-15 is not installed: the PostgreSQL ledger tests are skipped (.ci/run installs it)");

let n = 0;
const claimFor = (key = `key-${++n}-${Math.random()}`): PaymentClaim => ({
  key,
  operation: "search",
  amount: "50000",
  asset: "0xasset",
  network: "eip155:84532",
  payTo: "0xpayto",
  payer: "0xpayer",
  nonce: `0x${n.toString(16)}`,
  validBefore: 2_000_000_000,
  requestId: `req-${n}`,
});

/** The contract; `second` is another replica's ledger on the same store (the same one for SQLite). */
function describeLedger(name: string, open: () => Promise<{ first: PaymentLedger; second: PaymentLedger; close(): Promise<void> }>, skip = false): void {
  describe.skipIf(skip)(`the payment ledger on ${name}`, () => {
    let ledgers: Awaited<ReturnType<typeof open>>;
    beforeAll(async () => {
      ledgers = await open();
    }, 60_000);
    afterAll(() => ledgers?.close());

    test("a claim is taken once; the record in the way says why", async () => {
      const claim = claimFor();
      expect(await ledgers.first.claim(claim)).toEqual({ ok: true });
      const again = await ledgers.second.claim(claim);
      expect(again.ok).toBe(false);
      if (!again.ok) expect(again.existing).toMatchObject({ payment_key: claim.key, state: "verifying", payer: "0xpayer", valid_before: 2_000_000_000 });
    });

    test("of 20 claims of one payment at once across both, exactly one wins", async () => {
      const claim = claimFor();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? ledgers.first : ledgers.second).claim(claim)));
      expect(results.filter((r) => r.ok).length).toBe(1);
    });

    test("a released claim can be taken again; a settled one cannot be released", async () => {
      const claim = claimFor();
      await ledgers.first.claim(claim);
      await ledgers.first.release(claim.key);
      expect(await ledgers.second.claim(claim)).toEqual({ ok: true });
      await ledgers.second.mark(claim.key, "settled", { tx: "0xtx" });
      await ledgers.first.release(claim.key);
      expect(await ledgers.first.get(claim.key)).toMatchObject({ state: "settled", tx_hash: "0xtx" });
    });

    test("unknown settlements are listed for reconciliation, and counted by state", async () => {
      const claim = claimFor();
      await ledgers.first.claim(claim);
      await ledgers.first.mark(claim.key, "unknown", { error: "no result" });
      expect((await ledgers.second.unknown()).map((r) => r.payment_key)).toContain(claim.key);
      const counts = await ledgers.second.counts();
      expect(counts.unknown).toBeGreaterThanOrEqual(1);
      expect(counts.settled).toBeGreaterThanOrEqual(1);
      await ledgers.first.mark(claim.key, "failed", { error: "reconciled" });
      expect((await ledgers.second.unknown()).map((r) => r.payment_key)).not.toContain(claim.key);
    });
  });
}

describeLedger("the state database (SQLite)", async () => {
  const dir = tempDir("ckg-ledger-");
  const db: StateDb = openStateDb(join(dir, "state.sqlite"));
  const ledger = new SqliteLedger(db);
  return {
    first: ledger,
    second: ledger,
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

let pg: Postgres | undefined;
describeLedger(
  "PostgreSQL, two replicas",
  async () => {
    pg = await startPostgres();
    const first = new PostgresLedger(pg.url);
    const second = new PostgresLedger(pg.url);
    return {
      first,
      second,
      async close() {
        await first.close();
        await second.close();
        await pg?.stop();
      },
    };
  },
  !pgAvailable,
);
