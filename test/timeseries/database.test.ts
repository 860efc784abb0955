/**
 * The query database a build publishes (timeseries/database.ts): each series table holds its
 * Parquet file's rows in the file's own order, value for value, with the published column types,
 * in SERIES_ORDER (month, then entity and date); over a real snapshot's files in real DuckDB. A
 * difference here would mean the two published forms of a table disagree.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { openDuck, sqlString } from "../../src/store/duckdb.ts";
import type { SnapshotManifest } from "../../src/store/manifest.ts";
import { KINDS, type Kind } from "../../src/timeseries/kinds.ts";
import { fixtureSnapshot } from "../support/fixture.ts";

let snapshotDir: string;
let manifest: SnapshotManifest;
let duck: DuckDBInstance;
let c: DuckDBConnection;
beforeAll(async () => {
  ({ dir: snapshotDir, manifest } = await fixtureSnapshot());
  duck = await openDuck();
  c = await duck.connect();
  await c.run(`ATTACH ${sqlString(join(snapshotDir, manifest.timeseries_db))} AS ts (READ_ONLY)`);
});
afterAll(() => {
  c.closeSync();
  duck.closeSync();
});

const one = async (sql: string) => (await c.runAndReadAll(sql)).getRowObjectsJS()[0]!;

test("every series table holds its Parquet file's rows, in the file's order, value for value", async () => {
  expect(manifest.timeseries.length).toBe(Object.keys(KINDS).length);
  for (const table of manifest.timeseries) {
    const inDb = `SELECT rowid AS n, * FROM ts.${table.name}`;
    const inFile = `SELECT file_row_number AS n, * EXCLUDE (file_row_number) FROM read_parquet(${sqlString(join(snapshotDir, table.file))}, file_row_number = true)`;
    const counts = await one(`SELECT (SELECT count(*) FROM ts.${table.name})::INTEGER AS db,
      (SELECT count(*) FROM (${inDb} EXCEPT ALL ${inFile}))::INTEGER AS only_db,
      (SELECT count(*) FROM (${inFile} EXCEPT ALL ${inDb}))::INTEGER AS only_file`);
    expect({ table: table.name, ...counts } as Record<string, unknown>).toEqual({ table: table.name, db: table.rows, only_db: 0, only_file: 0 });
    expect(table.rows).toBeGreaterThan(0);
  }
});

test("the tables are in SERIES_ORDER, with the published column types", async () => {
  for (const table of manifest.timeseries) {
    const { out } = await one(`SELECT count(*)::INTEGER AS out FROM (
        SELECT date_trunc('month', date) AS m, entity_id, date,
          lag(date_trunc('month', date)) OVER w AS pm, lag(entity_id) OVER w AS pe, lag(date) OVER w AS pd
        FROM ts.${table.name} WINDOW w AS (ORDER BY rowid))
      WHERE pm IS NOT NULL AND (m, entity_id, date) < (pm, pe, pd)`);
    expect({ table: table.name, out }).toEqual({ table: table.name, out: 0 });
    const columns = (await c.runAndReadAll(`SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = 'ts' AND schema_name = 'main' AND table_name = '${table.name}' ORDER BY column_index`)).getRowObjectsJS();
    expect(columns).toEqual(KINDS[table.kind as Kind].columns.map((col) => ({ column_name: col.name, data_type: col.type })));
  }
});
