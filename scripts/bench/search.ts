/**
 * Search benchmark (issue 4). Run by hand:
 *   bun scripts/bench/search.ts [--data-dir DIR] [--scale full] [--runs 3] [--probes 400]
 *
 * Prints: the index's build time and size (from the snapshot), its load time and the memory it
 * takes, search p50/p99 over HTTP against a real server (and in-process, the ratio), recall@10 of
 * the index (int8 codes scanned in worker threads, candidates scored again exactly) against exact
 * brute-force search over the same saved vectors, beside usearch's float brute force (the raw
 * engine), and the labelled query set's recall@10 and MRR on this data.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Rng } from "../../src/dataset/rng.ts";
import { ENTITY_TYPES, type EntityType } from "../../src/graph/vocabulary.ts";
import { createLogger } from "../../src/log.ts";
import { selfCommand } from "../../src/runtime.ts";
import { Deployments } from "../../src/search/chain-scope.ts";
import { LsaEmbedder } from "../../src/search/embedder.ts";
import usearch from "usearch";
import { loadLsa, readFloats } from "../../src/search/lsa.ts";
import { NameIndex } from "../../src/search/name-index.ts";
import { type SearchAnswer, namePositions, search, searchInputSchema } from "../../src/search/search.ts";
import { idsFile, vectorsFile } from "../../src/search/vector-files.ts";
import { VectorIndexes } from "../../src/search/vector-index.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { readManifest } from "../../src/snapshot/manifest.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openDuck } from "../../src/store/duckdb.ts";
import { judge, labelledQueries, scoreQuery, summarize } from "../../test/search/labelled-set.ts";
import { startServer } from "../../test/support/server.ts";
import { percentile, printTable } from "./stats.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-bench-search" },
    scale: { type: "string", default: "full" },
    runs: { type: "string", default: "3" },
    probes: { type: "string", default: "400" },
  },
});
const dir = dataDir(values["data-dir"]!);
if (!currentSnapshotId(dir)) {
  const scale = /^\d+$/.test(values.scale!) ? Number(values.scale) : (values.scale as "full" | "default");
  await buildSnapshot({ dir, scale, seed: 42, ontologyNs: "https://ckg.example/ontology#", log: createLogger("warn", 2) });
}
const snapshotDir = snapshotPath(dir, currentSnapshotId(dir)!);
const manifest = readManifest(snapshotDir);
const searchDir = join(snapshotDir, manifest.search.dir);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(2)} ms`;
const rssOf = (pid: number | "self") => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

// --- The index as built ------------------------------------------------------------------------
const files = readdirSync(searchDir).map((name) => ({ name, bytes: statSync(join(searchDir, name)).size }));
const sum = (filter: (name: string) => boolean) => files.filter((f) => filter(f.name)).reduce((s, f) => s + f.bytes, 0);
const entities = Object.values(manifest.search.counts).reduce((a, b) => a + b, 0);
printTable(`Search index of snapshot ${manifest.id} (${entities.toLocaleString("en")} entities, embedder ${manifest.search.embedder}, ${manifest.search.dims} dims)`, [
  ["index build (model + vectors + int8 codes)", `${(manifest.search.build_ms / 1000).toFixed(1)} s`],
  ["int8 codes (*.sq8, scanned)", mb(sum((n) => n.endsWith(".sq8")))],
  ["saved vectors (*.vectors.f32, memory-mapped for the exact scores)", mb(sum((n) => n.endsWith(".vectors.f32")))],
  ["LSA model", mb(sum((n) => n.startsWith("lsa-")))],
  ["ids", mb(sum((n) => n.endsWith(".ids.json")))],
  ["total", mb(sum(() => true))],
  ...ENTITY_TYPES.map((t): [string, string] => [`  ${t}`, manifest.search.counts[t]!.toLocaleString("en")]),
]);

// --- Load time and memory, in this process ------------------------------------------------------
const duck = await openDuck({ threads: 2 });
Bun.gc(true);
const rssBefore = rssOf("self");
let t = performance.now();
const vectors = await VectorIndexes.open(searchDir, ENTITY_TYPES, manifest.search.dims);
const vectorsMs = performance.now() - t;
t = performance.now();
const embedder = new LsaEmbedder(loadLsa(searchDir));
const modelMs = performance.now() - t;
t = performance.now();
const names = await NameIndex.fromParquet(duck, join(snapshotDir, manifest.files.entities), manifest.namespaces);
const namesMs = performance.now() - t;
t = performance.now();
const deployments = await Deployments.fromParquet(duck, join(snapshotDir, manifest.files.facts));
const deploymentsMs = performance.now() - t;
t = performance.now();
const positions = namePositions(searchDir, names);
const positionsMs = performance.now() - t;
Bun.gc(true);
const deps = { names, vectors, positions, embedder, deployments };
const rssLoaded = rssOf("self");
printTable("Load (in-process, what a server does at activation)", [
  ["vector index (scan workers load their slices)", ms(vectorsMs)],
  ["LSA model", ms(modelMs)],
  ["name index (entities.parquet)", ms(namesMs)],
  ["deployments (facts.parquet)", ms(deploymentsMs)],
  ["vector rows to name positions", ms(positionsMs)],
  ["total", ms(vectorsMs + modelMs + namesMs + deploymentsMs + positionsMs)],
  ["RSS added by loading", mb(rssLoaded - rssBefore)],
]);

// --- Queries: the labelled set, plus entity names, misspelt names and chain-scoped questions ------
const rng = new Rng(11);
const idsByType = new Map(ENTITY_TYPES.map((type) => [type, JSON.parse(readFileSync(join(searchDir, idsFile(type)), "utf8")) as string[]]));
const allIds = [...idsByType.values()].flat();
const sampleNames = Array.from({ length: 200 }, () => names.get(rng.pick(allIds))?.name).filter((n): n is string => !!n);
const misspell = (name: string) => {
  const at = 1 + Math.floor(rng.next() * Math.max(1, name.length - 2));
  return name.slice(0, at) + name.slice(at + 1);
};
const labelled = labelledQueries();
const workload = [
  ...labelled.map((q) => ({ query: q.query, entity_types: q.entity_types })),
  ...sampleNames.map((query) => ({ query })),
  ...sampleNames.slice(0, 100).map((name) => ({ query: misspell(name) })),
  ...sampleNames.slice(100, 150).map((name) => ({ query: name, entity_types: ["Pool" as EntityType] })),
];

// --- HTTP against a real server, and the same searches in-process ---------------------------------
const server = await startServer(selfCommand("serve", "--data-dir", dir.root, "--port", "0"), { CKG_LOG_LEVEL: "info" });
await server.waitReady(600_000);
const post = (body: unknown) => fetch(`${server.url}/api/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
for (const body of workload.slice(0, 50)) await (await post(body)).arrayBuffer(); // warm up both sides
for (const body of workload.slice(0, 50)) await search(deps, searchInputSchema.parse(body));
const http: number[] = [];
const raw: number[] = [];
for (let run = 0; run < Number(values.runs); run++) {
  for (const body of workload) {
    // Alternate, so both sides see the same machine state.
    let start = performance.now();
    const response = await post(body);
    await response.arrayBuffer();
    http.push(performance.now() - start);
    if (response.status !== 200) throw new Error(`${response.status} for ${JSON.stringify(body)}`);
    start = performance.now();
    await search(deps, searchInputSchema.parse(body));
    raw.push(performance.now() - start);
  }
}
const serverRss = rssOf(server.process.pid);

// The answers /api/search gives with the index against the answers it gives with every type
// searched exactly: what the approximation costs a user.
const exactDeps = { ...deps, vectors: await VectorIndexes.open(searchDir, ENTITY_TYPES, manifest.search.dims, { exact: true }) };
let answerHits = 0;
let answerTotal = 0;
const exactTimes: number[] = [];
for (const body of workload) {
  const input = searchInputSchema.parse(body);
  const approximate = await search(deps, input);
  const start = performance.now();
  const exact = await search(exactDeps, input);
  exactTimes.push(performance.now() - start);
  const tenth = exact.results.at(-1)?.similarity ?? 0;
  const exactUris = new Set(exact.results.map((r) => r.uri));
  // Tie-aware: a result as similar as the exact tenth counts.
  answerHits += approximate.results.filter((r) => exactUris.has(r.uri) || r.similarity >= tenth).length;
  answerTotal += exact.results.length;
}
printTable(`Search latency (${http.length} searches: labelled set, names, misspellings, pool names)`, [
  ["HTTP p50", ms(percentile(http, 50))],
  ["HTTP p99", ms(percentile(http, 99))],
  ["in-process p50", ms(percentile(raw, 50))],
  ["in-process p99", ms(percentile(raw, 99))],
  ["ratio HTTP / in-process (p50)", (percentile(http, 50) / percentile(raw, 50)).toFixed(2)],
  ["in-process p50, every type searched exactly", ms(percentile(exactTimes, 50))],
  ["recall@10 of the answers: index vs every type exact", (answerHits / answerTotal).toFixed(4)],
  ["server RSS after the run (main process)", mb(serverRss)],
]);

// --- Labelled set quality on this data, over HTTP ------------------------------------------------
const relevant = await judge(duck, snapshotDir, labelled);
const scores = [];
for (const [i, q] of labelled.entries()) {
  const answer = (await (await post({ query: q.query, entity_types: q.entity_types })).json()) as SearchAnswer;
  scores.push(scoreQuery(q, relevant[i]!, answer));
}
await server.stop();
const quality = summarize(scores);
printTable(`Labelled query set (${labelled.length} queries)`, [
  ["recall@10", quality.recallAt10.toFixed(3)],
  ["MRR", quality.mrr.toFixed(3)],
  ...Object.entries(quality.byKind).map(([kind, q]): [string, string] => [`  ${kind} (${q.queries})`, `recall@10 ${q.recallAt10.toFixed(3)}, MRR ${q.mrr.toFixed(3)}`]),
]);

// --- The index against exact brute force over the same vectors ----------------------------------
const probeCount = Number(values.probes);
const probeTexts = [...labelled.map((q) => q.query), ...sampleNames, ...sampleNames.map(misspell)];
// Each type's saved vectors, read once (the probes and the brute force both use them).
const vectorCache = new Map<EntityType, Float32Array>();
function readFloatsCached(type: EntityType): Float32Array {
  let all = vectorCache.get(type);
  if (!all) vectorCache.set(type, (all = readFloats(join(searchDir, vectorsFile(type)))));
  return all;
}
const probes: Float32Array[] = [];
for (const text of probeTexts) {
  const v = await embedder.embedQuery(text);
  if (v.some((x) => x !== 0)) probes.push(v);
}
while (probes.length < probeCount) {
  // Entity vectors themselves, as "more like this" queries.
  const type = rng.pick(ENTITY_TYPES.filter((ty) => manifest.search.counts[ty]! > 0));
  const all = readFloatsCached(type);
  const row = Math.floor(rng.next() * manifest.search.counts[type]!);
  probes.push(all.slice(row * manifest.search.dims, (row + 1) * manifest.search.dims));
}

const dims = manifest.search.dims;
const recallRows: [string, string][] = [];
const { MetricKind, exactSearch } = usearch;
let hitsK10 = 0;
let hitsDeep = 0;
let total = 0;
for (const type of ENTITY_TYPES) {
  const count = manifest.search.counts[type]!;
  if (count === 0) continue;
  const all = readFloatsCached(type);
  let typeHits = 0;
  let typeTotal = 0;
  const bruteTimes: number[] = [];
  const engineTimes: number[] = [];
  const annTimes: number[] = [];
  for (const probe of probes.slice(0, probeCount)) {
    let start = performance.now();
    const scores = new Float32Array(count);
    for (let row = 0; row < count; row++) {
      let dot = 0;
      const base = row * dims;
      for (let j = 0; j < dims; j++) dot += probe[j]! * all[base + j]!;
      scores[row] = dot;
    }
    const exact = topK(scores, Math.min(10, count));
    bruteTimes.push(performance.now() - start);
    start = performance.now();
    exactSearch(all, probe, dims, Math.min(10, count), MetricKind.Cos, 1);
    engineTimes.push(performance.now() - start);
    start = performance.now();
    const ann = await vectors.search(probe, Math.min(10, count), [type]);
    annTimes.push(performance.now() - start);
    const deep = (await vectors.search(probe, 100, [type])).slice(0, 10);
    // Tie-aware: many entities share a vector (look-alike pools, people with the same role), so a
    // hit is any returned entity whose exact score reaches the exact 10th best.
    const kth = scores[exact.at(-1)!]! - 1e-6;
    const good = (hits: { row: number }[]) => hits.filter((h) => scores[h.row]! >= kth).length;
    const found = good(ann);
    typeHits += found;
    typeTotal += exact.length;
    hitsK10 += found;
    hitsDeep += good(deep);
    total += exact.length;
  }
  const index50 = percentile(annTimes, 50);
  recallRows.push([
    `  ${type} (${count.toLocaleString("en")})`,
    `recall@10 ${(typeHits / typeTotal).toFixed(4)}; p50 index ${ms(index50)}, usearch f32 brute force ${ms(percentile(engineTimes, 50))} (x${(percentile(engineTimes, 50) / index50).toFixed(1)}), JS brute force ${ms(percentile(bruteTimes, 50))} (x${(percentile(bruteTimes, 50) / index50).toFixed(1)})`,
  ]);
}
// A question of every type at the depth /api/search asks, against usearch's brute force of each type in turn.
const allIndex: number[] = [];
const allEngine: number[] = [];
for (const probe of probes.slice(0, probeCount)) {
  let start = performance.now();
  await vectors.search(probe, 100, ENTITY_TYPES);
  allIndex.push(performance.now() - start);
  start = performance.now();
  for (const type of ENTITY_TYPES) {
    const count = manifest.search.counts[type]!;
    if (count > 0) exactSearch(readFloatsCached(type), probe, dims, Math.min(100, count), MetricKind.Cos, 1);
  }
  allEngine.push(performance.now() - start);
}
printTable(`Index vs exact brute force over the same vectors (${Math.min(probes.length, probeCount)} query vectors per type)`, [
  ["recall@10 (search k=10)", (hitsK10 / total).toFixed(4)],
  ["recall@10 (search k=100, as /api/search does)", (hitsDeep / total).toFixed(4)],
  ...recallRows,
  [
    "every type, k=100: index p50 / p99",
    `${ms(percentile(allIndex, 50))} / ${ms(percentile(allIndex, 99))} vs usearch f32 brute force ${ms(percentile(allEngine, 50))} / ${ms(percentile(allEngine, 99))} (x${(percentile(allEngine, 50) / percentile(allIndex, 50)).toFixed(1)})`,
  ],
]);
vectors.close();
exactDeps.vectors.close();

function topK(scores: Float32Array, k: number): number[] {
  const best: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    if (best.length < k) {
      best.push(i);
      best.sort((a, b) => scores[b]! - scores[a]!);
    } else if (scores[i]! > scores[best[k - 1]!]!) {
      best[k - 1] = i;
      best.sort((a, b) => scores[b]! - scores[a]!);
    }
  }
  return best;
}
duck.closeSync();
process.exit(0);
