/**
 * A PostgreSQL state (CKG_STATE_URL) backed up and restored through the CLI on a real PostgreSQL 15:
 * every table's rows come back in a fresh database, the identity columns go on after the ids
 * loaded, and a database that holds data is refused untouched.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PaymentLedger } from "../../src/payments/ledger.ts";
import { selfCommand } from "../../src/runtime.ts";
import { openPostgresState } from "../../src/store/state-postgres.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { postgresEngine } from "../support/state-engines.ts";
import { tempDir } from "../support/temp-dirs.ts";

const engine = postgresEngine();
afterAll(() => engine.stop());

function ckg(stateUrl: string, ...args: string[]): { code: number; out: string; err: string } {
  const run = Bun.spawnSync(selfCommand(...args), { env: { ...process.env, CKG_LOG_LEVEL: "warn", CKG_STATE_URL: stateUrl } });
  return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() };
}

/** Every table of the ckg schema with its rows, ordered: what "the same state" compares. */
async function contents(url: string): Promise<Record<string, unknown[]>> {
  const sql = new SQL(url, { max: 1 });
  try {
    const tables = (await sql.unsafe("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'ckg' AND table_name <> 'schema_version' ORDER BY 1")) as { t: string }[];
    const out: Record<string, unknown[]> = {};
    for (const { t } of tables) out[t] = [...((await sql.unsafe(`SELECT * FROM ckg."${t}" ORDER BY 1`)) as unknown[])].map((row) => JSON.stringify(row));
    return out;
  } finally {
    await sql.close();
  }
}

describe.skipIf(!engine.available)("backup and restore of a PostgreSQL state", () => {
  test("every row comes back in an empty database; one that holds data is refused", async () => {
    const dir = await copyOfFixture();
    const source = await engine.freshUrl();
    expect(ckg(source, "scan", "--data-dir", dir).code).toBe(0);
    const state = await openPostgresState(source);
    const ledger = new PaymentLedger(state);
    for (let i = 0; i < 20; i++) {
      const key = `pg-pay-${i}`;
      await ledger.claim({ key, operation: "search", amount: "100000", asset: "0xusdc", network: "eip155:8453", payTo: "0xpayto", payer: "0xpayer", nonce: key, validBefore: 1_900_000_000 + i, requestId: key });
      await ledger.mark(key, "settled", { tx: `0x${i}` });
    }
    await state.close();

    const backup = join(tempDir("ckg-backup-pg-"), "b");
    const taken = ckg(source, "backup", backup, "--data-dir", dir);
    expect(taken.code, taken.err).toBe(0);
    expect(existsSync(join(backup, "state", "payments.jsonl"))).toBe(true);
    expect(existsSync(join(backup, "state.sqlite"))).toBe(false);

    const target = await engine.freshUrl();
    const restoredDir = join(tempDir("ckg-restore-pg-"), "data");
    const restored = ckg(target, "restore", backup, "--data-dir", restoredDir);
    expect(restored.code, restored.err).toBe(0);
    const [before, after] = [await contents(source), await contents(target)];
    expect(after.signals!.length).toBeGreaterThan(0);
    expect(after.payments!.length).toBe(20);
    expect(after).toEqual(before);

    // Identity columns go on after the loaded ids: a new move is written, not refused as a duplicate id.
    const sql = new SQL(target, { max: 1 });
    try {
      const [last] = (await sql.unsafe("SELECT max(id) AS id FROM ckg.signal_moves")) as { id: number }[];
      const [signal] = (await sql.unsafe("SELECT signal_id FROM ckg.signals LIMIT 1")) as { signal_id: string }[];
      const [made] = (await sql.unsafe("INSERT INTO ckg.signal_moves (signal_id, at, from_state, to_state, reason, scan_id) VALUES ($1, 'now', NULL, 'pending', 'test', 'test') RETURNING id", [signal!.signal_id])) as { id: number }[];
      expect(made!.id).toBeGreaterThan(last!.id);
    } finally {
      await sql.close();
    }

    const again = ckg(target, "restore", backup, "--data-dir", join(tempDir("ckg-restore-pg2-"), "data"));
    expect(again.code).toBe(1);
    expect(again.err).toContain("already holds data");
  }, 180_000);
});
