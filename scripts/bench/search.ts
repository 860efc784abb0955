/**
 * Search benchmark (recall and latency by name and by meaning, beside PostgreSQL). Run by hand:
 *   bun scripts/bench/search.ts [--data-dir DIR] [--scale full] [--probes 400] [--seconds 10] [--no-postgres] [--no-reindex]
 *
 * The server serves a working copy of the data directory (the snapshot hard-linked, never written).
 * Unless --no-reindex, the working copy's vector index is first rebuilt from its saved vectors with
 * this checkout's code (timed: the index's own build time), so that a snapshot built by another
 * version is measured with this version's index.
 *
 * Prints: the index's build time and size, its load time and memory; search
 * latency in-process by tier (name matches answer without a vector scan; meaning questions scan
 * the inverted lists); recall@10 of the index against exact brute force over the same vectors,
 * beside usearch's float brute force (the raw engine); throughput and latency at 1, 8 and 32
 * concurrent clients over HTTP beside PostgreSQL 15 with pg_trgm and pgvector holding the same
 * names and vectors (started by the script; pgvector is built from source where Debian has no
 * package, see scripts/bench/postgres-search.ts); and the real-name set's recall@3 and MRR for both,
 * with the synthetic labelled set apart. The targets' figures in one table: meaning questions' req/s
 * at 32 clients over HTTP (answer cache off) beside SPARQL point queries' req/s on the same server
 * in the same run and their ratio, the index alone in-process, recall@10 against exact search, and
 * pgvector's HNSW on the same vectors (req/s and recall@10); the RSS of every server process.
 */
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Rng } from "../../src/rng.ts";
import { ENTITY_TYPES, type EntityType } from "../../src/entities/vocabulary.ts";
import { createLogger } from "../../src/log.ts";
import { searchLookups } from "../../src/search/engine.ts";
import { LsaEmbedder } from "../../src/search/embedder.ts";
import usearch from "usearch";
import { loadLsa, readFloats } from "../../src/search/lsa.ts";
import { NameIndex } from "../../src/entities/name-index.ts";
import { SEARCH_DEPTH, type SearchAnswer, search, searchInputSchema } from "../../src/search/search.ts";
import { VectorRows } from "../../src/search/vector-rows.ts";
import { idsFile, vectorsFile } from "../../src/search/vector-files.ts";
import { VectorIndexes } from "../../src/search/vector-index.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openDuck } from "../../src/store/duckdb.ts";
import { SQL } from "bun";
import { judge, labelledQueries, scoreQuery, summarize } from "../../test/search/labelled-set.ts";
import { type RealNameScore, realNameQueries, resolveExpected, scoreRealName, summarizeReal } from "../../test/search/real-names.ts";
import { serve } from "./ckg-stores.ts";
import { runLoad } from "./closed-loop.ts";
import { startPostgres } from "../../test/support/postgres.ts";
import { HNSW, loadSearchTables, pgSearch } from "./postgres-search.ts";
import { percentile, printTable } from "./stats.ts";
import { processTree } from "./processes.ts";
import { meaningQuestions, pgvectorRows, recallByType, reindex } from "./search-index.ts";
import { workingCopy } from "./working-copy.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-bench-search" },
    scale: { type: "string", default: "full" },
    runs: { type: "string", default: "2" },
    probes: { type: "string", default: "400" },
    seconds: { type: "string", default: "10" },
    "no-postgres": { type: "boolean", default: false },
    "no-reindex": { type: "boolean", default: false },
  },
});
const source = dataDir(values["data-dir"]!);
if (!currentSnapshotId(source)) {
  const scale = /^\d+$/.test(values.scale!) ? Number(values.scale) : (values.scale as "full" | "default");
  await buildSnapshot({ dir: source, scale, seed: 42, ontologyNs: "https://ckg.example/ontology#", log: createLogger("warn", 2) });
}
const { root: workRoot, dir } = workingCopy(source, "ckg-search-bench-");
process.on("exit", () => rmSync(workRoot, { recursive: true, force: true }));
const snapshotDir = snapshotPath(dir, currentSnapshotId(dir)!);
const manifest = readManifest(snapshotDir);
const searchDir = join(snapshotDir, manifest.search.dir);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(2)} ms`;
const rssOf = (pid: number | "self") => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
const reindexMs = values["no-reindex"] ? undefined : await reindex(searchDir, manifest.search.dims);

// --- The index as built ------------------------------------------------------------------------
const files = readdirSync(searchDir).map((name) => ({ name, bytes: statSync(join(searchDir, name)).size }));
const sum = (filter: (name: string) => boolean) => files.filter((f) => filter(f.name)).reduce((s, f) => s + f.bytes, 0);
const entities = Object.values(manifest.search.counts).reduce((a, b) => a + b, 0);
printTable(`Search index of snapshot ${manifest.id} (${entities.toLocaleString("en")} entities, embedder ${manifest.search.embedder}, ${manifest.search.dims} dims)`, [
  ["search index build at snapshot build (model + vectors + index)", `${(manifest.search.build_ms / 1000).toFixed(1)} s`],
  ...(reindexMs
    ? [
        ["vector index alone, rebuilt from the saved vectors (codes + lists), one thread", `${([...reindexMs.values()].reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s`] as [string, string],
        ["  by type", [...reindexMs].map(([type, t]) => `${type} ${(t / 1000).toFixed(1)} s`).join(", ")] as [string, string],
      ]
    : []),
  ["int8 codes (*.sq8, scanned)", mb(sum((n) => n.endsWith(".sq8")))],
  ["inverted lists (*.ivf: centroids and each row's list)", mb(sum((n) => n.endsWith(".ivf")))],
  ["saved vectors (*.vectors.f32, memory-mapped for the exact scores)", mb(sum((n) => n.endsWith(".vectors.f32")))],
  ["LSA model", mb(sum((n) => n.startsWith("lsa-")))],
  ["ids", mb(sum((n) => n.endsWith(".ids.json")))],
  ["total", mb(sum(() => true))],
  ...ENTITY_TYPES.map((t): [string, string] => [`  ${t}`, manifest.search.counts[t]!.toLocaleString("en")]),
]);

// --- Load time and memory, in this process ------------------------------------------------------
const duck = await openDuck();
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
const { scopes, descriptions, demo } = await searchLookups(duck, snapshotDir, manifest, names);
const lookupsMs = performance.now() - t;
t = performance.now();
const rows = VectorRows.open(searchDir, manifest.search.dims, names);
const rowsMs = performance.now() - t;
Bun.gc(true);
const deps = { names, vectors, rows, embedder, scopes, descriptions, demo };
const rssLoaded = rssOf("self");
printTable("Load (in-process, what a server does at activation)", [
  ["vector index (scan workers load their slices)", ms(vectorsMs)],
  ["LSA model", ms(modelMs)],
  [`name index (entities.parquet; ${names.words.vocabularySize.toLocaleString("en")} words of names and aliases)`, ms(namesMs)],
  [`scope facts, descriptions' words (${descriptions.size.toLocaleString("en")} described entities), demo entities`, ms(lookupsMs)],
  ["vector rows to name positions and back", ms(rowsMs)],
  ["total", ms(vectorsMs + modelMs + namesMs + lookupsMs + rowsMs)],
  ["RSS added by loading", mb(rssLoaded - rssBefore)],
]);

// --- Queries: the real-name set, the synthetic labelled set, entity names and misspellings -------
const rng = new Rng(11);
const idsByType = new Map(ENTITY_TYPES.map((type) => [type, JSON.parse(readFileSync(join(searchDir, idsFile(type)), "utf8")) as string[]]));
const allIds = [...idsByType.values()].flat();
const sampleNames = Array.from({ length: 200 }, () => names.get(rng.pick(allIds))?.name).filter((n): n is string => !!n);
const misspell = (name: string) => {
  const at = 1 + Math.floor(rng.next() * Math.max(1, name.length - 2));
  return name.slice(0, at) + name.slice(at + 1);
};
const labelled = labelledQueries();
const real = realNameQueries();
type Body = { query: string; entity_types?: EntityType[]; limit?: number };
const bodyOf = (q: Body): Body => ({ query: q.query, entity_types: q.entity_types });
const realBodies = real.map(bodyOf);
const meaningBodies: Body[] = meaningQuestions();
const nameBodies: Body[] = [
  ...real.filter((q) => q.kind !== "question").map(bodyOf),
  ...sampleNames.map((query) => ({ query })),
  ...sampleNames.slice(0, 100).map((name) => ({ query: misspell(name) })),
];

// --- In-process latency by tier -----------------------------------------------------------------
// Counts the vector scans, to show which answers needed none.
let scans = 0;
const counting = { ...deps, vectors: { search: (...args: Parameters<typeof vectors.search>) => ((scans += 1), vectors.search(...args)) } as typeof vectors };
for (const body of [...nameBodies, ...meaningBodies].slice(0, 200)) await search(deps, searchInputSchema.parse(body)); // warm up
const tierTimes = async (bodies: Body[]) => {
  const times: number[] = [];
  scans = 0;
  for (let run = 0; run < Number(values.runs); run++) {
    for (const body of bodies) {
      const input = searchInputSchema.parse(body);
      const start = performance.now();
      await search(counting, input);
      times.push(performance.now() - start);
    }
  }
  return { times, scanShare: scans / times.length };
};
const nameTier = await tierTimes(nameBodies);
const meaningTier = await tierTimes(meaningBodies);
printTable("In-process search latency by tier", [
  [`names, tickers, former names, typos (${nameBodies.length}): p50 / p99`, `${ms(percentile(nameTier.times, 50))} / ${ms(percentile(nameTier.times, 99))}`],
  ["  share of those that scanned vectors", nameTier.scanShare.toFixed(3)],
  [`questions by meaning (${meaningBodies.length}): p50 / p99`, `${ms(percentile(meaningTier.times, 50))} / ${ms(percentile(meaningTier.times, 99))}`],
  ["  share of those that scanned vectors", meaningTier.scanShare.toFixed(3)],
]);

// The answers /api/search gives with the index against the answers it gives with every type
// searched exactly: what the approximation costs a user.
const exactDeps = { ...deps, vectors: await VectorIndexes.open(searchDir, ENTITY_TYPES, manifest.search.dims, { exact: true }) };
let answerHits = 0;
let answerTotal = 0;
for (const body of meaningBodies) {
  const input = searchInputSchema.parse(body);
  const approximate = await search(deps, input);
  const exact = await search(exactDeps, input);
  const tenth = exact.results.at(-1)?.similarity ?? 0;
  const exactUris = new Set(exact.results.map((r) => r.uri));
  // Tie-aware: a result as similar as the exact tenth counts.
  answerHits += approximate.results.filter((r) => exactUris.has(r.uri) || r.similarity >= tenth).length;
  answerTotal += exact.results.length;
}
printTable("Answers to the meaning questions: inverted lists vs every type scanned exactly", [["recall@10 of the answers", (answerHits / answerTotal).toFixed(4)]]);

// --- Throughput at 1, 8 and 32 clients: ckg over HTTP beside PostgreSQL -------------------------
// The answer cache is off here: these figures are the engine's. Repeated questions are measured apart below.
// No scans: a first scan of the working copy (never scanned) would share the 2 cores with the figures.
const server = await serve(dir, { CKG_SEARCH_CACHE_ENTRIES: "0" });
const post = async (body: Body) => {
  const response = await fetch(`${server.url}/api/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (response.status !== 200) throw new Error(`${response.status} for ${JSON.stringify(body)}`);
  return (await response.json()) as SearchAnswer;
};
const pg = values["no-postgres"] ? undefined : await startPostgres({ shared_buffers: "1GB", max_connections: "100" });
const pgLoad = pg ? await loadSearchTables(pg.url, duck, snapshotDir, searchDir, manifest.search.dims) : undefined;
const pgDb = pg ? new SQL({ url: pg.url, max: 40 }) : undefined;
if (pgDb) await pgDb.unsafe(`ALTER DATABASE postgres SET hnsw.ef_search = ${HNSW.efSearch}`);
// The query vectors pgvector is asked with: ckg's embedding of each question, computed once.
const vectorOf = new Map<string, Float32Array>();
for (const body of [...realBodies, ...meaningBodies]) vectorOf.set(body.query, await embedder.embedQuery(body.query));
const askPg = (body: Body) => pgSearch(pgDb!, { query: body.query, limit: body.limit ?? 10, entity_types: body.entity_types, vector: pgLoad?.vectors ? vectorOf.get(body.query) : undefined });
if (pgLoad) {
  printTable(`PostgreSQL 15 holding the same names and vectors`, [
    ["rows: names, symbols and aliases / vectors", `${pgLoad.rows.names.toLocaleString("en")} / ${pgLoad.rows.vectors.toLocaleString("en")}`],
    ["load (COPY)", ms(pgLoad.loadMs)],
    ["pg_trgm GIN index + exact index", ms(pgLoad.trigramIndexMs)],
    [`pgvector HNSW per type (m ${HNSW.m}, ef_construction ${HNSW.efConstruction}; ef_search ${HNSW.efSearch})`, pgLoad.vectors ? ms(pgLoad.vectorIndexMs) : "n/a: no pgvector on this server"],
  ]);
}
const seconds = Number(values.seconds);
const loadRows: [string, string][] = [];
for (const [label, bodies] of [
  [`real-name set (${realBodies.length} queries, names to questions)`, realBodies],
  [`questions by meaning (${meaningBodies.length})`, meaningBodies],
] as const) {
  for (const clients of [1, 8, 32]) {
    const ckg = await runLoad({ clients, seconds, warmupSeconds: 2, request: async (i) => void (await post(bodies[i % bodies.length]!)) });
    const line = (r: typeof ckg) => `${r.rps.toFixed(0)} req/s, p50 ${ms(r.p50)}, p99 ${ms(r.p99)}${r.errors ? `, ${r.errors} errors` : ""}`;
    let row = `ckg ${line(ckg)}`;
    if (pgDb) {
      const other = await runLoad({ clients, seconds, warmupSeconds: 2, request: async (i) => void (await askPg(bodies[i % bodies.length]!)) });
      row += `  |  PostgreSQL ${line(other)}  |  x${(ckg.rps / other.rps).toFixed(1)}`;
    }
    loadRows.push([`${label}, ${clients} client${clients > 1 ? "s" : ""}`, row]);
  }
}
printTable(`Throughput and latency, closed loop, ${seconds} s each (ckg over HTTP; PostgreSQL over its own connections)`, loadRows);

// The floors under the meaning questions' throughput: the bare server (a free route, no work) and
// the vector index alone (in-process, the questions' vectors precomputed, every type at
// SEARCH_DEPTH as /api/search asks); what HTTP, embedding and ranking add sits between them.
const meaningVectors = meaningBodies.map((b) => ({ vector: vectorOf.get(b.query)!, types: b.entity_types ?? ENTITY_TYPES }));
const floorRows: [string, string][] = [];
for (const clients of [1, 32]) {
  const bare = await runLoad({ clients, seconds, warmupSeconds: 1, request: async () => void (await (await fetch(`${server.url}/healthz`)).arrayBuffer()) });
  const engine = await runLoad({
    clients,
    seconds,
    warmupSeconds: 1,
    request: async (i) => {
      const q = meaningVectors[i % meaningVectors.length]!;
      await vectors.search(q.vector, SEARCH_DEPTH, q.types);
    },
  });
  const line = (r: typeof bare) => `${r.rps.toFixed(0)} req/s, p50 ${ms(r.p50)}, p99 ${ms(r.p99)}`;
  floorRows.push([`bare server GET /healthz, ${clients} client${clients > 1 ? "s" : ""}`, line(bare)]);
  floorRows.push([`vector index alone (in-process, questions' vectors), ${clients} in flight`, line(engine)]);
}
printTable("Floors under the questions' throughput", floorRows);

// --- Meaning questions beside SPARQL point queries, same server, same run ----------------------
// A SPARQL point query is one entity and its neighbours with their names (as explore.ts's
// baseline), on distinct entities drawn from every type.
const pointIds = rng.sample(allIds, Math.min(allIds.length, 100_000));
const entityNs = manifest.namespaces.entity;
const pointQuery = (id: string) =>
  `SELECT ?direction ?p ?n ?name WHERE { { <${entityNs}${id}> ?p ?n BIND("out" AS ?direction) } UNION { ?n ?p <${entityNs}${id}> BIND("in" AS ?direction) } OPTIONAL { ?n schema:name ?name } } LIMIT 1000`;
const CLIENTS = 32;
const sparqlPoint = await runLoad({
  clients: CLIENTS,
  seconds,
  warmupSeconds: 2,
  request: async (i) => {
    const response = await fetch(`${server.url}/api/sparql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: pointQuery(pointIds[i % pointIds.length]!) }) });
    if (response.status !== 200) throw new Error(`sparql ${response.status}`);
    await response.arrayBuffer();
  },
});
const meaningLoad = await runLoad({ clients: CLIENTS, seconds, warmupSeconds: 2, request: async (i) => void (await post(meaningBodies[i % meaningBodies.length]!)) });
const indexAlone = await runLoad({
  clients: CLIENTS,
  seconds,
  warmupSeconds: 1,
  request: async (i) => {
    const q = meaningVectors[i % meaningVectors.length]!;
    await vectors.search(q.vector, SEARCH_DEPTH, q.types);
  },
});
const pgMeaning = pgDb ? await runLoad({ clients: CLIENTS, seconds, warmupSeconds: 2, request: async (i) => void (await askPg(meaningBodies[i % meaningBodies.length]!)) }) : undefined;
const questionVectors = meaningVectors.map((q) => q.vector);
const ckgRecall = await recallByType(searchDir, manifest.search.dims, questionVectors, async (query, type) => (await vectors.search(query, 10, [type])).map((h) => h.row));
const pgRecall = pgLoad?.vectors ? await recallByType(searchDir, manifest.search.dims, questionVectors, pgvectorRows(pgDb!)) : undefined;
const overall = (by: Map<EntityType, number>) => [...by.values()].reduce((a, b) => a + b, 0) / by.size;
const serving = processTree(server.process.pid);
const rate = (r: { rps: number; p50: number; p99: number }) => `${r.rps.toFixed(0)} req/s, p50 ${ms(r.p50)}, p99 ${ms(r.p99)}`;
printTable(`Meaning questions beside SPARQL point queries (${CLIENTS} clients, ${seconds} s each, same server, answer cache off)`, [
  [`SPARQL point query over HTTP (POST /api/sparql, ${pointIds.length.toLocaleString("en")} distinct entities)`, rate(sparqlPoint)],
  [`meaning questions over HTTP (POST /api/search, the ${meaningBodies.length} questions in turn, each computed)`, rate(meaningLoad)],
  ["  ratio meaning / SPARQL point (target >= 0.25)", (meaningLoad.rps / sparqlPoint.rps).toFixed(3)],
  [`vector index alone, in-process, ${CLIENTS} in flight (every type at depth ${SEARCH_DEPTH})`, rate(indexAlone)],
  ...(pgMeaning ? [[`PostgreSQL (pg_trgm + pgvector HNSW, same vectors), same questions`, rate(pgMeaning)] as [string, string]] : []),
  [`recall@10 vs exact search, the ${questionVectors.length} questions' vectors by type: ckg`, `${overall(ckgRecall).toFixed(4)} (${[...ckgRecall].map(([t, r]) => `${t} ${r.toFixed(3)}`).join(", ")})`],
  ...(pgRecall ? [[`  pgvector HNSW (ef_search ${HNSW.efSearch})`, `${overall(pgRecall).toFixed(4)} (${[...pgRecall].map(([t, r]) => `${t} ${r.toFixed(3)}`).join(", ")})`] as [string, string]] : []),
  ["server RSS, every process (after the runs)", `${serving.reduce((sum, p) => sum + p.rssMb, 0).toFixed(0)} MB (${serving.map((p) => `${p.name} ${p.rssMb.toFixed(0)}`).join(", ")})`],
]);

// Agents ask the same thing again: with the answer cache on (the default), a repeated question is a lookup.
const cachedServer = await serve(dir);
const cacheRows: [string, string][] = [];
for (const clients of [1, 32]) {
  const cached = await runLoad({
    clients,
    seconds,
    warmupSeconds: 2,
    request: async (i) => {
      const response = await fetch(`${cachedServer.url}/api/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(meaningBodies[i % meaningBodies.length]) });
      if (response.status !== 200) throw new Error(`${response.status}`);
      await response.arrayBuffer();
    },
  });
  cacheRows.push([`questions by meaning (${meaningBodies.length}) asked again, ${clients} client${clients > 1 ? "s" : ""}`, `${cached.rps.toFixed(0)} req/s, p50 ${ms(cached.p50)}, p99 ${ms(cached.p99)}`]);
}
await cachedServer.stop();
printTable("Repeated questions, answer cache on (search_cache_entries 10000)", cacheRows);

// --- Quality: the real-name set for both, the synthetic labelled set apart -----------------------
const expected = await resolveExpected(duck, snapshotDir, real);
const ckgScores: RealNameScore[] = [];
const pgScores: RealNameScore[] = [];
for (const [i, q] of real.entries()) {
  ckgScores.push(scoreRealName(q, expected[i]!, await post(realBodies[i]!)));
  if (pgDb) pgScores.push(scoreRealName(q, expected[i]!, { results: (await askPg(realBodies[i]!)).map((r) => ({ ...r, name: "", labels: [] })) }));
}
const ckgReal = summarizeReal(ckgScores);
const pgReal = pgDb ? summarizeReal(pgScores) : undefined;
const pair = (a: { recallAt3: number; mrr: number } | undefined, b: { recallAt3: number; mrr: number } | undefined) =>
  `ckg recall@3 ${a!.recallAt3.toFixed(3)}, MRR ${a!.mrr.toFixed(3)}${b ? `  |  PostgreSQL recall@3 ${b.recallAt3.toFixed(3)}, MRR ${b.mrr.toFixed(3)}` : ""}`;
printTable(`Real-name set (${real.length} queries over real chains, tokens and exchanges; tuned on "tune", "heldout" untouched)`, [
  ["all", pair(ckgReal, pgReal)],
  ...(["tune", "heldout"] as const).map((split): [string, string] => [`  ${split} (${ckgReal.bySplit[split]!.queries})`, pair(ckgReal.bySplit[split], pgReal?.bySplit[split])]),
  ...Object.entries(ckgReal.byKind).map(([kind, q]): [string, string] => [`  ${kind} (${q!.queries})`, pair(q, pgReal?.byKind[kind as keyof typeof ckgReal.byKind])]),
]);
const relevant = await judge(duck, snapshotDir, labelled);
const scores = [];
for (const [i, q] of labelled.entries()) scores.push(scoreQuery(q, relevant[i]!, await post({ query: q.query, entity_types: q.entity_types })));
const serverRss = rssOf(server.process.pid);
await server.stop();
await pgDb?.close();
await pg?.stop();
const quality = summarize(scores);
printTable(`Synthetic labelled set (${labelled.length} queries, ckg)`, [
  ["recall@10", quality.recallAt10.toFixed(3)],
  ["MRR", quality.mrr.toFixed(3)],
  ...Object.entries(quality.byKind).map(([kind, q]): [string, string] => [`  ${kind} (${q.queries})`, `recall@10 ${q.recallAt10.toFixed(3)}, MRR ${q.mrr.toFixed(3)}`]),
  ["server RSS after the run (main process)", mb(serverRss)],
]);

// --- The index against exact brute force over the same vectors ----------------------------------
const probeCount = Number(values.probes);
const probeTexts = [...meaningBodies.map((q) => q.query), ...sampleNames, ...sampleNames.map(misspell)];
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
