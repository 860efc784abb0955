/**
 * Time limits and a free event loop, measured (the tests assert the behaviour: a runaway query is
 * answered 504 at its limit, and health answers while a heavy query runs; here are the figures).
 * Run by hand: `bun scripts/bench/time-limits.ts [--data-dir DIR] [--scale 8000] [--limit-ms 2000] [--runs 5]`.
 *
 * Serves a data directory with `ckg serve` on a port from the OS, then prints: how long after
 * sending it a SPARQL query without end and an SQL query without end get their 504, beside the
 * limit (the overshoot is the cost of stopping them); and p50/p99 of GET /healthz while an SQL query
 * without end runs.
 */
import { parseArgs } from "node:util";
import { createLogger } from "../../src/log.ts";
import { selfCommand } from "../../src/runtime.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { currentSnapshotId, dataDir } from "../../src/store/data-dir.ts";
import { startServer } from "../../test/support/server.ts";
import { percentile, printTable } from "./stats.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-bench-time-limits" },
    scale: { type: "string", default: "8000" },
    "limit-ms": { type: "string", default: "2000" },
    runs: { type: "string", default: "5" },
  },
});
const root = values["data-dir"]!;
const limitMs = Number(values["limit-ms"]);
const runs = Number(values.runs);
if (!currentSnapshotId(dataDir(root))) {
  const scale = /^\d+$/.test(values.scale!) ? Number(values.scale) : (values.scale as "full");
  await buildSnapshot({ dir: dataDir(root), scale, seed: 42, ontologyNs: "https://ckg.example/ontology#", log: createLogger("warn", 2) });
}

const RUNAWAY_SPARQL = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f }";
const ENDLESS_SQL = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r";

const server = await startServer(selfCommand("serve", "--data-dir", root, "--port", "0", "--query-timeout-ms", String(limitMs)), {
  // info: startServer learns the port from the "listening" line.
  CKG_LOG_LEVEL: "info",
  CKG_FIRST_SCAN: "false",
  CKG_SCAN_CRON: "off",
  CKG_RATE_LIMIT_PER_MINUTE: "0",
});
try {
  await server.waitReady(300_000);
  const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  /** Milliseconds from sending to the answer, which must be a 504. */
  const timeTo504 = async (path: string, body: unknown): Promise<number> => {
    const started = performance.now();
    const response = await post(path, body);
    await response.arrayBuffer();
    if (response.status !== 504) throw new Error(`${path}: ${response.status}, not 504`);
    return performance.now() - started;
  };
  const sparql: number[] = [];
  const sql: number[] = [];
  for (let i = 0; i < runs; i++) {
    sparql.push(await timeTo504("/api/sparql", { query: RUNAWAY_SPARQL }));
    // The killed graph process restarts: the next runaway waits for it to be ready.
    await server.waitReady(60_000);
    sql.push(await timeTo504("/api/timeseries", { sql_query: ENDLESS_SQL }));
  }

  // Health while an endless SQL query runs (one after the other, each to its limit).
  const health: number[] = [];
  let busy = true;
  const heavy = (async () => {
    while (busy) await (await post("/api/timeseries", { sql_query: ENDLESS_SQL })).arrayBuffer();
  })();
  const until = performance.now() + limitMs * runs;
  while (performance.now() < until) {
    const started = performance.now();
    await (await fetch(`${server.url}/healthz`)).arrayBuffer();
    health.push(performance.now() - started);
  }
  busy = false;
  await heavy;

  const figures = (samples: number[]) => `${percentile(samples, 50).toFixed(0)} / ${percentile(samples, 99).toFixed(0)}`;
  printTable(`time limits (limit ${limitMs} ms, ${runs} runs)`, [
    ["runaway SPARQL: 504 after p50 / p99 (ms)", figures(sparql)],
    ["endless SQL: 504 after p50 / p99 (ms)", figures(sql)],
    [`GET /healthz under endless SQL p50 / p99 (ms, ${health.length} requests)`, `${percentile(health, 50).toFixed(2)} / ${percentile(health, 99).toFixed(2)}`],
  ]);
} finally {
  await server.stop();
}
