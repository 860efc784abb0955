/**
 * Serving memory (a served snapshot's memory, at rest and under load). Run by hand, under the bench
 * lock:
 *   flock /tmp/ckg-bench.lock bun scripts/bench/serving-memory.ts [--data-dir /tmp/ckg-full-world]
 *     [--clients 32] [--heavy 4] [--seconds 30] [--no-parts] [--with-scans] [-- extra `ckg serve` flags]
 *
 * 1. What each part of a served snapshot holds, in this process, loaded one after another as
 *    supervisor/prepare-snapshot.ts loads them (RSS after a full collection, before and after each).
 * 2. A `ckg serve` on a working copy of the data directory (the snapshot hard-linked): RSS of every
 *    process and what it is made of (/proc smaps: the WebAssembly heap of a graph process, other
 *    anonymous memory, mapped files) at rest; then `clients` closed loops of SPARQL point queries
 *    (an entity and its neighbours) alone for `seconds` (the baseline), then the same beside `heavy`
 *    loops of analytic aggregates over every quad (the heaviest SPARQL load): point-query p50/p99
 *    in both phases and their ratio, and the peak RSS of all processes together against its
 *    budget (2.7 GiB); then at rest again. The first signal scan a fresh data directory
 *    starts is turned off (--with-scans keeps it: a `ckg scan` child of its own).
 */
import { heapStats } from "bun:jsc";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SETTINGS } from "../../src/config/settings.ts";
import { NameIndex } from "../../src/entities/name-index.ts";
import { FactIndex } from "../../src/graph/fact-index.ts";
import { createLogger } from "../../src/log.ts";
import { selfCommand } from "../../src/runtime.ts";
import { SearchEngine, searchLookups } from "../../src/search/engine.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openDuck, withConnection } from "../../src/store/duckdb.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { EntitySeries } from "../../src/timeseries/figures.ts";
import { TimeseriesStore } from "../../src/timeseries/store.ts";
import { testConfig } from "../../test/support/fixture.ts";
import { startServer } from "../../test/support/server.ts";
import { memoryParts, processTree } from "./processes.ts";
import { percentile, printTable } from "./stats.ts";
import { workingCopy } from "./working-copy.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-full-world" },
    clients: { type: "string", default: "32" },
    heavy: { type: "string", default: "4" },
    seconds: { type: "string", default: "30" },
    "no-parts": { type: "boolean", default: false },
    "with-scans": { type: "boolean", default: false },
  },
});
const BUDGET_MB = (2.7 * 2 ** 30) / 2 ** 20;
const source = dataDir(values["data-dir"]!);
const id = currentSnapshotId(source);
if (!id) throw new Error(`no snapshot in ${source.root}`);
const dir = snapshotPath(source, id);
const manifest = readManifest(dir);
const ns = manifest.namespaces;
const mb = (bytes: number) => bytes / 2 ** 20;
const fmt = (value: number) => value.toFixed(0).padStart(6);

// 1. The parts, in this process.
if (!values["no-parts"]) {
  const rows: [string, string][] = [["part", "  RSS +MB   JS heap +MB   RSS after MB"]];
  /** RSS and the JavaScript heap (its objects and the strings and buffers they own) after a full collection. */
  const settle = async () => {
    Bun.gc(true);
    await Bun.sleep(500);
    const heap = heapStats();
    return { rss: mb(process.memoryUsage.rss()), heap: mb(heap.heapSize) };
  };
  let last = await settle();
  rows.push(["(this process, modules loaded)", `${fmt(0)}   ${fmt(0)}        ${fmt(last.rss)}`]);
  const part = async <T>(name: string, load: () => Promise<T>): Promise<T> => {
    const value = await load();
    const now = await settle();
    rows.push([name, `${fmt(now.rss - last.rss)}   ${fmt(now.heap - last.heap)}        ${fmt(now.rss)}`]);
    last = now;
    return value;
  };
  const duck = await part("DuckDB instance (reads the snapshot's Parquet)", () => openDuck());
  const names = await part("name index", () => NameIndex.fromParquet(duck, join(dir, manifest.files.entities), ns));
  const facts = await part("fact index (explore)", () =>
    FactIndex.fromParquet(duck, { facts: join(dir, manifest.files.facts), entities: join(dir, manifest.files.entities) }, names, ns),
  );
  const lookups = await part("search lookups (scopes, descriptions)", () => searchLookups(duck, dir, manifest, names));
  const search = await part("search engine (vectors, scan workers)", () => SearchEngine.open(dir, manifest, lookups, testConfig({ data_dir: source.root }), createLogger("warn", 2)));
  const series = await part("latest figures (EntitySeries)", () => EntitySeries.read(dir, manifest));
  const timeseries = await part("SQL store (DuckDB on ts/timeseries.duckdb)", () => TimeseriesStore.open(dir, manifest, { memoryLimit: SETTINGS.sql_memory_limit.default }));
  const duckdbHeld = await withConnection(duck, async (c) => Number((await c.runAndReadAll("SELECT sum(memory_usage_bytes)::BIGINT FROM duckdb_memory()")).getRowsJS()[0]![0]));
  rows.push(["  of which the shared DuckDB instance reports (duckdb_memory)", `${fmt(mb(duckdbHeld))}`]);
  await part("shared DuckDB instance closed", async () => duck.closeSync());
  rows.push(["fact index's own count of its arrays (MB)", fmt(mb(facts.bytes))]);
  printTable(`what each part holds in one process (${manifest.counts.quads.toLocaleString("en")} quads)`, rows);
  search.close();
  timeseries.close();
  void series;
}

// 2. The server.
const { root: work, dir: copy } = workingCopy(source, "ckg-memory-bench-");
// A working copy was never scanned: its first scan (a `ckg scan` child, DuckDB with 4 GB) would run
// through the load and be counted with it, unless asked for.
const scans: Record<string, string> = values["with-scans"] ? {} : { CKG_FIRST_SCAN: "false", CKG_SCAN_CRON: "off" };
const server = await startServer(selfCommand("serve", "--data-dir", copy.root, "--port", "0", "--rate-limit-per-minute", "0", ...positionals), scans);
await server.waitReady(300_000);
await Bun.sleep(3000);

function snapshotProcesses(title: string): number {
  const tree = processTree(server.process.pid);
  const rows: [string, string][] = [["process", "   RSS MB   big anon (wasm)   other anon   files (largest)"]];
  let total = 0;
  for (const p of tree) {
    let parts;
    try {
      parts = memoryParts(p.pid);
    } catch {
      continue; // ended meanwhile
    }
    total += p.rssMb;
    const files = [...parts.files].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([f, m]) => `${f} ${m.toFixed(0)}`).join(", ");
    rows.push([`${p.name} (${p.pid})`, `${fmt(p.rssMb)}   ${fmt(parts.bigAnon)}            ${fmt(parts.anon)}      ${files}`]);
  }
  rows.push(["all processes", `${fmt(total)} MB = ${(total / 1024).toFixed(2)} GiB (budget 2.70)`]);
  printTable(title, rows);
  return total;
}
snapshotProcesses("at rest, ready");

const entities = ((await sparql(`SELECT ?e WHERE { ?e a ckg:Token } LIMIT 2000`)) as { e: string }[]).map((r) => r.e);
const pointQuery = (uri: string) =>
  `SELECT ?direction ?p ?n ?name WHERE { { <${uri}> ?p ?n BIND("out" AS ?direction) } UNION { ?n ?p <${uri}> BIND("in" AS ?direction) } OPTIONAL { ?n schema:name ?name } }`;
const AGGREGATE = `SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p ORDER BY DESC(?n)`;

/** One phase: point-query clients (and heavy ones) for `seconds`; the peak RSS of all processes meanwhile. */
async function phase(heavy: number): Promise<{ latencies: number[]; errors: number; aggregates: number; aggregateErrors: number; peakMb: number; peaks: Map<string, number> }> {
  const until = performance.now() + Number(values.seconds) * 1000;
  const latencies: number[] = [];
  let errors = 0;
  let aggregates = 0;
  let aggregateErrors = 0;
  let peakMb = 0;
  const peaks = new Map<string, number>();
  const sampler = setInterval(() => {
    const tree = processTree(server.process.pid);
    peakMb = Math.max(peakMb, tree.reduce((sum, p) => sum + p.rssMb, 0));
    for (const p of tree) peaks.set(`${p.name} (${p.pid})`, Math.max(peaks.get(`${p.name} (${p.pid})`) ?? 0, p.rssMb));
  }, 250);
  let next = 0;
  const point = async () => {
    while (performance.now() < until) {
      const t = performance.now();
      try {
        await sparql(pointQuery(entities[next++ % entities.length]!));
        latencies.push(performance.now() - t);
      } catch {
        errors++;
      }
    }
  };
  const aggregate = async () => {
    while (performance.now() < until) {
      try {
        await sparql(AGGREGATE);
        aggregates++;
      } catch {
        aggregateErrors++;
      }
    }
  };
  await Promise.all([...Array.from({ length: Number(values.clients) }, point), ...Array.from({ length: heavy }, aggregate)]);
  clearInterval(sampler);
  return { latencies, errors, aggregates, aggregateErrors, peakMb, peaks };
}

const rows: [string, string][] = [];
const baseline = await phase(0);
const heaviest = await phase(Number(values.heavy));
const p = (samples: number[], q: number) => percentile(samples, q).toFixed(1);
rows.push([`point queries alone, ${values.clients} clients: p50 / p99 ms (errors)`, `${p(baseline.latencies, 50)} / ${p(baseline.latencies, 99)} (${baseline.errors})`]);
rows.push([`  beside ${values.heavy} aggregate loops: p50 / p99 ms (errors)`, `${p(heaviest.latencies, 50)} / ${p(heaviest.latencies, 99)} (${heaviest.errors})`]);
rows.push(["  ratio p50 / p99", `${(percentile(heaviest.latencies, 50) / percentile(baseline.latencies, 50)).toFixed(2)} / ${(percentile(heaviest.latencies, 99) / percentile(baseline.latencies, 99)).toFixed(2)}`]);
rows.push(["aggregates answered (failed)", `${heaviest.aggregates} (${heaviest.aggregateErrors})`]);
rows.push(["peak RSS all processes, point queries alone (MB)", fmt(baseline.peakMb)]);
rows.push(["peak RSS all processes, heaviest load (MB / GiB / budget 2.70)", `${fmt(heaviest.peakMb)} / ${(heaviest.peakMb / 1024).toFixed(2)} / ${(heaviest.peakMb / BUDGET_MB).toFixed(2)}`]);
for (const [name, peak] of heaviest.peaks) rows.push([`  peak of ${name}`, fmt(peak)]);
printTable("under SPARQL load", rows);
snapshotProcesses("at rest after the load");

await server.stop();
rmSync(work, { recursive: true, force: true });

async function sparql(query: string): Promise<unknown[]> {
  const response = await fetch(`${server.url}/api/sparql`, { method: "POST", body: JSON.stringify({ query }) });
  if (response.status !== 200) throw new Error(`sparql ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: unknown[] }).data;
}
