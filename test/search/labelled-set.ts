/**
 * The labelled query set (labelled-queries.json) and its scoring: each query's relevant entities
 * come from a rule evaluated over a snapshot's entities and facts with DuckDB, so the set holds for
 * any scale and seed. Used by the search quality test and by scripts/bench/search.ts.
 *
 * recall@10 of a query: the share of its relevant entities in the top 10, out of at most 10
 * (a query with 40 relevant entities scores 1 when all 10 results are relevant).
 * Reciprocal rank: 1 / the rank of the first relevant result (0 when none is in the top 10).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBInstance } from "@duckdb/node-api";
import { z } from "zod";
import { ENTITY_TYPES } from "../../src/entities/vocabulary.ts";
import { normalizeName } from "../../src/entities/name-index.ts";
import type { SearchAnswer } from "../../src/search/search.ts";
import { sqlString, withConnection } from "../../src/store/duckdb.ts";

const ruleSchema = z.strictObject({
  type: z.enum(ENTITY_TYPES).optional(),
  name: z.string().optional(),
  symbol: z.string().optional(),
  label: z.string().optional(),
  category: z.string().optional(),
  of_category: z.string().optional(),
  chain: z.string().optional(),
  pool_token: z.string().optional(),
  pool_kind: z.string().optional(),
  layer: z.string().optional(),
  job_title: z.string().optional(),
  description: z.string().optional(),
});
type Rule = z.infer<typeof ruleSchema>;

const labelledSchema = z.object({
  queries: z.array(
    z.strictObject({
      kind: z.enum(["name", "symbol", "typo", "meaning", "filter"]),
      query: z.string(),
      entity_types: z.array(z.enum(ENTITY_TYPES)).optional(),
      relevant: ruleSchema,
    }),
  ),
});
export type LabelledQuery = z.infer<typeof labelledSchema>["queries"][number];

export function labelledQueries(): LabelledQuery[] {
  return labelledSchema.parse(JSON.parse(readFileSync(join(import.meta.dir, "labelled-queries.json"), "utf8"))).queries;
}

const fact = (predicate: string, object: string) =>
  `EXISTS (SELECT 1 FROM f WHERE f.subject_id = e.id AND f.predicate = ${sqlString(predicate)} AND ${object})`;
const linkedTo = (predicate: string, condition: string) =>
  `EXISTS (SELECT 1 FROM f JOIN e AS t ON t.id = f.object WHERE f.subject_id = e.id AND f.predicate = ${sqlString(predicate)} AND ${condition})`;

function ruleSql(rule: Rule): string {
  const where: string[] = [];
  if (rule.type) where.push(`e.type = ${sqlString(rule.type)}`);
  if (rule.name) where.push(`e.name_key = ${sqlString(normalizeName(rule.name))}`);
  if (rule.symbol) where.push(`upper(e.symbol) = ${sqlString(rule.symbol.toUpperCase())}`);
  if (rule.label) where.push(`list_contains(e.labels, ${sqlString(rule.label)})`);
  if (rule.category) where.push(fact("category", `f.object = ${sqlString(rule.category)}`));
  if (rule.of_category) {
    const category = `EXISTS (SELECT 1 FROM f AS c WHERE c.subject_id = t.id AND c.predicate = 'category' AND c.object = ${sqlString(rule.of_category)})`;
    where.push(`(${linkedTo("poolOf", category)} OR ${linkedTo("issuedBy", category)})`);
  }
  if (rule.chain) where.push(linkedTo("deployedOn", `t.name_key = ${sqlString(normalizeName(rule.chain))}`));
  if (rule.pool_token) where.push(linkedTo("poolToken", `upper(t.symbol) = ${sqlString(rule.pool_token.toUpperCase())}`));
  if (rule.pool_kind) where.push(fact("poolKind", `f.object = ${sqlString(rule.pool_kind)}`));
  if (rule.layer) where.push(fact("layer", `f.object = ${sqlString(rule.layer)}`));
  if (rule.job_title) where.push(fact("jobTitle", `f.object ILIKE ${sqlString(`%${rule.job_title}%`)}`));
  if (rule.description) where.push(fact("schema:description", `f.object ILIKE ${sqlString(`%${rule.description}%`)}`));
  return `SELECT e.uri FROM e WHERE ${where.join(" AND ") || "true"}`;
}

/** The relevant entity URIs of each query, from a snapshot directory. */
export async function judge(duck: DuckDBInstance, snapshotDir: string, queries: LabelledQuery[]): Promise<Set<string>[]> {
  return withConnection(duck, async (c) => {
    await c.run(`CREATE OR REPLACE TEMP VIEW e AS SELECT * FROM read_parquet(${sqlString(join(snapshotDir, "entities.parquet"))})`);
    await c.run(`CREATE OR REPLACE TEMP VIEW f AS SELECT * FROM read_parquet(${sqlString(join(snapshotDir, "facts.parquet"))})`);
    const out: Set<string>[] = [];
    for (const q of queries) {
      const reader = await c.runAndReadAll(ruleSql(q.relevant));
      out.push(new Set(reader.getRows().map((row) => String(row[0]))));
    }
    return out;
  });
}

export interface QueryScore {
  query: LabelledQuery;
  relevant: number;
  recall: number;
  reciprocalRank: number;
  top: string[];
}

export function scoreQuery(query: LabelledQuery, relevant: Set<string>, answer: SearchAnswer, k = 10): QueryScore {
  const top = answer.results.slice(0, k);
  const hits = top.filter((r) => relevant.has(r.uri)).length;
  const first = top.findIndex((r) => relevant.has(r.uri));
  return {
    query,
    relevant: relevant.size,
    recall: relevant.size === 0 ? 0 : hits / Math.min(k, relevant.size),
    reciprocalRank: first < 0 ? 0 : 1 / (first + 1),
    top: top.map((r) => r.name),
  };
}

export interface Quality {
  recallAt10: number;
  mrr: number;
  byKind: Record<string, { queries: number; recallAt10: number; mrr: number }>;
  scores: QueryScore[];
}

export function summarize(scores: QueryScore[]): Quality {
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  const byKind: Quality["byKind"] = {};
  for (const kind of new Set(scores.map((s) => s.query.kind))) {
    const of = scores.filter((s) => s.query.kind === kind);
    byKind[kind] = { queries: of.length, recallAt10: mean(of.map((s) => s.recall)), mrr: mean(of.map((s) => s.reciprocalRank)) };
  }
  return { recallAt10: mean(scores.map((s) => s.recall)), mrr: mean(scores.map((s) => s.reciprocalRank)), byKind, scores };
}
