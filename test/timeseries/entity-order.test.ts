/**
 * The entity-ordered copies of the series tables (timeseries/entity-order.ts) and the route that
 * sends a query for one entity to them (timeseries/entity-route.ts), over a real snapshot's query
 * database in real DuckDB: a routed query answers exactly what the plain scan of the published table
 * answers (the same rows, in the same order, with the same columns), for entities at the edges of
 * the key range and for entities with no rows; what the route cannot prove the same is left alone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { openDuck, sqlString, withConnection } from "../../src/store/duckdb.ts";
import type { SnapshotManifest } from "../../src/store/manifest.ts";
import { ENTITY_KEY, entityOrderTable } from "../../src/timeseries/entity-order.ts";
import { TIMESERIES_DB, publishedTables, updateTimeseriesDb } from "../../src/timeseries/database.ts";
import { TimeseriesStore } from "../../src/timeseries/store.ts";
import { fixtureSnapshot } from "../support/fixture.ts";
import { tempDir } from "../support/temp-dirs.ts";

let snapshotDir: string;
let manifest: SnapshotManifest;
let store: TimeseriesStore;
beforeAll(async () => {
  ({ dir: snapshotDir, manifest } = await fixtureSnapshot());
  store = await TimeseriesStore.open(snapshotDir, manifest, { memoryLimit: "512MB" });
});
afterAll(() => store.close());

const LIMITS = { timeoutMs: 30_000 };
/** The text the store runs for a query: routed to a copy or not. */
const routed = async (sql: string) => (await store.check(sql)).sql;
/** The answer through the route, and the plain answer (the text run as written, on the published table). */
async function both(sql: string): Promise<{ routed: unknown; plain: unknown }> {
  return { routed: await store.query(sql, LIMITS), plain: await store.query({ sql }, LIMITS) };
}
async function expectRoutedAndSame(sql: string): Promise<void> {
  expect(await routed(sql)).toContain(`FROM ${entityOrderTable("")}`);
  const answers = await both(sql);
  expect(answers.routed).toEqual(answers.plain);
}
async function entitiesOf(table: string): Promise<string[]> {
  return (await store.rows<{ entity_id: string }>(`SELECT DISTINCT entity_id FROM ${table} ORDER BY entity_id`)).map((r) => r.entity_id);
}

describe("the entity-ordered copies", () => {
  test("every series table has one, holding its rows, each entity's in the table's own order", async () => {
    for (const { name } of manifest.timeseries) {
      // Each row numbered within its entity in the table's order: the two sides must match row for row.
      const number = "row_number() OVER (PARTITION BY entity_id ORDER BY rowid) AS n";
      const table = `SELECT *, ${number} FROM ${name}`;
      const copy = `SELECT * EXCLUDE (${ENTITY_KEY}), ${number} FROM ${entityOrderTable(name)}`;
      const [diff] = await store.rows<{ missing: bigint; extra: bigint; rows: bigint }>(`SELECT
        (SELECT count(*) FROM (${table} EXCEPT ALL ${copy})) AS missing,
        (SELECT count(*) FROM (${copy} EXCEPT ALL ${table})) AS extra,
        (SELECT count(*) FROM ${name}) AS rows`);
      expect({ table: name, missing: Number(diff!.missing), extra: Number(diff!.extra) }).toEqual({ table: name, missing: 0, extra: 0 });
      expect(Number(diff!.rows)).toBeGreaterThan(0);
    }
  });

  test("no user query can name them", async () => {
    for (const sql of [`SELECT * FROM ${entityOrderTable("ts_synthetic_token")}`, `SELECT * FROM ${entityOrderTable("ts_synthetic_token_keys")}`]) {
      await expect(store.query(sql, LIMITS)).rejects.toMatchObject({ code: "read_only" });
    }
  });
});

describe("a query for one entity", () => {
  test("answers the plain scan's rows in its order, for the first, a middle and the last entity of every table", async () => {
    for (const { name } of manifest.timeseries) {
      const ids = await entitiesOf(name);
      for (const id of [ids[0]!, ids[Math.floor(ids.length / 2)]!, ids.at(-1)!]) {
        await expectRoutedAndSame(`SELECT * FROM ${name} WHERE entity_id = ${sqlString(id)}`);
      }
    }
  });

  test("answers no rows, with the table's columns, for an entity the table has none of (before, between and after its keys)", async () => {
    const ids = await entitiesOf("ts_synthetic_token");
    for (const id of ["", "token/", `${ids[0]}-`, "zzz", "protocol/none"]) {
      const sql = `SELECT * FROM ts_synthetic_token WHERE entity_id = ${sqlString(id)}`;
      await expectRoutedAndSame(sql);
      const answer = await store.query(sql, LIMITS);
      expect(answer.count).toBe(0);
      expect(answer.columns.map((c) => c.name)).toEqual(["entity_id", "date", "currentPrice", "marketCap", "totalVolume", "circulatingSupply", "totalSupply"]);
    }
  });

  test("is routed in the shapes dashboards and agents write, with the same answers", async () => {
    const [token] = await entitiesOf("ts_synthetic_token");
    const [protocol] = await entitiesOf("ts_synthetic_protocol");
    const t = sqlString(token!);
    const p = sqlString(protocol!);
    const shapes = [
      `SELECT date, "currentPrice", "marketCap" FROM ts_synthetic_token WHERE entity_id = ${t} AND date > (SELECT max(date) FROM ts_synthetic_token) - INTERVAL '365 days' ORDER BY date`,
      `SELECT t.date, t."marketCap" FROM ts_synthetic_token AS t WHERE ${t} = t.entity_id ORDER BY t.date DESC LIMIT 5`,
      `SELECT ts_synthetic_token.date, ts_synthetic_token.* FROM ts_synthetic_token WHERE ts_synthetic_token.entity_id = ${t} AND "marketCap" > 0`,
      `SELECT * FROM "TS_Synthetic_Token" WHERE ENTITY_ID = ${t};`,
      `SELECT date_trunc('month', date) AS m, avg("currentPrice") AS p FROM ts_synthetic_token WHERE entity_id = ${t} GROUP BY ALL ORDER BY m`,
      `WITH s AS (SELECT date, "tvlUsd" FROM ts_synthetic_protocol WHERE entity_id = ${p}) SELECT count(*) AS n, max("tvlUsd") AS top FROM s`,
      `SELECT p.date, p."tvlUsd", c.chain_id, c."tvlUsd" AS chain_tvl FROM ts_synthetic_protocol p JOIN ts_synthetic_protocol_chain c ON c.entity_id = p.entity_id AND c.date = p.date WHERE p.entity_id = ${p} AND c.entity_id = ${p} ORDER BY 1, 3`,
      `SELECT g.name, d.date FROM graph_entities g LEFT JOIN ts_synthetic_token d ON d.entity_id = g.id WHERE d.entity_id = ${t} ORDER BY d.date LIMIT 3`,
      `SELECT (SELECT count(*) FROM ts_synthetic_token WHERE entity_id = ${t}) AS days, (SELECT count(*) FROM ts_synthetic_token) AS all_rows`,
      `/* prix en € */ SELECT 'é' AS accent, date FROM ts_synthetic_token WHERE entity_id = ${t} ORDER BY date LIMIT 2`,
      `FROM ts_synthetic_token SELECT date, "totalVolume" WHERE entity_id = ${t} AND "totalVolume" > 0`,
      `SELECT * FROM ts_synthetic_token WHERE entity_id = ${t} AND entity_id = ${sqlString(`${token}-other`)}`,
    ];
    for (const sql of shapes) await expectRoutedAndSame(sql);
  });

  test("is left as written where the route could change the answer or cannot read it", async () => {
    const [a, b] = (await entitiesOf("ts_synthetic_token")).map(sqlString);
    const unrouted = [
      `SELECT * FROM ts_synthetic_token WHERE entity_id IN (${a}, ${b})`,
      `SELECT * FROM ts_synthetic_token WHERE entity_id = ${a} OR entity_id = ${b}`,
      `SELECT rowid, date FROM ts_synthetic_token WHERE entity_id = ${a}`,
      `SELECT main.ts_synthetic_token.date FROM ts_synthetic_token WHERE entity_id = ${a}`,
      `SELECT * FROM main.ts_synthetic_token WHERE entity_id = ${a}`,
      `WITH ts_synthetic_token AS (SELECT * FROM ts_synthetic_protocol) SELECT * FROM ts_synthetic_token WHERE entity_id = ${a}`,
      `SELECT * FROM ts_synthetic_token t(e, d) WHERE e = ${a}`,
      `SELECT * FROM ts_synthetic_token WHERE entity_id = ${a} USING SAMPLE 10 ROWS`,
      `SELECT * FROM ts_synthetic_token TABLESAMPLE 50% WHERE entity_id = ${a}`,
      `SELECT x.date FROM ts_synthetic_token x POSITIONAL JOIN ts_synthetic_protocol y WHERE x.entity_id = ${a}`,
      `SELECT * FROM ts_synthetic_protocol p ASOF JOIN ts_synthetic_token t ON t.date <= p.date WHERE t.entity_id = ${a}`,
      `SELECT * FROM ts_synthetic_token JOIN ts_synthetic_protocol USING (date) WHERE entity_id = ${a}`,
      `SELECT * FROM ts_synthetic_token WHERE entity_id::VARCHAR = ${a}`,
    ];
    for (const sql of unrouted) expect(await routed(sql)).toBe(sql);
  });
});

describe("an ingest's query database", () => {
  test("prunes a table's copy with it, and writes the copy of a table loaded again", async () => {
    const next = tempDir("ckg-entity-order-");
    mkdirSync(join(next, "ts"), { recursive: true });
    for (const file of readdirSync(join(snapshotDir, "ts"))) if (file.endsWith(".parquet")) linkSync(join(snapshotDir, "ts", file), join(next, "ts", file));
    const tables = publishedTables(manifest.timeseries);
    const ids = await entitiesOf("ts_synthetic_token");
    const gone = [ids[0]!, ids[1]!, ids.at(-1)!];
    const covering = join(next, "covering.parquet");
    await withConnection(await openDuck(), (c) => c.run(`COPY (SELECT unnest([${gone.map(sqlString).join(", ")}]) AS entity_id) TO ${sqlString(covering)} (FORMAT parquet)`));
    await updateTimeseriesDb(next, snapshotDir, tables, { rebuilt: new Set(["ts_synthetic_stablecoin"]), pruned: new Map([["ts_synthetic_token", [covering]]]) });

    const updated = await TimeseriesStore.open(next, manifest, { memoryLimit: "512MB" });
    try {
      for (const id of [...gone, ids[2]!]) {
        const sql = `SELECT * FROM ts_synthetic_token WHERE entity_id = ${sqlString(id)}`;
        expect((await updated.check(sql)).sql).toContain(entityOrderTable("ts_synthetic_token"));
        const answers = { routed: await updated.query(sql, LIMITS), plain: await updated.query({ sql }, LIMITS) };
        expect(answers.routed).toEqual(answers.plain);
        expect(answers.plain.count === 0).toBe(gone.includes(id));
      }
      const [stablecoin] = await updated.rows<{ entity_id: string }>(`SELECT entity_id FROM ts_synthetic_stablecoin ORDER BY entity_id DESC LIMIT 1`);
      const sql = `SELECT * FROM ts_synthetic_stablecoin WHERE entity_id = ${sqlString(stablecoin!.entity_id)}`;
      const answers = { routed: await updated.query(sql, LIMITS), plain: await updated.query({ sql }, LIMITS) };
      expect(answers.routed).toEqual(answers.plain);
      expect(answers.plain.count).toBeGreaterThan(0);
    } finally {
      updated.close();
    }
    expect(readdirSync(join(next, "ts")).filter((f) => f.startsWith(`${TIMESERIES_DB.split("/")[1]}.`))).toEqual([]);
  });
});
