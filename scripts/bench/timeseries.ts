/**
 * Time-series benchmark (ckg's SQL against PostgreSQL on the same rows). Run by hand:
 *   bun scripts/bench/timeseries.ts [--data-dir DIR] [--scale full] [--runs 30] [--block 1] [--baseline-data-dir DIR]
 *
 * For each query, prints p50/p99 over HTTP (POST /api/timeseries), in-process through the store
 * (guard, entity route and engine, no HTTP), on raw in-process DuckDB running the text as written
 * (the published table's plain scan), through a bare Bun.serve in front of that database (the floor
 * of any HTTP server on DuckDB), and on PostgreSQL 15 loaded with the same rows and indexed on
 * (entity_id, date) and (date), both raw and through the same kind of bare Bun.serve
 * (bare-sql-server.ts), so the two engines are compared HTTP against HTTP; all of them in turn,
 * query after query. `--baseline-data-dir` serves a second ckg, over a data directory whose query
 * database was built before (no entity-ordered copies), timed in the same turns: the figures before
 * the change, in the same run. Then the floors: the HTTP hop alone and each engine's `SELECT 1`,
 * and the summary the targets are set on: one entity's series over HTTP beside PostgreSQL's, and a day
 * across all entities beside its figure before. `--skip-postgres` leaves PostgreSQL out.
 * The data directories are served as they are (their state is written into them): give copies.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SETTINGS } from "../../src/config/settings.ts";
import { createLogger } from "../../src/log.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openDuck, sqlString, withConnection } from "../../src/store/duckdb.ts";
import { TimeseriesStore } from "../../src/timeseries/store.ts";
import { serve } from "./ckg-stores.ts";
import { startPostgres } from "../../test/support/postgres.ts";
import { percentile, printTable } from "./stats.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-bench-full" },
    scale: { type: "string", default: "full" },
    runs: { type: "string", default: "30" },
    block: { type: "string", default: "1" },
    "skip-postgres": { type: "boolean", default: false },
    "baseline-data-dir": { type: "string" },
  },
});
const dir = dataDir(values["data-dir"]!);
const runs = Number(values.runs);
const block = Math.max(1, Number(values.block));
if (!currentSnapshotId(dir)) {
  const scale = /^\d+$/.test(values.scale!) ? Number(values.scale) : (values.scale as "full");
  await buildSnapshot({ dir, scale, seed: 42, ontologyNs: "https://ckg.example/ontology#", log: createLogger("warn", 2) });
}
const snapshotDir = snapshotPath(dir, currentSnapshotId(dir)!);
const manifest = readManifest(snapshotDir);
const totalRows = manifest.timeseries.reduce((sum, t) => sum + t.rows, 0);

// The tables the queries read, and the last day of data.
const TABLES = ["ts_synthetic_token", "ts_synthetic_protocol", "ts_synthetic_pool"];
// The raw baseline: the same query database, in this process, with the server's engine settings.
const raw = await openDuck({ path: join(snapshotDir, manifest.timeseries_db), memoryLimit: SETTINGS.sql_memory_limit.default, settings: { access_mode: "READ_ONLY" } });
const rawConnection = await raw.connect();
const lastDay = ((await rawConnection.runAndReadAll("SELECT max(date)::VARCHAR FROM ts_synthetic_token")).getRowsJson()[0]![0] as string);
const tokens = (await rawConnection.runAndReadAll(`SELECT entity_id FROM ts_synthetic_token WHERE date = DATE '${lastDay}' ORDER BY "marketCap" DESC LIMIT 50`)).getRowsJson().map((r) => r[0] as string);

// Written once, valid in both DuckDB and PostgreSQL.
const ONE_ENTITY = "one token's year of prices";
const ONE_DAY = "one day across all tokens";
const QUERIES: { name: string; kind: "point" | "analytic"; sql: (i: number) => string }[] = [
  {
    name: ONE_ENTITY,
    kind: "point",
    sql: (i) => `SELECT date, "currentPrice", "marketCap" FROM ts_synthetic_token WHERE entity_id = '${tokens[i % tokens.length]}' AND date > DATE '${lastDay}' - INTERVAL '365 days' ORDER BY date`,
  },
  {
    // Every text new: the guard's verdict cache cannot help.
    name: "one token's prices, never the same text",
    kind: "point",
    sql: (i) => `SELECT date, "currentPrice", "marketCap" FROM ts_synthetic_token WHERE entity_id = '${tokens[i % tokens.length]}' AND date > DATE '${lastDay}' - INTERVAL '${300 + i} days' ORDER BY date`,
  },
  {
    name: "one token's whole series",
    kind: "point",
    sql: (i) => `SELECT date, "currentPrice", "marketCap" FROM ts_synthetic_token WHERE entity_id = '${tokens[i % tokens.length]}' ORDER BY date`,
  },
  {
    name: ONE_DAY,
    kind: "analytic",
    sql: (i) => `SELECT entity_id, "marketCap" FROM ts_synthetic_token WHERE date = DATE '${lastDay}' - ${i % 30} ORDER BY "marketCap" DESC LIMIT 100`,
  },
  {
    name: "30-day rolling average, all tokens",
    kind: "analytic",
    sql: () => `WITH w AS (SELECT entity_id, date, avg("currentPrice") OVER (PARTITION BY entity_id ORDER BY date ROWS BETWEEN 29 PRECEDING AND CURRENT ROW) AS ma30
      FROM ts_synthetic_token WHERE date > DATE '${lastDay}' - INTERVAL '60 days')
      SELECT entity_id, ma30 FROM w WHERE date = DATE '${lastDay}' ORDER BY ma30 DESC LIMIT 100`,
  },
  {
    name: "top 100 by TVL change over 90 days",
    kind: "analytic",
    sql: () => `SELECT a.entity_id, a."tvlUsd" / b."tvlUsd" - 1 AS change FROM ts_synthetic_protocol a
      JOIN ts_synthetic_protocol b ON b.entity_id = a.entity_id AND b.date = a.date - 90
      WHERE a.date = DATE '${lastDay}' AND b."tvlUsd" > 0 ORDER BY change DESC LIMIT 100`,
  },
  {
    name: "pools joined to their protocols",
    kind: "analytic",
    sql: () => `SELECT p.protocol_id, count(*) AS pools, sum(p."tvlUsd") AS pool_tvl, max(pr."tvlUsd") AS protocol_tvl
      FROM ts_synthetic_pool p JOIN ts_synthetic_protocol pr ON pr.entity_id = p.protocol_id AND pr.date = p.date
      WHERE p.date > DATE '${lastDay}' - INTERVAL '30 days' GROUP BY p.protocol_id ORDER BY pool_tvl DESC LIMIT 100`,
  },
];

// What to stop at the end, last started first, whatever happens in between.
const stops: (() => unknown)[] = [() => raw.closeSync(), () => rawConnection.closeSync()];
async function stopAll(): Promise<void> {
  for (const stop of stops.splice(0).reverse()) {
    try {
      await stop();
    } catch (error) {
      console.error(`stopping: ${(error as Error).message}`);
    }
  }
}
process.on("SIGINT", () => void stopAll().finally(() => process.exit(130)));

// The comparison points over HTTP: bare Bun.serve processes (bare-sql-server.ts) taking the same body.
async function bareServer(engine: string, target: string): Promise<string> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "bare-sql-server.ts"), engine, target], { stdout: "pipe", stderr: "inherit" });
  stops.push(() => proc.kill());
  const port = Number(new TextDecoder().decode((await proc.stdout.getReader().read()).value).trim());
  return `http://127.0.0.1:${port}/`;
}
async function post(url: string, text: string): Promise<string> {
  const response = await fetch(url, { method: "POST", body: JSON.stringify({ sql_query: text }) });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body}`);
  JSON.parse(body);
  return body;
}
type Way = string;
const CKG = "ckg HTTP";
const BEFORE = "ckg HTTP, before (--baseline-data-dir: no entity-ordered copies)";
const RAW = "raw DuckDB (the text as written: the published table)";
const PG_HTTP = "PostgreSQL HTTP";
type Run = (text: string) => Promise<unknown>;
/**
 * Each way in turn, so a drift of this shared machine hits them alike: with `--block 1` (the default)
 * one text each, every way then idle while the others run; with `--block B`, B texts back to back
 * (a client sending steadily: the server's thread, caches and connection stay warm), the ways
 * still taking turns block by block. Warmed up first with `warmup` texts: a point query, with one
 * of each token (each reads its own blocks).
 */
async function timeAll(sqlFor: (i: number) => string, n: number, list: [Way, Run][], warmup = 3): Promise<Map<Way, number[]>> {
  const samples = new Map<Way, number[]>(list.map(([way]) => [way, []]));
  for (let i = 0; i < warmup; i++) for (const [, fn] of list) await fn(sqlFor(n + i));
  for (let first = 0; first < n; first += block) {
    for (const [way, fn] of list) {
      for (let i = first; i < Math.min(n, first + block); i++) {
        const started = performance.now();
        await fn(sqlFor(i));
        samples.get(way)!.push(performance.now() - started);
      }
    }
  }
  return samples;
}

// PostgreSQL is loaded before the ckg server starts, so that all engines are then timed side by side.
let pg: Awaited<ReturnType<typeof startPostgres>> | undefined;
let loadSeconds = 0;
const times: Map<Way, number[]>[] = [];
try {
  let sql: InstanceType<typeof Bun.SQL> | undefined;
  if (!values["skip-postgres"]) {
    // PostgreSQL 15, loaded with the same rows (exported by DuckDB as CSV), indexed on (entity_id, date).
    pg = await startPostgres({ shared_buffers: "4GB", work_mem: "256MB", max_parallel_workers_per_gather: "2", effective_cache_size: "12GB", maintenance_work_mem: "2GB" });
    const server = pg;
    stops.push(() => server.stop());
    const client = new Bun.SQL(pg.url);
    sql = client;
    stops.push(() => client.close());
    const exportDir = mkdtempSync(join(tmpdir(), "ckg-pg-load-"));
    stops.push(() => rmSync(exportDir, { recursive: true, force: true }));
    const started = performance.now();
    for (const name of TABLES) {
      const csv = join(exportDir, `${name}.csv`);
      await rawConnection.run(`COPY (SELECT * FROM ${name}) TO ${sqlString(csv)} (FORMAT csv, HEADER false)`);
      const columns = (await rawConnection.runAndReadAll(`DESCRIBE ${name}`)).getRowsJson().map((r) => `"${r[0]}" ${pgType(r[1] as string)}`);
      await client.unsafe(`CREATE TABLE ${name} (${columns.join(", ")})`);
      Bun.spawnSync(["chmod", "-R", "a+r", exportDir]);
      Bun.spawnSync(["chmod", "a+x", exportDir]);
      await client.unsafe(`COPY ${name} FROM '${csv}' (FORMAT csv)`);
      rmSync(csv);
      await client.unsafe(`CREATE INDEX ON ${name} (entity_id, date)`);
      await client.unsafe(`CREATE INDEX ON ${name} (date)`);
      await client.unsafe(`ANALYZE ${name}`);
    }
    loadSeconds = (performance.now() - started) / 1000;
  }

  // No scans: a first scan of a data directory never scanned would share the 2 cores with every figure.
  const server = await serve(dir, { CKG_QUERY_TIMEOUT_MS: "120000" });
  stops.push(() => server.stop());
  // The bare hop answers with ckg's own answer to the first point query: the same bytes on the wire.
  const scratch = mkdtempSync(join(tmpdir(), "ckg-ts-bench-"));
  stops.push(() => rmSync(scratch, { recursive: true, force: true }));
  const cannedFile = join(scratch, "answer.json");
  writeFileSync(cannedFile, await post(`${server.url}/api/timeseries`, QUERIES[0]!.sql(0)));
  const bareHop = await bareServer("canned", cannedFile);
  const bareDuck = await bareServer("duckdb", join(snapshotDir, manifest.timeseries_db));
  // The store in this process, as the server opens it: the guard, the entity route and the engine without HTTP.
  const store = await TimeseriesStore.open(snapshotDir, manifest, { memoryLimit: SETTINGS.sql_memory_limit.default });
  stops.push(() => store.close());
  const ways: [Way, Run][] = [
    [CKG, (text) => post(`${server.url}/api/timeseries`, text)],
    ["ckg in-process (TimeseriesStore.query, no HTTP)", (text) => store.query(text, { timeoutMs: 120_000 })],
    [RAW, async (text) => (await rawConnection.runAndReadAll(text)).getRowObjectsJson()],
    ["bare HTTP + DuckDB (the text as written)", (text) => post(bareDuck, text)],
  ];
  if (values["baseline-data-dir"]) {
    const before = await serve(dataDir(values["baseline-data-dir"]), { CKG_QUERY_TIMEOUT_MS: "120000" });
    stops.push(() => before.stop());
    ways.splice(1, 0, [BEFORE, (text) => post(`${before.url}/api/timeseries`, text)]);
  }
  if (pg && sql) {
    const client = sql;
    const pgHttp = await bareServer("postgres", pg.url);
    ways.push([PG_HTTP, (text) => post(pgHttp, text)], ["raw PostgreSQL", (text) => client.unsafe(text)]);
  }
  // The best any row order or index could do for a point query: the same query over a table that
  // holds only the 50 tokens' rows (two row groups), in a database built as the query database is.
  const alone = join(scratch, "alone.parquet");
  const tokenList = tokens.map(sqlString).join(", ");
  await rawConnection.run(`COPY (SELECT * FROM ts_synthetic_token WHERE entity_id IN (${tokenList}) ORDER BY entity_id, date) TO ${sqlString(alone)} (FORMAT parquet)`);
  const aloneDb = join(scratch, "alone.duckdb");
  const writer = await openDuck({ memoryLimit: "1GB" });
  await withConnection(writer, async (c) => {
    await c.run(`ATTACH ${sqlString(aloneDb)} AS alone (ROW_GROUP_SIZE 30720)`);
    await c.run(`CREATE TABLE alone.ts_synthetic_token AS SELECT * FROM read_parquet(${sqlString(alone)})`);
    await c.run("CHECKPOINT alone");
  });
  writer.closeSync();
  const small = await openDuck({ path: aloneDb, memoryLimit: SETTINGS.sql_memory_limit.default, settings: { access_mode: "READ_ONLY" } });
  const smallConnection = await small.connect();
  stops.push(() => small.closeSync(), () => smallConnection.closeSync());
  const aloneWay: [Way, Run] = ["raw DuckDB, the 50 tokens' rows alone", async (text) => (await smallConnection.runAndReadAll(text)).getRowObjectsJson()];
  for (const q of QUERIES) {
    times.push(q.kind === "point" ? await timeAll(q.sql, runs * 5, [...ways, aloneWay], tokens.length) : await timeAll(q.sql, runs, ways));
  }
  // The floors: the HTTP hop alone (the point answer's bytes, no engine) and each engine's least query.
  const floors = await timeAll(() => "SELECT 1", runs * 5, [
    ["bare HTTP hop (Bun.serve, the point answer's bytes, no engine)", (text) => post(bareHop, text)],
    ...ways.filter(([way]) => way.startsWith("raw")).map(([way, fn]): [Way, Run] => [`${way.replace(/ \(.*\)$/, "")}, SELECT 1`, fn]),
  ]);
  report(floors);
} finally {
  await stopAll();
}

function report(floors: Map<Way, number[]>): void {
  const fmt = (s: number[]) => `${percentile(s, 50).toFixed(2)} / ${percentile(s, 99).toFixed(2)}`;
  const ratio = (a: number[], b: number[]) => `${(percentile(a, 50) / percentile(b, 50)).toFixed(2)}; ${(percentile(a, 99) / percentile(b, 99)).toFixed(2)}`;
  const rows: [string, string][] = [
    ["series rows in the snapshot", totalRows.toLocaleString("en")],
    ["texts back to back per way and turn (--block)", String(block)],
  ];
  if (pg) rows.push(["PostgreSQL load + index (s, 3 tables)", loadSeconds.toFixed(0)]);
  QUERIES.forEach((q, k) => {
    const t = times[k]!;
    rows.push([`${q.name} (${q.kind}), p50 / p99 (ms)`, ""]);
    for (const [way, samples] of t) rows.push([`  ${way}`, fmt(samples)]);
    const ckg = t.get(CKG)!;
    rows.push(["  ckg HTTP / raw DuckDB (p50; p99)", ratio(ckg, t.get(RAW)!)]);
    const before = t.get(BEFORE);
    if (before) rows.push(["  ckg HTTP / ckg HTTP before (p50; p99)", ratio(ckg, before)]);
    const pgOverHttp = t.get(PG_HTTP);
    if (pgOverHttp) rows.push(["  ckg HTTP / PostgreSQL HTTP (p50; p99)", ratio(ckg, pgOverHttp)]);
  });
  rows.push(["floors, p50 / p99 (ms)", ""]);
  for (const [way, samples] of floors) rows.push([`  ${way}`, fmt(samples)]);
  // The target: one entity's series at PostgreSQL's latency or better over HTTP (p50 <= 5 ms), and a day across all entities no slower.
  const entity = times[QUERIES.findIndex((q) => q.name === ONE_ENTITY)]!;
  const day = times[QUERIES.findIndex((q) => q.name === ONE_DAY)]!;
  rows.push([`summary, p50 / p99 (ms)`, ""]);
  rows.push([`  ${ONE_ENTITY}: ckg HTTP`, fmt(entity.get(CKG)!)]);
  if (entity.get(PG_HTTP)) rows.push([`  ${ONE_ENTITY}: PostgreSQL HTTP; ckg / PostgreSQL (p50; p99)`, `${fmt(entity.get(PG_HTTP)!)}; ${ratio(entity.get(CKG)!, entity.get(PG_HTTP)!)}`]);
  if (entity.get(BEFORE)) rows.push([`  ${ONE_ENTITY}: ckg HTTP before; after / before (p50; p99)`, `${fmt(entity.get(BEFORE)!)}; ${ratio(entity.get(CKG)!, entity.get(BEFORE)!)}`]);
  rows.push([`  ${ONE_DAY}: ckg HTTP`, fmt(day.get(CKG)!)]);
  if (day.get(BEFORE)) rows.push([`  ${ONE_DAY}: ckg HTTP before; after / before (p50; p99)`, `${fmt(day.get(BEFORE)!)}; ${ratio(day.get(CKG)!, day.get(BEFORE)!)}`]);
  printTable("time-series benchmark", rows);
}

function pgType(duckType: string): string {
  if (duckType === "DOUBLE") return "double precision";
  if (duckType === "BIGINT") return "bigint";
  return duckType === "DATE" ? "date" : "text";
}
