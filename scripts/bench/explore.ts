/**
 * Explore benchmark (distinct entities under load, so no cache helps). Run by hand:
 *   bun scripts/bench/explore.ts [--data-dir /tmp/ckg-full] [--clients 32] [--uniform 10000] [--per-type 300] [--hubs 300] [--engine 2000]
 *
 * Explore on distinct entities: every request asks for an entity no request asked before, so the
 * per-snapshot answer cache never helps. Entities are drawn from the snapshot's entities.parquet,
 * excluding none: the hubs (the entities with the most incoming links: chains, exchanges, the big
 * tokens), then a sample of every type, then a uniform sample of all entities (mostly tokens and
 * pools, as the data is). A `ckg serve` on a working copy of the data directory (the snapshot
 * hard-linked, never written) answers POST /api/explore from `clients` closed loops over real HTTP.
 *
 * Prints per phase: req/s, p50/p99 (client side and the server's own request log), errors, answer
 * size; the hubs again with a focus that leaves out market and financial_metrics (no figures from
 * the time-series); start to ready; RSS of every process of the server idle and at its peak; and in
 * the same run a baseline over the same HTTP: one SPARQL point query per entity (the entity and its
 * neighbours with their names; the graph process). With --engine N (default 2000; 0 skips it), after
 * the server stops: the in-process cost per entity of the old way (the 2 + P SPARQL queries of the
 * graph process's neighbourhood on a raw Oxigraph store) beside the fact index, whether the two give
 * the same neighbourhood, and the other parts of an explore (figures, assembly, JSON); see
 * explore-engine.ts. No assertion on time: a benchmark prints figures.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { FOCUS_CATEGORIES } from "../../src/entities/vocabulary.ts";
import { selfCommand } from "../../src/runtime.ts";
import { openDuck, sqlString } from "../../src/store/duckdb.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { startServer } from "../../test/support/server.ts";
import { processTree } from "./processes.ts";
import { workingCopy } from "./working-copy.ts";
import { percentile, printTable } from "./stats.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-full" },
    clients: { type: "string", default: "32" },
    uniform: { type: "string", default: "10000" },
    "per-type": { type: "string", default: "300" },
    hubs: { type: "string", default: "300" },
    warmup: { type: "string", default: "1000" },
    engine: { type: "string", default: "2000" },
  },
});
const clients = Number(values.clients);
const source = dataDir(values["data-dir"]!);
const id = currentSnapshotId(source);
if (!id) throw new Error(`no snapshot in ${source.root}`);
const manifest = readManifest(snapshotPath(source, id));
const ns = manifest.namespaces;
const load = () => Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
const loadAtStart = load();

// 1. A working copy: the server writes its state database and runtime folder, never the snapshot.
const { root: work, dir: copy } = workingCopy(source, "ckg-explore-bench-");
const snapshotDir = snapshotPath(copy, id);

// 2. Entities: hubs, every type, then uniform; each set excludes the ones before it.
const duck = await openDuck();
const connection = await duck.connect();
const entitiesFile = `read_parquet(${sqlString(join(snapshotDir, manifest.files.entities))})`;
const factsFile = `read_parquet(${sqlString(join(snapshotDir, manifest.files.facts))})`;
const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS() as { id: string; type: string; n?: bigint }[];
await connection.run(`CREATE TEMP TABLE hubs AS SELECT f.object AS id, e.type, count(*) AS n FROM ${factsFile} f JOIN ${entitiesFile} e ON e.id = f.object
  WHERE f.object_kind = 'entity' GROUP BY ALL ORDER BY n DESC, id LIMIT ${Number(values.hubs)}`);
await connection.run(`CREATE TEMP TABLE typed AS SELECT id, type FROM (SELECT id, type, row_number() OVER (PARTITION BY type ORDER BY hash(id || 'typed'), id) AS r
  FROM ${entitiesFile} WHERE id NOT IN (SELECT id FROM hubs)) WHERE r <= ${Number(values["per-type"])}`);
await connection.run(`CREATE TEMP TABLE uniform AS SELECT id, type, row_number() OVER (ORDER BY hash(id || 'uniform'), id) AS r FROM ${entitiesFile}
  WHERE id NOT IN (SELECT id FROM hubs UNION ALL SELECT id FROM typed) ORDER BY r LIMIT ${Number(values.uniform) + Number(values.warmup)}`);
const hubs = await rows(`SELECT * FROM hubs ORDER BY n DESC, id`);
const typed = await rows(`SELECT * FROM typed ORDER BY type, id`);
const uniformAll = await rows(`SELECT id, type FROM uniform ORDER BY r`);
connection.closeSync();
duck.closeSync();
const warm = uniformAll.slice(0, Number(values.warmup));
const uniform = uniformAll.slice(Number(values.warmup));

// 3. The server.
const started = performance.now();
const startedAt = Date.now();
const server = await startServer(selfCommand("serve", "--data-dir", copy.root, "--port", "0", "--rate-limit-per-minute", "0"), {
  CKG_LOG_LEVEL: "info",
  CKG_SCAN_CRON: "off",
  CKG_FIRST_SCAN: "false",
});
await server.waitReady(900_000);
const readyMs = performance.now() - started;
await Bun.sleep(3000);
const startLog = server.lines().filter((l) => ["fact index built", "latest figures read", "graph loaded", "snapshot active; graph loading", "ready"].includes(l.msg as string));
const idle = processTree(server.process.pid);

const uri = (entity: { id: string }) => `${ns.entity}${entity.id}`;
const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const NO_FIGURES = FOCUS_CATEGORIES.filter((c) => c !== "market" && c !== "financial_metrics");
const explore = async (entity: { id: string }, focus?: string[]) => {
  const response = await post("/api/explore", { entity_name: uri(entity), focus });
  const body = await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`explore ${entity.id}: ${response.status} ${new TextDecoder().decode(body).slice(0, 200)}`);
  return body.byteLength;
};
const pointQuery = async (entity: { id: string }) => {
  const query = `SELECT ?direction ?p ?n ?name WHERE { { <${uri(entity)}> ?p ?n BIND("out" AS ?direction) } UNION { ?n ?p <${uri(entity)}> BIND("in" AS ?direction) } OPTIONAL { ?n schema:name ?name } } LIMIT 1000`;
  const response = await post("/api/sparql", { query });
  const body = await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`sparql ${entity.id}: ${response.status}`);
  return body.byteLength;
};

interface Phase {
  label: string;
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  serverP50: number;
  bytes: number;
  load: number;
}
const phases: Phase[] = [];
let peak = idle;
const sampler = setInterval(() => {
  const tree = processTree(server.process.pid);
  if (total(tree) > total(peak)) peak = tree;
}, 500);

/** Every entity once, from `clients` closed loops. */
async function drive(label: string, list: { id: string }[], send: (entity: { id: string }) => Promise<number>, route = "/api/explore"): Promise<void> {
  const latencies: number[] = [];
  let errors = 0;
  let bytes = 0;
  let next = 0;
  const logged = server.lines().length;
  const loadBefore = load();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(clients, list.length) }, async () => {
      for (let i = next++; i < list.length; i = next++) {
        const t = performance.now();
        try {
          const size = await send(list[i]!);
          bytes += size;
          latencies.push(performance.now() - t);
        } catch (error) {
          if (errors++ < 3) console.error((error as Error).message);
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const serverSide = server
    .lines()
    .slice(logged)
    .filter((l) => l.route === route && l.status === 200)
    .map((l) => l.ms as number);
  phases.push({
    label,
    requests: latencies.length,
    errors,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    serverP50: percentile(serverSide, 50),
    bytes: bytes / Math.max(1, latencies.length),
    load: (loadBefore + load()) / 2,
  });
  console.error(`${label}: ${(latencies.length / seconds).toFixed(0)} req/s`);
}

// 4. Warm-up (distinct entities too), then the phases.
await drive("warm-up (not counted)", warm, explore);
phases.pop();
await drive(`explore, uniform over all entities (${uniform.length})`, uniform, explore);
for (const [type, list] of Map.groupBy(typed, (e) => e.type)) await drive(`explore, ${type} (${list.length})`, list, explore);
await drive(`explore, hubs: most incoming links (${hubs.length}; top: ${hubs.slice(0, 3).map((h) => `${h.id} ${h.n}`).join(", ")})`, hubs, explore);
// The same hubs without market and financial_metrics: no figures asked (a different answer, so no cache).
await drive(`explore, hubs, focus on the eight categories without figures (${hubs.length})`, hubs, (e) => explore(e, NO_FIGURES));
const explorePeak = peak;
const chains = typed.filter((e) => e.type === "Chain");
await drive(`baseline: SPARQL point query over HTTP, uniform (${uniform.length})`, uniform, pointQuery, "/api/sparql");
await drive(`baseline: SPARQL point query over HTTP, hubs (${hubs.length}, LIMIT 1000)`, hubs, pointQuery, "/api/sparql");
clearInterval(sampler);
const after = processTree(server.process.pid);
await server.stop();

printTable(`explore on distinct entities: ${clients} clients over HTTP, ${manifest.counts.quads.toLocaleString("en")} quads, snapshot ${id}`, [
  ["start to ready (s)", (readyMs / 1000).toFixed(1)],
  ...startLog.map((l): [string, string] => [
    `  ${l.msg} (server log)`,
    `at ${((Date.parse(l.time as string) - startedAt) / 1000).toFixed(1)} s ${JSON.stringify(Object.fromEntries(Object.entries(l).filter(([k]) => ["ms", "mb", "facts", "quads"].includes(k))))}`,
  ]),
  ["load average at start (2 cores)", loadAtStart.toFixed(1)],
  ...phases.map((p): [string, string] => [
    p.label,
    `${p.rps.toFixed(0)} req/s, p50 ${p.p50.toFixed(1)} ms, p99 ${p.p99.toFixed(1)} ms, server p50 ${p.serverP50.toFixed(2)} ms, ${p.errors} errors, ${(p.bytes / 1000).toFixed(1)} kB/answer, load ${p.load.toFixed(1)}`,
  ]),
  ["RSS idle after ready (MB)", describe(idle)],
  ["RSS peak under explore load (MB)", describe(explorePeak)],
  ["RSS peak with the SPARQL baseline too (MB)", describe(peak)],
  ["RSS after the runs (MB)", describe(after)],
]);
console.log(`\n(chains in the Chain phase: ${chains.length}; hubs are excluded from the type and uniform samples)`);
rmSync(work, { recursive: true, force: true });

if (Number(values.engine) > 0) {
  const { engineReport } = await import("./explore-engine.ts");
  // Only reads: the snapshot as it is.
  await engineReport({ snapshotDir: snapshotPath(source, id), manifest, samples: { uniform: uniform.slice(0, Number(values.engine)), hubs, typed } });
}

function total(tree: { rssMb: number }[]): number {
  return tree.reduce((sum, p) => sum + p.rssMb, 0);
}

function describe(tree: { name: string; rssMb: number }[]): string {
  return `${total(tree).toFixed(0)} total: ${tree.map((p) => `${p.name} ${p.rssMb.toFixed(0)}`).join(", ")}`;
}
