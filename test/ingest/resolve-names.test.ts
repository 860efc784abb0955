/**
 * Resolution of the names providers use that our reference data spells otherwise: DefiLlama's
 * former chain display names, and a stablecoin another list names differently (DOLA), through a
 * real ingest onto the fixture world.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ingest } from "../../src/ingest/ingest.ts";
import { RawStore } from "../../src/ingest/raw-store.ts";
import { silentLogger } from "../../src/log.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openDuck, sqlString, withConnection } from "../../src/store/duckdb.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { tempDir } from "../support/temp-dirs.ts";

const TODAY = "2026-11-20";

describe("resolution of names providers spell otherwise", () => {
  test("DOLA from DefiLlama's stablecoins joins the reference DOLA, deployed on OP Mainnet, BSC and Gnosis by their former DefiLlama names", async () => {
    const root = await copyOfFixture();
    const saved = tempDir("ckg-saved-");
    // DefiLlama's stablecoin record of DOLA (its shape; chain names as older answers give them).
    new RawStore(saved).save("defillama", "stablecoins", {
      day: TODAY,
      since: null,
      body: {
        peggedAssets: [
          {
            id: "19",
            name: "Dola",
            symbol: "DOLA",
            gecko_id: "dola-usd",
            pegType: "peggedUSD",
            pegMechanism: "crypto-backed",
            circulating: { peggedUSD: 151234567.5 },
            price: 0.9991,
            chains: ["Ethereum", "Optimism", "Base", "Binance", "xDai", "Nowhere Chain"],
          },
        ],
      },
    });
    const report = await ingest({ dir: dataDir(root), today: TODAY, source: { kind: "import", from: saved, providers: ["defillama"] }, log: silentLogger });
    expect(report.resolution.matched_by_symbol).toBe(1);
    expect(report.resolution.entities_created).toBe(0);
    expect(report.resolution.chains_by_former_name).toBeGreaterThanOrEqual(3); // Optimism, Binance, xDai
    expect(report.resolution.relations_unresolved).toBe(1); // Nowhere Chain: counted, not silent

    const snapshot = snapshotPath(dataDir(root), currentSnapshotId(dataDir(root))!);
    const duck = await openDuck({ threads: 1 });
    const rows = await withConnection(duck, async (c) => {
      const q = async (sql: string) => (await c.runAndReadAll(sql)).getRowObjectsJS() as Record<string, string>[];
      const dolas = await q(`SELECT id, name FROM read_parquet(${sqlString(join(snapshot, "entities.parquet"))}) WHERE type = 'Token' AND upper(symbol) = 'DOLA'`);
      const chains = await q(
        `SELECT f.object AS chain, k.object AS chain_key FROM read_parquet(${sqlString(join(snapshot, "facts.parquet"))}) f
           JOIN read_parquet(${sqlString(join(snapshot, "facts.parquet"))}) k ON k.subject_id = f.object AND k.predicate = 'chainKey'
          WHERE f.subject_id = ${sqlString(dolas[0]?.id ?? "")} AND f.predicate = 'deployedOn' AND f.source = 'defillama'`,
      );
      return { dolas, chainKeys: chains.map((r) => r.chain_key).sort() };
    });
    expect(rows.dolas).toHaveLength(1);
    expect(rows.dolas[0]!.name).toBe("Dola USD Stablecoin");
    expect(rows.chainKeys).toEqual(expect.arrayContaining(["eip155:1", "eip155:10", "eip155:8453", "eip155:56", "eip155:100"]));
  }, 120_000);
});
