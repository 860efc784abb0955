import { EXIT } from "../../src/exit-codes.ts";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { SnapshotManifest } from "../../src/store/manifest.ts";
import { findDuplicates } from "../../src/snapshot/duplicates.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openDuck, sqlString, withConnection } from "../../src/store/duckdb.ts";
import { selfCommand } from "../../src/runtime.ts";
import { fixtureDataDir } from "../support/fixture.ts";
import { tempDir } from "../support/temp-dirs.ts";

type Entity = [id: string, type: string, name: string, symbol: string | null, source: string];
type Fact = [subject: string, predicate: string, object: string, kind: "literal" | "entity" | "iri"];

/** Writes entities.parquet and facts.parquet with the snapshot's column names, and a manifest naming them. */
async function snapshotOf(entities: Entity[], facts: Fact[]): Promise<{ dir: string; manifest: SnapshotManifest }> {
  const dir = tempDir("ckg-duplicates-");
  const duck = await openDuck({ threads: 1 });
  await withConnection(duck, async (c) => {
    const e = entities.map(([id, type, name, symbol, source]) => `(${[id, type, name].map(sqlString).join(", ")}, ${symbol ? sqlString(symbol) : "NULL"}, ${sqlString(source)})`);
    await c.run(`COPY (SELECT * FROM (VALUES ${e.join(", ")}) AS t(id, type, name, symbol, source)) TO ${sqlString(join(dir, "entities.parquet"))} (FORMAT parquet)`);
    const f = facts.map((row) => `(${row.map(sqlString).join(", ")})`);
    await c.run(`COPY (SELECT * FROM (VALUES ${f.join(", ")}) AS t(subject_id, predicate, object, object_kind)) TO ${sqlString(join(dir, "facts.parquet"))} (FORMAT parquet)`);
  });
  const source = (id: string, synthetic: boolean) => ({ id, name: id, kind: synthetic ? "synthetic" : "reference", synthetic, license: "CC0-1.0", attribution: "", graph: id, entities: 0, facts: 0, as_of: "2026-01-01T00:00:00Z" });
  const manifest = { sources: [source("ref", false), source("demo", true)], files: { entities: "entities.parquet", facts: "facts.parquet" } } as unknown as SnapshotManifest;
  return { dir, manifest };
}

describe("duplicates: entities that look like one real thing left as two", () => {
  test("each kind of evidence finds its pair; tied, synthetic-only, people's namesakes and two contracts on one chain are left out", async () => {
    const { dir, manifest } = await snapshotOf(
      [
        ["token/usdc", "Token", "USD Coin", "USDC", "ref"],
        ["token/usdc-2", "Token", "USDC", "USDC", "ref"],
        ["chain/op", "Chain", "OP Mainnet", "ETH", "ref"],
        ["chain/optimism", "Chain", "Optimism", "ETH", "ref"],
        ["token/aave", "Token", "Aave", "AAVE", "ref"],
        ["token/aave-token", "Token", "Aave Token", "AAVE", "ref"],
        ["token/link", "Token", "Chainlink Token", "LINK", "ref"],
        ["token/link-2", "Token", "ChainLink Token", "LINK", "ref"],
        ["chain/sei", "Chain", "Sei", "SEI", "ref"],
        ["chain/sei-2", "Chain", "Sei", "SEI", "ref"],
        ["token/demo-a", "Token", "Qorvex", "QRV", "demo"],
        ["token/demo-b", "Token", "Qorvex", "QRV", "demo"],
        ["person/alex-chen", "Person", "Alex Chen", null, "ref"],
        ["person/alex-chen-2", "Person", "Alex Chen", null, "ref"],
        ["token/usdt", "Token", "Tether USD", "USDT", "ref"],
        ["token/usdt-bridged", "Token", "Tether USD", "USDT", "ref"],
        ["token/fet", "Token", "Fetch", "FET", "ref"],
        ["token/fet-old", "Token", "Fetch", "FET", "ref"],
      ],
      [
        ["token/usdc", "contractAddress", "eip155:1:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "literal"],
        ["token/usdc-2", "contractAddress", "eip155:1:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "literal"],
        ["chain/op", "chainKey", "eip155:10", "literal"],
        ["chain/optimism", "chainKey", "eip155:10", "literal"],
        ["token/aave", "owl:sameAs", "https://www.coingecko.com/en/coins/aave", "iri"],
        ["token/aave-token", "owl:sameAs", "https://www.coingecko.com/en/coins/aave", "iri"],
        ["chain/sei", "sameNetworkAs", "chain/sei-2", "entity"],
        ["token/usdt-bridged", "bridgedFrom", "token/usdt", "entity"],
        ["token/fet", "contractAddress", "eip155:1:0xaea46a60368a7bd060eec7df8cba43b7ef41ad85", "literal"],
        ["token/fet-old", "contractAddress", "eip155:1:0x1d287cc25dad7ccaf76a26bc660c5f7c8e2a05bd", "literal"],
      ],
    );
    const report = await findDuplicates(await openDuck({ threads: 1 }), dir, manifest);
    const found = report.groups.map((g) => [g.reason, g.members.map((m) => m.id).sort()]);
    expect(found).toEqual([
      ["contract_address", ["token/usdc", "token/usdc-2"]],
      ["chain_key", ["chain/op", "chain/optimism"]],
      ["external_id", ["token/aave", "token/aave-token"]],
      ["name_and_symbol", ["token/link", "token/link-2"]],
    ]);
    expect(report.by_reason).toEqual({ contract_address: 1, chain_key: 1, external_id: 1, name_and_symbol: 1 });
    expect(report.entities).toBe(8);
  });

  test("ckg stats counts the live snapshot's entities, real beside synthetic, and lists duplicates as JSON", async () => {
    const root = await fixtureDataDir();
    const result = Bun.spawnSync(selfCommand("stats", "--data-dir", root, "--duplicates", "--json"), { env: { ...process.env, CKG_LOG_LEVEL: "silent" } });
    expect(result.exitCode).toBe(0);
    const out = JSON.parse(result.stdout.toString());
    const manifest = readManifest(snapshotPath(dataDir(root), currentSnapshotId(dataDir(root))!));
    const total = out.entities_by_type.reduce((s: number, r: { real: number; synthetic: number }) => s + r.real + r.synthetic, 0);
    expect(total).toBe(Object.values(manifest.counts.nodes_by_type).reduce((a, b) => a + b, 0));
    expect(out.entities_by_type.find((r: { type: string }) => r.type === "Chain").real).toBeGreaterThan(1000);
    expect(out.sources.find((s: { id: string }) => s.id === "synthetic-demo").synthetic).toBe(true);
    expect(Object.keys(out.duplicates.by_reason)).toEqual(["contract_address", "chain_key", "external_id", "name_and_symbol"]);
    // The built world leaves no real thing as two entities: reference records merge or link.
    expect(out.duplicates.groups).toEqual([]);

    const missing = Bun.spawnSync(selfCommand("stats", "--data-dir", tempDir("ckg-empty-")), { env: { ...process.env, CKG_LOG_LEVEL: "silent" } });
    expect(missing.exitCode).toBe(EXIT.noSnapshot);
    expect(missing.stderr.toString()).toContain("holds no snapshot yet");
  });
});
