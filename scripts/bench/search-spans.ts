/**
 * Where a meaning question's time goes on the server's main thread (to see what holds the thread).
 * Run by hand:
 *   bun scripts/bench/search-spans.ts [--data-dir DIR] [--runs 5] [--no-reindex]
 *
 * Loads what a server loads for search, in this process, and asks the meaning questions of
 * scripts/bench/search.ts. The vector scans are answered first by the scan workers (and kept),
 * then replayed from memory, so the figures are the main thread's own work per question: a server
 * answers at most 1000 / (that many ms) questions a second on one event loop, whatever the workers.
 * Prints the main thread's ms per question, the share of each step (timed by wrapping the step),
 * and the same with the workers answering (one question at a time).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ENTITY_TYPES, type EntityType } from "../../src/entities/vocabulary.ts";
import { NameIndex } from "../../src/entities/name-index.ts";
import { LsaEmbedder } from "../../src/search/embedder.ts";
import { searchLookups } from "../../src/search/engine.ts";
import { loadLsa } from "../../src/search/lsa.ts";
import { search, searchInputSchema } from "../../src/search/search.ts";
import { type Hit, VectorIndexes } from "../../src/search/vector-index.ts";
import { VectorRows } from "../../src/search/vector-rows.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openDuck } from "../../src/store/duckdb.ts";
import { meaningQuestions, reindex } from "./search-index.ts";
import { percentile, printTable } from "./stats.ts";
import { workingCopy } from "./working-copy.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-bench-search" },
    runs: { type: "string", default: "5" },
    "no-reindex": { type: "boolean", default: false },
    /** Only the main thread's own work (for a CPU profile of it: bun --cpu-prof-md). */
    "main-only": { type: "boolean", default: false },
  },
});
const { root, dir } = workingCopy(dataDir(values["data-dir"]!), "ckg-search-spans-");
process.on("exit", () => rmSync(root, { recursive: true, force: true }));
const snapshotDir = snapshotPath(dir, currentSnapshotId(dir)!);
const manifest = readManifest(snapshotDir);
const searchDir = join(snapshotDir, manifest.search.dir);
if (!values["no-reindex"]) await reindex(searchDir, manifest.search.dims);

const duck = await openDuck();
const vectors = await VectorIndexes.open(searchDir, ENTITY_TYPES, manifest.search.dims);
const embedder = new LsaEmbedder(loadLsa(searchDir));
const names = await NameIndex.fromParquet(duck, join(snapshotDir, manifest.files.entities), manifest.namespaces);
const lookups = await searchLookups(duck, snapshotDir, manifest, names);
const rows = VectorRows.open(searchDir, manifest.search.dims, names);

type Body = { query: string; entity_types?: EntityType[] };
const bodies: Body[] = meaningQuestions();

// Each step's time, by wrapping the object's method (the steps run one after another on this thread).
const spans = new Map<string, number>();
function timed<T extends object, K extends keyof T>(label: string, target: T, key: K): void {
  const original = target[key] as (...args: unknown[]) => unknown;
  (target as Record<K, unknown>)[key] = function (this: unknown, ...args: unknown[]) {
    const start = performance.now();
    const out = original.apply(this, args);
    spans.set(label, (spans.get(label) ?? 0) + performance.now() - start);
    return out;
  } as T[K];
}
timed("names: exact", names, "exactAny");
timed("names: words of names (word index, typo walk)", names.words, "match");
timed("names: whole-name spellings (closeNames)", names, "closeNames");
timed("descriptions: postings of the question's words", lookups.descriptions, "match");
timed("exact scores of described / scoped entities", rows, "cosine");
timed("scope: the chain, country or peg a question names", lookups.scopes, "scoredMembers");

// Scans answered once by the workers, then replayed: the main thread's work alone.
const answers = new Map<string, Hit[]>();
const keyOf = (vector: Float32Array, k: number, types: readonly EntityType[]) => `${Array.from(vector.subarray(0, 8)).join(",")}|${k}|${types.join(",")}`;
const recording = {
  search: async (vector: Float32Array, k: number, types: readonly EntityType[]) => {
    const hits = await vectors.search(vector, k, types);
    answers.set(keyOf(vector, k, types), hits);
    return hits;
  },
} as unknown as VectorIndexes;
const replaying = {
  search: async (vector: Float32Array, k: number, types: readonly EntityType[]) => answers.get(keyOf(vector, k, types)) ?? vectors.search(vector, k, types),
} as unknown as VectorIndexes;
const deps = { ...lookups, rows, embedder, vectors };
const inputs = bodies.map((b) => searchInputSchema.parse(b));
for (const input of inputs) await search({ ...deps, vectors: recording }, input);
timed("embedding (LSA)", embedder, "embedQuery");

const runs = Number(values.runs);
const measure = async (label: string, vectorIndex: VectorIndexes) => {
  for (const input of inputs) await search({ ...deps, vectors: vectorIndex }, input); // warm
  spans.clear();
  const times: number[] = [];
  const byQuestion = new Map<string, number>();
  for (let run = 0; run < runs; run++) {
    for (const input of inputs) {
      const start = performance.now();
      await search({ ...deps, vectors: vectorIndex }, input);
      const ms = performance.now() - start;
      times.push(ms);
      byQuestion.set(input.query, (byQuestion.get(input.query) ?? 0) + ms / runs);
    }
  }
  const slowest = [...byQuestion].sort((a, b) => b[1] - a[1]).slice(0, 5);
  const total = times.reduce((a, b) => a + b, 0);
  const perQuestion = total / times.length;
  printTable(`${label}: ${inputs.length} meaning questions x ${runs}`, [
    ["per question: mean / p50 / p99", `${perQuestion.toFixed(3)} / ${percentile(times, 50).toFixed(3)} / ${percentile(times, 99).toFixed(3)} ms`],
    ["  questions a second on one thread at that mean", (1000 / perQuestion).toFixed(0)],
    ...[...spans].sort((a, b) => b[1] - a[1]).map(([step, ms]): [string, string] => [`  ${step}`, `${(ms / times.length).toFixed(3)} ms (${((100 * ms) / total).toFixed(1)}%)`]),
    ["the slowest questions", ""],
    ...slowest.map(([query, ms]): [string, string] => [`  ${query}`, `${ms.toFixed(3)} ms`]),
  ]);
};
await measure("Main thread alone (scans replayed)", replaying);
if (!values["main-only"]) await measure("With the scan workers (one question at a time)", vectors);
vectors.close();
