/**
 * The real-names query set (real-names.json): how people and agents name the real reference
 * entities (chains, tokens, exchanges, the Aave protocols) — names, tickers, former names,
 * abbreviations, typos and questions — each with the entity a demanding user expects.
 *
 * Expectations are selectors on stable reference keys (chain keys, contract addresses, exchange
 * and protocol names), not entity ids, so the set survives re-keying, merging and linking of
 * entities; they are resolved to URIs against a snapshot's entities and facts with DuckDB.
 *
 * Scoring is for a name lookup, not a ranking of many relevant results: a query hits when an
 * expected entity is in the top k (3), and its reciprocal rank is 1 / the rank of the first
 * expected entity in the top 10 (0 when none is there).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBInstance } from "@duckdb/node-api";
import { z } from "zod";
import { ENTITY_TYPES } from "../../src/entities/vocabulary.ts";
import type { SearchAnswer } from "../../src/search/search.ts";
import { sqlString, withConnection } from "../../src/store/duckdb.ts";

export type Selector =
  | { chain: string }
  | { token: string }
  | { native_token_of: string }
  | { exchange: string }
  | { protocol: string }
  | { any_of: Selector[] }
  | { chains_with_parent: string }
  | { chains_of_family: string }
  | { stablecoins_pegged: string }
  | { exchanges_in_country: string }
  | { exchanges_labelled: string };

const key = z.string().min(1);
const selectorSchema: z.ZodType<Selector> = z.lazy(() =>
  z.union([
    z.strictObject({ chain: key }),
    z.strictObject({ token: key }),
    z.strictObject({ native_token_of: key }),
    z.strictObject({ exchange: key }),
    z.strictObject({ protocol: key }),
    z.strictObject({ any_of: z.array(selectorSchema).min(1) }),
    z.strictObject({ chains_with_parent: key }),
    z.strictObject({ chains_of_family: key }),
    z.strictObject({ stablecoins_pegged: key }),
    z.strictObject({ exchanges_in_country: key }),
    z.strictObject({ exchanges_labelled: key }),
  ]),
);

export const REAL_NAME_KINDS = ["name", "ticker", "former_name", "abbreviation", "typo", "question"] as const;
export type RealNameKind = (typeof REAL_NAME_KINDS)[number];
export const SPLITS = ["tune", "heldout"] as const;
export type Split = (typeof SPLITS)[number];

const realNameQuerySchema = z.strictObject({
  query: z.string().min(1),
  entity_types: z.array(z.enum(ENTITY_TYPES)).min(1).optional(),
  kind: z.enum(REAL_NAME_KINDS),
  split: z.enum(SPLITS),
  expected: selectorSchema,
});
export type RealNameQuery = z.infer<typeof realNameQuerySchema>;

const fileSchema = z.strictObject({ about: z.string(), queries: z.array(realNameQuerySchema) });

export function realNameQueries(): RealNameQuery[] {
  return fileSchema.parse(JSON.parse(readFileSync(join(import.meta.dir, "real-names.json"), "utf8"))).queries;
}

const fact = (predicate: string, condition: string) =>
  `EXISTS (SELECT 1 FROM f WHERE f.subject_id = e.id AND f.predicate = ${sqlString(predicate)} AND ${condition})`;
/** Ids of the chains with a chain key: the one place a key meets an entity, so re-keyed ids do not matter. */
const chainIds = (chainKey: string) =>
  `SELECT subject_id FROM f WHERE predicate = 'chainKey' AND object = ${sqlString(chainKey)}`;

/** A condition on the entity row `e` that holds for the entities a selector accepts. */
function selectorSql(s: Selector): string {
  if ("chain" in s) return `(e.type = 'Chain' AND e.id IN (${chainIds(s.chain)}))`;
  // Addresses are compared case-insensitively: EVM ones are lowercased in the facts, others may not be.
  if ("token" in s) return `(e.type = 'Token' AND ${fact("contractAddress", `lower(f.object) = ${sqlString(s.token.toLowerCase())}`)})`;
  if ("native_token_of" in s) {
    return `e.id IN (SELECT object FROM f WHERE predicate = 'nativeToken' AND subject_id IN (${chainIds(s.native_token_of)}))`;
  }
  if ("exchange" in s) return `(e.type = 'Exchange' AND lower(e.name) = ${sqlString(s.exchange.toLowerCase())})`;
  if ("protocol" in s) return `(e.type = 'Protocol' AND lower(e.name) = ${sqlString(s.protocol.toLowerCase())})`;
  if ("any_of" in s) return `(${s.any_of.map(selectorSql).join(" OR ")})`;
  if ("chains_with_parent" in s) {
    return `(e.type = 'Chain' AND ${fact("parentChain", `f.object IN (${chainIds(s.chains_with_parent)})`)})`;
  }
  if ("chains_of_family" in s) return `(e.type = 'Chain' AND ${fact("chainFamily", `f.object = ${sqlString(s.chains_of_family)}`)})`;
  if ("stablecoins_pegged" in s) {
    return `(e.type = 'Token' AND ${fact("pegCurrency", `upper(f.object) = ${sqlString(s.stablecoins_pegged.toUpperCase())}`)})`;
  }
  if ("exchanges_in_country" in s) {
    return `(e.type = 'Exchange' AND ${fact("country", `upper(f.object) = ${sqlString(s.exchanges_in_country.toUpperCase())}`)})`;
  }
  return `(e.type = 'Exchange' AND list_contains(e.labels, ${sqlString(s.exchanges_labelled)}))`;
}

/**
 * The acceptable entity URIs of each query, from a snapshot directory. Synthetic demo entities are
 * left out so that no selector (a set one above all) can ever accept one: the set measures the
 * real reference entities only.
 */
export async function resolveExpected(
  duck: DuckDBInstance,
  snapshotDir: string,
  queries: RealNameQuery[],
): Promise<Set<string>[]> {
  return withConnection(duck, async (c) => {
    await c.run(
      `CREATE OR REPLACE TEMP VIEW e AS SELECT * FROM read_parquet(${sqlString(join(snapshotDir, "entities.parquet"))}) WHERE source <> 'synthetic-demo'`,
    );
    await c.run(`CREATE OR REPLACE TEMP VIEW f AS SELECT * FROM read_parquet(${sqlString(join(snapshotDir, "facts.parquet"))})`);
    const out: Set<string>[] = [];
    for (const q of queries) {
      const reader = await c.runAndReadAll(`SELECT e.uri FROM e WHERE ${selectorSql(q.expected)}`);
      out.push(new Set(reader.getRows().map((row) => String(row[0]))));
    }
    return out;
  });
}

export interface RealNameScore {
  query: RealNameQuery;
  /** Some expected entity is in the top k. */
  hit: boolean;
  /** 1 / rank of the first expected entity in the top 10, else 0. */
  reciprocalRank: number;
  /** Names of the top k results, to read a miss. */
  top: string[];
}

export function scoreRealName(
  query: RealNameQuery,
  expected: Set<string>,
  answer: Pick<SearchAnswer, "results">,
  k = 3,
): RealNameScore {
  const first = answer.results.slice(0, 10).findIndex((r) => expected.has(r.uri));
  return {
    query,
    hit: first >= 0 && first < k,
    reciprocalRank: first < 0 ? 0 : 1 / (first + 1),
    top: answer.results.slice(0, k).map((r) => r.name),
  };
}

export interface RealNameStats {
  queries: number;
  /** Mean of `hit` (recall@3 with the default k). */
  recallAt3: number;
  mrr: number;
}

export interface RealNameQuality extends RealNameStats {
  bySplit: Partial<Record<Split, RealNameStats>>;
  byKind: Partial<Record<RealNameKind, RealNameStats>>;
  scores: RealNameScore[];
}

function stats(scores: RealNameScore[]): RealNameStats {
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  return {
    queries: scores.length,
    recallAt3: mean(scores.map((s) => (s.hit ? 1 : 0))),
    mrr: mean(scores.map((s) => s.reciprocalRank)),
  };
}

export function summarizeReal(scores: RealNameScore[]): RealNameQuality {
  const bySplit: RealNameQuality["bySplit"] = {};
  for (const split of SPLITS) {
    const of = scores.filter((s) => s.query.split === split);
    if (of.length > 0) bySplit[split] = stats(of);
  }
  const byKind: RealNameQuality["byKind"] = {};
  for (const kind of REAL_NAME_KINDS) {
    const of = scores.filter((s) => s.query.kind === kind);
    if (of.length > 0) byKind[kind] = stats(of);
  }
  return { ...stats(scores), bySplit, byKind, scores };
}
