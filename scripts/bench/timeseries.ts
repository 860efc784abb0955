/**
 * Time-series benchmark (issue 3). Run by hand:
 *   bun scripts/bench/timeseries.ts [--data-dir DIR] [--scale full] [--runs 30]
 *
 * For four queries, prints p50/p99 over HTTP (POST /api/timeseries), on raw in-process DuckDB over
 * the same query database (ratio HTTP/raw), and on PostgreSQL 15 loaded with the same rows and
 * indexed on (entity_id, date) and (date) (ratio PostgreSQL/HTTP).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createLogger } from "../../src/log.ts";
import { selfCommand } from "../../src/runtime.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openDuck, sqlString } from "../../src/store/duckdb.ts";
import { startServer } from "../../test/support/server.ts";
import { startPostgres } from "./postgres.ts";
import { percentile, printTable } from "./stats.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-bench-full" },
    scale: { type: "string", default: "full" },
    runs: { type: "string", default: "30" },
    "skip-postgres": { type: "boolean", default: false },
  },
});
const dir = dataDir(values["data-dir"]!);
const runs = Number(values.runs);
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
const raw = await openDuck({ path: join(snapshotDir, manifest.timeseries_db), threads: 2, memoryLimit: "2GB", settings: { access_mode: "READ_ONLY" } });
const rawConnection = await raw.connect();
const lastDay = ((await rawConnection.runAndReadAll("SELECT max(date)::VARCHAR FROM ts_synthetic_token")).getRowsJson()[0]![0] as string);
const tokens = (await rawConnection.runAndReadAll(`SELECT entity_id FROM ts_synthetic_token WHERE date = DATE '${lastDay}' ORDER BY "marketCap" DESC LIMIT 50`)).getRowsJson().map((r) => r[0] as string);

// Written once, valid in both DuckDB and PostgreSQL.
const QUERIES: { name: string; kind: "point" | "analytic"; sql: (i: number) => string }[] = [
  {
    name: "one token's year of prices",
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

async function time(fn: (i: number) => Promise<unknown>, warmup = 3): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn(i);
    samples.push(performance.now() - started);
  }
  return samples;
}

// 1. Over HTTP and 2. on raw DuckDB, alternately, so drift of the machine hits both alike.
const server = await startServer(selfCommand("serve", "--data-dir", dir.root, "--port", "0", "--rate-limit-per-minute", "0", "--query-timeout-ms", "120000"));
await server.waitReady(300_000);
const viaHttp = async (text: string) => {
  const response = await fetch(`${server.url}/api/timeseries`, { method: "POST", body: JSON.stringify({ sql_query: text }) });
  if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
  await response.json();
};
const viaRaw = async (text: string) => (await rawConnection.runAndReadAll(text)).getRowObjectsJson();
const httpTimes: number[][] = [];
const rawTimes: number[][] = [];
for (const q of QUERIES) {
  const n = q.kind === "point" ? runs * 5 : runs;
  for (let i = 0; i < 3; i++) {
    await viaHttp(q.sql(n + i));
    await viaRaw(q.sql(n + i));
  }
  const h: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < n; i++) {
    let started = performance.now();
    await viaHttp(q.sql(i));
    h.push(performance.now() - started);
    started = performance.now();
    await viaRaw(q.sql(i));
    r.push(performance.now() - started);
  }
  httpTimes.push(h);
  rawTimes.push(r);
}
await server.stop();

function report(pgTimes: number[][] | undefined, loadSeconds: number): void {
  const rows: [string, string][] = [["series rows in the snapshot", totalRows.toLocaleString("en")]];
  if (pgTimes) rows.push(["PostgreSQL load + index (s, 3 tables)", loadSeconds.toFixed(0)]);
  QUERIES.forEach((q, k) => {
    const h = httpTimes[k]!;
    const r = rawTimes[k]!;
    rows.push([`${q.name} (${q.kind})`, ""]);
    rows.push(["  HTTP p50 / p99 (ms)", `${percentile(h, 50).toFixed(1)} / ${percentile(h, 99).toFixed(1)}`]);
    rows.push(["  raw DuckDB p50 / p99 (ms)", `${percentile(r, 50).toFixed(1)} / ${percentile(r, 99).toFixed(1)}`]);
    rows.push(["  HTTP / raw (p50)", (percentile(h, 50) / percentile(r, 50)).toFixed(2)]);
    const p = pgTimes?.[k];
    if (p) {
      rows.push(["  PostgreSQL 15 p50 / p99 (ms)", `${percentile(p, 50).toFixed(1)} / ${percentile(p, 99).toFixed(1)}`]);
      rows.push(["  PostgreSQL / HTTP (p50): times faster", (percentile(p, 50) / percentile(h, 50)).toFixed(1)]);
    }
  });
  printTable("time-series benchmark", rows);
}

if (values["skip-postgres"]) {
  report(undefined, 0);
  rawConnection.closeSync();
  raw.closeSync();
  process.exit(0);
}

// 3. PostgreSQL 15, loaded with the same rows (exported by DuckDB as CSV), indexed on (entity_id, date).
const pg = await startPostgres({ shared_buffers: "4GB", work_mem: "256MB", max_parallel_workers_per_gather: "2", effective_cache_size: "12GB", maintenance_work_mem: "2GB" });
const exportDir = mkdtempSync(join(tmpdir(), "ckg-pg-load-"));
const sql = new Bun.SQL(pg.url);
let loadSeconds = 0;
try {
  const started = performance.now();
  for (const name of TABLES) {
    const csv = join(exportDir, `${name}.csv`);
    await rawConnection.run(`COPY (SELECT * FROM ${name}) TO ${sqlString(csv)} (FORMAT csv, HEADER false)`);
    const columns = (await rawConnection.runAndReadAll(`DESCRIBE ${name}`)).getRowsJson().map((r) => `"${r[0]}" ${pgType(r[1] as string)}`);
    await sql.unsafe(`CREATE TABLE ${name} (${columns.join(", ")})`);
    Bun.spawnSync(["chmod", "-R", "a+r", exportDir]);
    Bun.spawnSync(["chmod", "a+x", exportDir]);
    await sql.unsafe(`COPY ${name} FROM '${csv}' (FORMAT csv)`);
    await sql.unsafe(`CREATE INDEX ON ${name} (entity_id, date)`);
    await sql.unsafe(`CREATE INDEX ON ${name} (date)`);
    await sql.unsafe(`ANALYZE ${name}`);
  }
  loadSeconds = (performance.now() - started) / 1000;
  const pgTimes: number[][] = [];
  for (const q of QUERIES) pgTimes.push(await time(async (i) => sql.unsafe(q.sql(i))));

  report(pgTimes, loadSeconds);
} finally {
  await sql.close();
  await pg.stop();
  rmSync(exportDir, { recursive: true, force: true });
  rawConnection.closeSync();
  raw.closeSync();
}

function pgType(duckType: string): string {
  if (duckType === "DOUBLE") return "double precision";
  if (duckType === "BIGINT") return "bigint";
  return duckType === "DATE" ? "date" : "text";
}
