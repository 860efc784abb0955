import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KINDS } from "../../src/timeseries/kinds.ts";
import { type Running, json, startServices } from "../support/fixture.ts";
import { until } from "../support/until.ts";

let run: Running;
beforeAll(async () => {
  run = await startServices({ query_timeout_ms: 2000 });
});
afterAll(() => run.close());

/** A query without end: only its time limit stops it. */
const ENDLESS = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r";
const sql = (sql_query: string) => run.request("POST", "/api/timeseries", { sql_query }).then(json);
const one = async (query: string) => {
  const { status, body } = await sql(query);
  if (status !== 200) throw new Error(`${status}: ${JSON.stringify(body)}`);
  return body;
};

describe("the ts_* tables", () => {
  test("every kind is published, with two years of days, and listed in /api/schema and ts_catalog", async () => {
    const { body } = await run.request("GET", "/api/schema").then(json);
    const tables = body.timeseries_tables as { name: string; kind: string; row_count: number; first_date: string; last_date: string; columns: { name: string; type: string }[]; synthetic: boolean; source: string }[];
    expect(tables.map((t) => t.kind).sort()).toEqual(Object.keys(KINDS).sort());
    for (const table of tables) {
      expect(table.name).toBe(`ts_synthetic_${table.kind}`);
      expect(table.synthetic).toBe(true);
      expect(table.source).toBe("synthetic-demo");
      expect(table.row_count).toBeGreaterThan(0);
      expect(table.columns.map((c) => c.name)).toEqual(KINDS[table.kind as keyof typeof KINDS].columns.map((c) => c.name));
    }
    const token = tables.find((t) => t.kind === "token")!;
    const days = (Date.parse(token.last_date) - Date.parse(token.first_date)) / 86_400_000;
    expect(days).toBeGreaterThanOrEqual(730);
    const catalog = await one("SELECT count(DISTINCT table_name) AS n FROM ts_catalog WHERE kind <> 'graph'");
    expect(catalog.data[0].n).toBe(tables.length);
  });

  test("entity_id joins to the graph: a token's rows belong to the token the graph names", async () => {
    const row = (await one(`SELECT entity_id FROM ts_synthetic_protocol ORDER BY entity_id LIMIT 1`)).data[0];
    const uri = `https://ckg.example/id/${row.entity_id}`;
    const explore = await run.request("POST", "/api/explore", { entity_name: uri }).then(json);
    expect(explore.status).toBe(200);
    expect(explore.body.entity.id).toBe(row.entity_id);
  });

  test("a protocol's TVL is the sum of its chains' TVL, on its graph chains", async () => {
    const mismatches = await one(`
      SELECT count(*) AS n FROM (
        SELECT p.entity_id, p.date, p."tvlUsd", sum(c."tvlUsd") AS chains
        FROM ts_synthetic_protocol p JOIN ts_synthetic_protocol_chain c USING (entity_id, date)
        GROUP BY ALL HAVING abs(p."tvlUsd" - sum(c."tvlUsd")) > 1e-6 * p."tvlUsd")`);
    expect(mismatches.data[0].n).toBe(0);
    const { entity_id } = (await one(`SELECT entity_id FROM ts_synthetic_protocol_chain GROUP BY entity_id HAVING count(DISTINCT chain_id) >= 2 ORDER BY entity_id LIMIT 1`)).data[0];
    const chains = (await one(`SELECT DISTINCT chain_id FROM ts_synthetic_protocol_chain WHERE entity_id = '${entity_id}' ORDER BY 1`)).data.map((r: { chain_id: string }) => r.chain_id);
    const graph = await run.request("POST", "/api/sparql", { query: `SELECT ?c WHERE { <${entity_id}> ckg:deployedOn ?c }` }).then(json);
    expect(graph.body.data.map((r: { c: string }) => r.c.replace("https://ckg.example/id/", "")).sort()).toEqual(chains);
  });

  test("unlocks follow the token's vesting schedules in the graph", async () => {
    const { schedule_id, first, last } = (await one(
      `SELECT schedule_id, min(date)::VARCHAR AS first, max(date)::VARCHAR AS last FROM ts_synthetic_unlocks GROUP BY schedule_id ORDER BY schedule_id LIMIT 1`,
    )).data[0];
    const graph = await run.request("POST", "/api/sparql", {
      query: `SELECT ?cliff ?end WHERE { <${schedule_id}> ckg:cliffDate ?cliff ; ckg:vestingEnd ?end }`,
    }).then(json);
    const { cliff, end } = graph.body.data[0];
    expect(first).toBe(cliff);
    expect(last <= end).toBe(true);
  });

  test("the generator wrote down its planted anomalies", () => {
    const live = run.services.live!;
    const truth = JSON.parse(readFileSync(join(live.dir, live.manifest.ground_truth!), "utf8"));
    expect(truth.plants).toBe(true);
    const types = new Set(truth.anomalies.map((a: { signal_type: string }) => a.signal_type));
    for (const type of ["stablecoin-depeg", "utilization-stress", "yield-anomaly", "unlock-pressure", "insider-accumulation", "whale-cross-protocol"]) {
      expect(types.has(type), type).toBe(true);
    }
    for (const anomaly of truth.anomalies) expect(["low", "moderate", "high"]).toContain(anomaly.band);
  });

  test("explore carries the latest figures with as-of dates and sources", async () => {
    const { entity_id } = (await one(`SELECT entity_id FROM ts_synthetic_protocol ORDER BY "tvlUsd" DESC LIMIT 1`)).data[0];
    const { body } = await run.request("POST", "/api/explore", { entity_name: `https://ckg.example/id/${entity_id}`, focus: ["financial_metrics"] }).then(json);
    const figures = body.relationships.financial_metrics.figures as { metric: string; value: number; as_of: string; source: string; table: string }[];
    const tvl = figures.find((f) => f.metric === "tvlUsd")!;
    expect(tvl.value).toBeGreaterThan(0);
    expect(tvl.source).toBe("synthetic-demo");
    expect(tvl.table).toBe("ts_synthetic_protocol");
    const latest = (await one(`SELECT max(date)::VARCHAR AS d FROM ts_synthetic_protocol`)).data[0].d;
    expect(tvl.as_of).toBe(latest);
    for (const metric of ["feesUsd", "revenueUsd"]) expect(figures.some((f) => f.metric === metric)).toBe(true);
    // The block says at its top that its figures are synthetic demo data; figures are not missing, so no note.
    expect(body.relationships.financial_metrics.synthetic).toBe(true);
    expect(body.relationships.financial_metrics.figures_note).toBeUndefined();
    expect(body.sources).toContain("synthetic-demo");

    const token = (await one(`SELECT entity_id FROM ts_synthetic_token ORDER BY "marketCap" DESC LIMIT 1`)).data[0].entity_id;
    const market = (await run.request("POST", "/api/explore", { entity_name: `https://ckg.example/id/${token}`, focus: ["market"] }).then(json)).body.relationships.market;
    expect(market.figures.map((f: { metric: string }) => f.metric)).toEqual(expect.arrayContaining(["currentPrice", "marketCap", "totalVolume"]));
  });

  test("every figure is the value of its entity's latest row in its table, null where that row has none", async () => {
    // Figures are read once per snapshot (timeseries/figures.ts): here they meet the table they come from.
    const tables: Record<string, string[]> = {
      ts_synthetic_protocol: ["tvlUsd", "feesUsd", "revenueUsd", "earningsUsd", "dailyUsers"],
      ts_synthetic_lending: ["totalSupplyUsd", "totalBorrowUsd", "utilization", "supplyApy", "borrowApy", "debtCeilingUsd"],
      ts_synthetic_token: ["currentPrice", "marketCap", "totalVolume", "circulatingSupply"],
      ts_synthetic_pool: ["tvlUsd", "apy", "apyBase", "apyReward", "volumeUsd"],
    };
    for (const [table, metrics] of Object.entries(tables)) {
      // Entities whose latest row has a null figure first (if any), then the biggest.
      const ids = (await one(`SELECT entity_id FROM ${table} GROUP BY entity_id ORDER BY bool_or(${metrics.map((m) => `"${m}" IS NULL`).join(" OR ")}) DESC, count(*) DESC LIMIT 4`)).data;
      expect(ids.length, table).toBe(4);
      for (const { entity_id } of ids) {
        const latest = (await one(`SELECT date::VARCHAR AS as_of, ${metrics.map((m) => `"${m}"::DOUBLE AS "${m}"`).join(", ")} FROM ${table} WHERE entity_id = '${entity_id}' ORDER BY date DESC LIMIT 1`)).data[0];
        const { body } = await run.request("POST", "/api/explore", { entity_name: `https://ckg.example/id/${entity_id}` }).then(json);
        const shown = [...(body.relationships.market.figures ?? []), ...(body.relationships.financial_metrics.figures ?? [])].filter((f: { table: string }) => f.table === table);
        expect(shown.map((f: { metric: string }) => f.metric)).toEqual(metrics);
        for (const figure of shown) {
          expect(figure.as_of).toBe(latest.as_of);
          expect(figure.value).toBe(latest[figure.metric]);
        }
      }
    }
  });
});

describe("POST /api/timeseries", () => {
  test("answers columns with types, typed rows, count and truncated", async () => {
    const body = await one(
      `SELECT 42::BIGINT AS small, 9007199254740993::BIGINT AS big, DATE '2024-01-02' AS d, TIMESTAMP '2024-01-02 03:04:05' AS ts, 1.25::DECIMAL(6,2) AS dec, 0.5::DOUBLE AS x, NULL AS nothing, true AS flag`,
    );
    expect(body.columns).toEqual([
      { name: "small", type: "BIGINT" },
      { name: "big", type: "BIGINT" },
      { name: "d", type: "DATE" },
      { name: "ts", type: "TIMESTAMP" },
      { name: "dec", type: "DECIMAL(6,2)" },
      { name: "x", type: "DOUBLE" },
      { name: "nothing", type: "INTEGER" },
      { name: "flag", type: "BOOLEAN" },
    ]);
    expect(body.data).toEqual([{ small: 42, big: "9007199254740993", d: "2024-01-02", ts: "2024-01-02T03:04:05Z", dec: 1.25, x: 0.5, nothing: null, flag: true }]);
    expect(body.count).toBe(1);
    expect(body.truncated).toBe(false);
  });

  test("a trailing semicolon or comment is fine", async () => {
    for (const text of ["SELECT 1 AS one;", "SELECT 1 AS one -- a note", "SELECT 1 AS one; -- a note", "/* first */ SELECT 1 AS one"]) {
      expect((await one(text)).data, text).toEqual([{ one: 1 }]);
    }
  });

  test("caps answers at 10,000 rows", async () => {
    const body = await one(`SELECT entity_id, date FROM ts_synthetic_token`);
    expect(body.count).toBe(10_000);
    expect(body.truncated).toBe(true);
  });

  test("columns of the same name keep every value (suffixed), and ORDER BY holds", async () => {
    const body = await one(`SELECT a.entity_id, b.entity_id FROM ts_synthetic_token a JOIN ts_synthetic_token b USING (entity_id, date) ORDER BY a.entity_id DESC LIMIT 2`);
    expect(body.columns.length).toBe(2);
    expect(new Set(body.columns.map((c: { name: string }) => c.name)).size).toBe(2);
    expect(Object.keys(body.data[0]).length).toBe(2);
    expect(body.data[0][body.columns[0].name] >= body.data[1][body.columns[0].name]).toBe(true);
  });

  test("PostgreSQL habits work", async () => {
    const token = (await one(`SELECT entity_id FROM ts_synthetic_token ORDER BY "marketCap" DESC LIMIT 1`)).data[0].entity_id;
    const monthly = await one(`
      WITH daily AS (SELECT date, "currentPrice" FROM ts_synthetic_token WHERE entity_id = '${token}' AND date >= (SELECT max(date) FROM ts_synthetic_token) - INTERVAL '90 days'),
      monthly AS (SELECT date_trunc('month', date)::DATE AS month, avg("currentPrice") AS avg_price FROM daily GROUP BY 1)
      SELECT month, avg_price, avg(avg_price) OVER (ORDER BY month ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS rolling,
        lag(avg_price) OVER (ORDER BY month) AS previous
      FROM monthly ORDER BY month`);
    expect(monthly.count).toBeGreaterThanOrEqual(3);
    expect(typeof monthly.data[0].avg_price).toBe("number");
    const series = await one(`SELECT d::DATE AS day FROM generate_series(DATE '2024-01-01', DATE '2024-01-05', INTERVAL 1 DAY) t(d)`);
    expect(series.count).toBe(5);
    const ilike = await one(`SELECT count(*) AS n FROM ts_synthetic_token WHERE entity_id ILIKE 'TOKEN/%'`);
    expect(ilike.data[0].n).toBeGreaterThan(0);
    const cast = await one(`SELECT '2024-03-01'::date - INTERVAL '1 month' AS prev, extract(year FROM DATE '2024-03-01') AS y, coalesce(NULL, 'x') AS c`);
    expect(cast.data[0].prev).toBe("2024-02-01T00:00:00Z");
  });

  test("a syntax error is 400 invalid_sql with its position; unknown columns too", async () => {
    const syntax = await sql("SELECT *\nFROM ts_synthetic_token WHERE date = = 1");
    expect(syntax.status).toBe(400);
    expect(syntax.body.error.code).toBe("invalid_sql");
    expect(syntax.body.error.details.line).toBe(2);
    expect(syntax.body.error.details.column).toBeGreaterThan(1);
    const column = await sql(`SELECT "noSuchColumn" FROM ts_synthetic_token`);
    expect(column.status).toBe(400);
    expect(column.body.error.code).toBe("invalid_sql");
  });

  test("a query past its time limit is stopped: 504, and the server keeps answering", async () => {
    const forever = await sql(ENDLESS);
    expect(forever.status).toBe(504);
    expect(forever.body.error.code).toBe("query_timeout");
    expect(forever.body.error.details.timeout_ms).toBe(2000);
    expect((await sql("SELECT 1 AS one")).body.data).toEqual([{ one: 1 }]);
  });

  test("queries run off the event loop: health answers while a heavy query runs", async () => {
    const { timeseries } = run.services.snapshot();
    // A query that never ends on its own: it runs until its time limit (2 s here) stops it.
    const heavy = sql(ENDLESS);
    let settled = false;
    void heavy.then(() => (settled = true));
    await until("the query to run in DuckDB", 10_000, () => timeseries.running === 1);
    expect((await run.request("GET", "/healthz")).status).toBe(200);
    // Answered while the query still ran: before its time limit stopped it.
    expect(timeseries.running).toBe(1);
    expect(settled).toBe(false);
    expect((await heavy).status).toBe(504);
    expect(timeseries.running).toBe(0);
  });

  test("bad bodies are 400", async () => {
    for (const body of [{}, { sql_query: "" }, { sql_query: 5 }, { sql_query: "SELECT 1", more: true }]) {
      const { status, body: answer } = await run.request("POST", "/api/timeseries", body).then(json);
      expect(status).toBe(400);
      expect(answer.error.code).toBe("invalid_request");
    }
  });
});

describe("the SQL sandbox", () => {
  // Each attempt must be refused with a 4xx, never run, never leak.
  const dataDir = () => run.dir;
  const attempts: [string, string][] = [
    // reading files, by every reader
    ["read_csv", "SELECT * FROM read_csv('/etc/passwd')"],
    ["read_csv_auto", "SELECT * FROM read_csv_auto('/etc/passwd')"],
    ["read_text", "SELECT * FROM read_text('/etc/passwd')"],
    ["read_blob", "SELECT * FROM read_blob('/etc/passwd')"],
    ["read_json", "SELECT * FROM read_json('/etc/passwd')"],
    ["read_json_auto", "SELECT * FROM read_json_auto('/etc/passwd')"],
    ["read_ndjson", "SELECT * FROM read_ndjson('/etc/passwd')"],
    ["read_parquet", "SELECT * FROM read_parquet('/etc/passwd')"],
    ["parquet_scan", "SELECT * FROM parquet_scan('/etc/passwd')"],
    ["parquet_metadata", "SELECT * FROM parquet_metadata('DATA/snapshots')"],
    ["parquet_schema", "SELECT * FROM parquet_schema('/etc/passwd')"],
    ["replacement scan", "SELECT * FROM '/etc/passwd'"],
    ["replacement scan of the data directory", "SELECT * FROM 'DATA/state.sqlite'"],
    ["unpublished snapshot table", "SELECT * FROM read_parquet('DATA/snapshots/*/entities.parquet')"],
    ["sniff_csv", "SELECT * FROM sniff_csv('/etc/passwd')"],
    ["glob", "SELECT * FROM glob('/*')"],
    ["glob of the data dir", "SELECT * FROM glob('DATA/**')"],
    ["sqlite_scan", "SELECT * FROM sqlite_scan('DATA/state.sqlite', 'changes')"],
    ["scalar subquery reading a file", "SELECT (SELECT content FROM read_text('/etc/hostname')) AS h"],
    ["CTE reading a file", "WITH x AS (SELECT * FROM read_csv('/etc/passwd')) SELECT * FROM x"],
    ["UNION with a file", "SELECT entity_id FROM ts_synthetic_token UNION ALL SELECT column0 FROM read_csv('/etc/passwd')"],
    ["IN subquery with a file", "SELECT * FROM ts_synthetic_token WHERE entity_id IN (SELECT column0 FROM read_csv('/etc/passwd'))"],
    ["URL", "SELECT * FROM 'https://example.com/data.csv'"],
    ["URL reader", "SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')"],
    ["read via a lateral join", "SELECT * FROM ts_synthetic_token t, LATERAL (SELECT * FROM read_text('/etc/passwd')) f LIMIT 1"],
    // writing, changing, attaching
    ["COPY to a file", "COPY (SELECT 1) TO '/tmp/ckg-escape.csv'"],
    ["COPY a table", "COPY ts_synthetic_token TO '/tmp/ckg-escape.parquet'"],
    ["CREATE TABLE", "CREATE TABLE t AS SELECT 1"],
    ["CREATE VIEW", "CREATE VIEW v AS SELECT 1"],
    ["CREATE OR REPLACE a published view", "CREATE OR REPLACE VIEW ts_synthetic_token AS SELECT 1 AS x"],
    ["INSERT", "INSERT INTO ts_synthetic_token VALUES ('x', DATE '2024-01-01', 1, 1, 1, 1, 1)"],
    ["UPDATE", "UPDATE ts_synthetic_token SET \"currentPrice\" = 0"],
    ["DELETE", "DELETE FROM ts_synthetic_token"],
    ["DROP", "DROP VIEW ts_synthetic_token"],
    ["ALTER", "ALTER VIEW ts_synthetic_token RENAME TO x"],
    ["CREATE MACRO", "CREATE MACRO m() AS 1"],
    ["CREATE SECRET", "CREATE SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')"],
    ["EXPORT DATABASE", "EXPORT DATABASE '/tmp/ckg-export'"],
    ["IMPORT DATABASE", "IMPORT DATABASE '/tmp/ckg-export'"],
    ["ATTACH a file", "ATTACH '/tmp/ckg-escape.db' AS x"],
    ["ATTACH the state database", "ATTACH 'DATA/state.sqlite' AS s (TYPE sqlite)"],
    ["ATTACH memory", "ATTACH ':memory:' AS m"],
    ["DETACH", "DETACH memory"],
    ["USE", "USE memory"],
    ["INSTALL", "INSTALL httpfs"],
    ["LOAD", "LOAD httpfs"],
    ["FORCE INSTALL", "FORCE INSTALL httpfs"],
    ["PRAGMA", "PRAGMA database_list"],
    ["PRAGMA show", "PRAGMA show_tables"],
    ["SET", "SET enable_external_access = true"],
    ["SET memory", "SET memory_limit = '100GB'"],
    ["RESET", "RESET enable_external_access"],
    ["CALL", "CALL pragma_version()"],
    ["CHECKPOINT", "CHECKPOINT"],
    ["VACUUM", "VACUUM"],
    ["BEGIN", "BEGIN TRANSACTION"],
    ["two statements", "SELECT 1; SELECT 2"],
    ["select then drop", "SELECT 1; DROP VIEW ts_synthetic_token"],
    ["comment then drop", "/* just a comment */ DROP VIEW ts_synthetic_token"],
    ["EXPLAIN", "EXPLAIN SELECT * FROM ts_synthetic_token"],
    ["EXPLAIN ANALYZE", "EXPLAIN ANALYZE SELECT 1"],
    ["DESCRIBE", "DESCRIBE ts_synthetic_token"],
    ["SUMMARIZE", "SUMMARIZE ts_synthetic_token"],
    // system and host information
    ["duckdb_settings", "SELECT * FROM duckdb_settings()"],
    ["duckdb_tables", "SELECT * FROM duckdb_tables()"],
    ["duckdb_views (shows file paths)", "SELECT sql FROM duckdb_views()"],
    ["duckdb_databases", "SELECT * FROM duckdb_databases()"],
    ["duckdb_extensions", "SELECT * FROM duckdb_extensions()"],
    ["current_setting", "SELECT current_setting('allowed_paths')"],
    ["getenv", "SELECT getenv('HOME')"],
    ["information_schema", "SELECT * FROM information_schema.tables"],
    ["pg_catalog", "SELECT * FROM pg_catalog.pg_tables"],
    ["sqlite_master", "SELECT * FROM sqlite_master"],
    ["pragma table function", "SELECT * FROM pragma_database_list()"],
    ["which_secret", "SELECT * FROM which_secret('s3://x', 's3')"],
    ["query() runs text as SQL", "SELECT * FROM query('SELECT * FROM read_csv(''/etc/passwd'')')"],
    ["query_table", "SELECT * FROM query_table('ts_synthetic_token')"],
    ["catalog-qualified system view", "SELECT * FROM system.main.duckdb_settings()"],
    ["another catalog", "SELECT * FROM temp.main.x"],
    // resources
    ["recursion without end", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT max(n) FROM r"],
    ["a huge range", "SELECT count(*) FROM range(100000000000) t(i) WHERE i % 7 = 3"],
    ["a cross join of everything", "SELECT count(*) FROM ts_synthetic_token a, ts_synthetic_token b, ts_synthetic_token c"],
  ];

  test("the corpus has at least 60 escape attempts", () => {
    expect(attempts.length).toBeGreaterThanOrEqual(60);
  });

  test.each(attempts)("%s is refused with a 4xx and leaks nothing", async (_name, attempt) => {
    const { status, body } = await sql(attempt.replaceAll("DATA", dataDir()));
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(505);
    expect(status).not.toBe(500);
    expect(body.error.code).toMatch(/^(read_only|invalid_sql|query_timeout|query_too_expensive)$/);
    const text = JSON.stringify(body);
    expect(text).not.toContain("root:x:0:0");
    expect(text).not.toContain(`${dataDir()}/snapshots`);
  });

  test("nothing was written and the published tables are intact", async () => {
    const { existsSync } = await import("node:fs");
    for (const path of ["/tmp/ckg-escape.csv", "/tmp/ckg-escape.parquet", "/tmp/ckg-export", "/tmp/ckg-escape.db"]) expect(existsSync(path)).toBe(false);
    const count = await one("SELECT count(*) AS n FROM ts_synthetic_token");
    expect(count.data[0].n).toBeGreaterThan(0);
  });
});
