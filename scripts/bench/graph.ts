/**
 * Graph benchmark (build, start and SPARQL point queries). Run by hand: `bun scripts/bench/graph.ts [--data-dir DIR] [--scale full] [--reuse]`.
 *
 * Prints: snapshot build time, quads, snapshot bytes; time from start to listening and to ready;
 * RSS of the server and its graph process after load; p50/p99 of a SPARQL point query (one entity
 * and its neighbours) over HTTP beside the same query on a raw in-process Oxigraph store (ratio);
 * beside the floor of any HTTP server in front of the engine (bare-sparql-server.ts: Bun.serve with the
 * store on its main thread, no isolation or framework); and the p99 of GET /api/schema while heavy
 * SPARQL aggregates run.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { OxigraphStore } from "../../src/graph/graph-process.ts";
import { prepareQuery } from "../../src/graph/sparql.ts";
import { createLogger } from "../../src/log.ts";
import { selfCommand } from "../../src/runtime.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { startServer } from "../../test/support/server.ts";
import { percentile, printTable } from "./stats.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-bench-full" },
    scale: { type: "string", default: "full" },
    reuse: { type: "boolean", default: false },
    queries: { type: "string", default: "2000" },
  },
});
const dir = dataDir(values["data-dir"]!);
const scale = /^\d+$/.test(values.scale!) ? Number(values.scale) : (values.scale as "full" | "default");
const rows: [string, string][] = [];

// 1. Build.
let buildSeconds = Number.NaN;
if (!values.reuse || !currentSnapshotId(dir)) {
  const started = performance.now();
  await buildSnapshot({ dir, scale, seed: 42, ontologyNs: "https://ckg.example/ontology#", log: createLogger("warn", 2) });
  buildSeconds = (performance.now() - started) / 1000;
}
const id = currentSnapshotId(dir)!;
const snapshotDir = snapshotPath(dir, id);
const manifest = readManifest(snapshotDir);
const bytes = readdirSync(snapshotDir).reduce((sum, f) => sum + statSync(join(snapshotDir, f)).size, 0);
rows.push(["build time (s)", Number.isNaN(buildSeconds) ? "(reused)" : buildSeconds.toFixed(1)]);
rows.push(["entities", manifest.counts.entities.toLocaleString("en")]);
rows.push(["protocols", (manifest.counts.nodes_by_type.Protocol ?? 0).toLocaleString("en")]);
rows.push(["quads (triples in named graphs)", manifest.counts.quads.toLocaleString("en")]);
rows.push(["snapshot bytes", `${(bytes / 1e6).toFixed(0)} MB`]);

// 2. Start the server: time to listening, to ready; RSS.
const started = performance.now();
const server = await startServer(
  selfCommand("serve", "--data-dir", dir.root, "--port", "0", "--rate-limit-per-minute", "0"),
  // No scans: a first scan would share the cores with the latencies and add to the RSS measured.
  { CKG_SCAN_CRON: "off", CKG_FIRST_SCAN: "false" },
);
const listeningMs = performance.now() - started;
await server.waitReady(120_000);
const readyMs = performance.now() - started;
const graphPids = (((await (await fetch(`${server.url}/readyz`)).json()) as any).graph.replicas as { pid: number }[]).map((r) => r.pid);
const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
const serverRss = rss(server.process.pid);
const graphRss = graphPids.reduce((sum, pid) => sum + rss(pid), 0);
rows.push(["start to listening (s)", (listeningMs / 1000).toFixed(2)]);
rows.push(["start to ready (s)", (readyMs / 1000).toFixed(1)]);
rows.push(["RSS server (MB)", (serverRss / 1e6).toFixed(0)]);
rows.push(["RSS graph process (MB)", (graphRss / 1e6).toFixed(0)]);
rows.push(["RSS total (MB)", ((serverRss + graphRss) / 1e6).toFixed(0)]);

// 3. Point query over HTTP and on a raw in-process store.
const entities = (await sparqlHttp(`SELECT ?e WHERE { ?e a ckg:Protocol } LIMIT 200`)).data.map((r: { e: string }) => r.e);
// One entity and its neighbours, both directions, with the neighbours' names.
const pointQuery = (uri: string) =>
  `SELECT ?direction ?p ?n ?name WHERE { { <${uri}> ?p ?n BIND("out" AS ?direction) } UNION { ?n ?p <${uri}> BIND("in" AS ?direction) } OPTIONAL { ?n schema:name ?name } }`;
const n = Number(values.queries);
/** Latencies of n point queries (after 100 to warm up), the entities taken in turn. */
async function timePointQueries(send: (query: string) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 100; i++) await send(pointQuery(entities[i % entities.length]));
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await send(pointQuery(entities[i % entities.length]));
    samples.push(performance.now() - t);
  }
  return samples;
}
const http = await timePointQueries(sparqlHttp);
const store = new OxigraphStore();
const loaded = store.load(join(snapshotDir, manifest.files.graph));
const raw: number[] = [];
const prepared = entities.map((e: string) => prepareQuery(pointQuery(e), manifest.namespaces).query);
for (let i = 0; i < 100; i++) store.select(prepared[i % prepared.length]);
for (let i = 0; i < n; i++) {
  const t = performance.now();
  store.select(prepared[i % prepared.length]);
  raw.push(performance.now() - t);
}
rows.push([`raw store load (s, in-process, ${loaded.quads.toLocaleString("en")} quads)`, (loaded.ms / 1000).toFixed(1)]);
rows.push(["point query over HTTP p50 / p99 (ms)", `${percentile(http, 50).toFixed(2)} / ${percentile(http, 99).toFixed(2)}`]);
rows.push(["point query raw Oxigraph p50 / p99 (ms)", `${percentile(raw, 50).toFixed(2)} / ${percentile(raw, 99).toFixed(2)}`]);
const serverSide = server
  .lines()
  .filter((l) => l.route === "/api/sparql" && l.status === 200)
  .slice(-n)
  .map((l) => l.ms as number);
rows.push(["  of which inside the server p50 / p99 (ms, request logs)", `${percentile(serverSide, 50).toFixed(2)} / ${percentile(serverSide, 99).toFixed(2)}`]);
rows.push([
  "HTTP / raw ratio p50 / p99",
  `${(percentile(http, 50) / percentile(raw, 50)).toFixed(2)} / ${(percentile(http, 99) / percentile(raw, 99)).toFixed(2)}`,
]);

// The floor: the same queries through a bare Bun.serve with the store on its main thread.
const bare = Bun.spawn([process.execPath, join(import.meta.dir, "bare-sparql-server.ts"), join(snapshotDir, manifest.files.graph), JSON.stringify(manifest.namespaces)], {
  stdout: "pipe",
  stderr: "inherit",
});
const barePort = Number(new TextDecoder().decode((await bare.stdout.getReader().read()).value).trim());
const bareQuery = async (query: string) => (await fetch(`http://127.0.0.1:${barePort}/`, { method: "POST", body: JSON.stringify({ query }) })).json();
const floor = await timePointQueries(bareQuery);
bare.kill();
rows.push([
  "floor: bare Bun.serve + Oxigraph on its main thread p50 / p99 (ms)",
  `${percentile(floor, 50).toFixed(2)} / ${percentile(floor, 99).toFixed(2)}`,
]);
rows.push(["  floor / raw ratio p50; ckg HTTP / floor p50", `${(percentile(floor, 50) / percentile(raw, 50)).toFixed(2)}; ${(percentile(http, 50) / percentile(floor, 50)).toFixed(2)}`]);

// 4. GET /api/schema while heavy aggregates run on the graph.
let heavyRuns = 0;
let loading = true;
const heavy = (async () => {
  while (loading) {
    await sparqlHttp(`SELECT ?c (COUNT(*) AS ?n) WHERE { ?t ckg:deployedOn ?c . ?t ?p ?o } GROUP BY ?c ORDER BY DESC(?n)`).catch(() => undefined);
    heavyRuns++;
  }
})();
await Bun.sleep(200);
const schema: number[] = [];
for (let i = 0; i < 500; i++) {
  const t = performance.now();
  const response = await fetch(`${server.url}/api/schema`);
  await response.arrayBuffer();
  schema.push(performance.now() - t);
}
loading = false;
await heavy;
rows.push([`GET /api/schema under load p50 / p99 (ms, ${heavyRuns} aggregates ran)`, `${percentile(schema, 50).toFixed(2)} / ${percentile(schema, 99).toFixed(2)}`]);

await server.stop();
printTable("graph benchmark", rows);

async function sparqlHttp(query: string) {
  const response = await fetch(`${server.url}/api/sparql`, { method: "POST", body: JSON.stringify({ query }) });
  if (response.status !== 200) throw new Error(`sparql ${response.status}: ${await response.text()}`);
  return (await response.json()) as any;
}

