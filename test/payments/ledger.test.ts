/**
 * The payment ledger's contract on both engines of the state store: SQLite (the state database) and
 * a real PostgreSQL 15 from Debian (CKG_STATE_URL), where two replicas' ledgers share one table.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { type PaymentClaim, PaymentLedger } from "../../src/payments/ledger.ts";
import type { StateStore } from "../../src/store/state.ts";
import { openPostgresState } from "../../src/store/state-postgres.ts";
import { stateEngines } from "../support/state-engines.ts";
import { tempDir } from "../support/temp-dirs.ts";

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

for (const engine of stateEngines()) {
  describe.skipIf(!engine.available)(`the payment ledger on ${engine.name}`, () => {
    /** Two replicas' ledgers on one PostgreSQL database; on SQLite one store serves both (one connection per process). */
    let stores: StateStore[] = [];
    let first: PaymentLedger;
    let second: PaymentLedger;
    const root = tempDir("ckg-ledger-");
    beforeAll(async () => {
      if (engine.name === "PostgreSQL") {
        const url = await engine.freshUrl();
        stores = await Promise.all([openPostgresState(url), openPostgresState(url)]);
      } else stores = [await engine.open(root)];
      first = new PaymentLedger(stores[0]!);
      second = new PaymentLedger(stores.at(-1)!);
    }, 60_000);
    afterAll(async () => {
      for (const store of stores) await store.close();
      await engine.stop();
      rmSync(root, { recursive: true, force: true });
    });

    test("a claim is taken once; the record in the way says why", async () => {
      const claim = claimFor();
      expect(await first.claim(claim)).toEqual({ ok: true });
      const again = await second.claim(claim);
      expect(again.ok).toBe(false);
      if (!again.ok) expect(again.existing).toMatchObject({ payment_key: claim.key, state: "verifying", payer: "0xpayer", valid_before: 2_000_000_000 });
    });

    test("of 20 claims of one payment at once across both, exactly one wins", async () => {
      const claim = claimFor();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? first : second).claim(claim)));
      expect(results.filter((r) => r.ok).length).toBe(1);
    });

    test("a released claim can be taken again; a settled one cannot be released", async () => {
      const claim = claimFor();
      await first.claim(claim);
      await first.release(claim.key);
      expect(await second.claim(claim)).toEqual({ ok: true });
      await second.mark(claim.key, "settled", { tx: "0xtx" });
      await first.release(claim.key);
      expect(await first.get(claim.key)).toMatchObject({ state: "settled", tx_hash: "0xtx" });
    });

    test("unknown settlements are listed for reconciliation, and counted by state", async () => {
      const claim = claimFor();
      await first.claim(claim);
      await first.mark(claim.key, "unknown", { error: "no result" });
      expect((await second.unknown()).map((r) => r.payment_key)).toContain(claim.key);
      const counts = await second.counts();
      expect(counts.unknown).toBeGreaterThanOrEqual(1);
      expect(counts.settled).toBeGreaterThanOrEqual(1);
      await first.mark(claim.key, "failed", { error: "reconciled" });
      expect((await second.unknown()).map((r) => r.payment_key)).not.toContain(claim.key);
    });
  });
}
