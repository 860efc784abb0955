/**
 * @module timeseries/database
 * The query database of a snapshot: its Parquet series loaded into DuckDB's own storage
 * (ts/timeseries.duckdb), which the server opens read-only, with the graph's entities and facts
 * beside them (timeseries/graph-tables.ts). Parquet stays the snapshot's published
 * format; DuckDB's storage is what makes cross-sectional joins fast (a 90-day TVL comparison over
 * all protocols: 10 ms here against 500 ms over the same rows in Parquet), and a read-only database
 * needs no file access at all at query time. Rows keep the files' order (SERIES_ORDER): month,
 * then entity and date, which a day across all entities reads a few row groups of. A query for one
 * entity reads each table's entity-ordered copy instead (timeseries/entity-order.ts): stored by
 * entity alone, a day across all tokens got 17x slower (14 -> 230 ms); an ART index on
 * entity_id was used only by a query with no other filter, and its row fetches were no faster than
 * the scan.
 */
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { openDuck, sqlString, withConnection } from "../store/duckdb.ts";
import { buildEntityOrder, deleteFromEntityOrder, dropEntityOrder, tablesWithEntityOrder } from "./entity-order.ts";
import { GRAPH_TABLES, loadGraphTables } from "./graph-tables.ts";
import { CATALOG_VIEW, KINDS, type Kind } from "./kinds.ts";

export const TIMESERIES_DB = "ts/timeseries.duckdb";

export interface PublishedTable {
  name: string;
  kind: string;
  source: string;
  file: string;
}

/** A snapshot's series tables as the query database publishes them: their source is their provenance. */
export function publishedTables(tables: readonly { name: string; kind: string; provenance: string; file: string }[]): PublishedTable[] {
  return tables.map((t) => ({ name: t.name, kind: t.kind, source: t.provenance, file: t.file }));
}

/** Rows per row group: a quarter of DuckDB's default, so one entity's month reads four times less. */
const ROW_GROUP_SIZE = 30_720;

/** Builds a snapshot's query database from its Parquet files, with each table's entity-ordered copy. */
export async function buildTimeseriesDb(snapshotDir: string, tables: PublishedTable[]): Promise<string> {
  return withTimeseriesDb(snapshotDir, tables, async (c) => {
    for (const table of tables) {
      await c.run(`CREATE TABLE ${table.name} AS SELECT * FROM read_parquet(${sqlString(join(snapshotDir, table.file))})`);
      await buildEntityOrder(c, table.name);
    }
  });
}

/**
 * The query database of a snapshot that differs from `baseDir`'s in a few tables (an ingest): the
 * base database is copied, `rebuilt` tables are loaded again from their Parquet files and `pruned`
 * ones lose the rows of the entities the given Parquet files now cover. Loading every table again
 * takes minutes at full scale; this, seconds.
 */
export async function updateTimeseriesDb(
  snapshotDir: string,
  baseDir: string,
  tables: PublishedTable[],
  changes: { rebuilt: Set<string>; pruned: Map<string, string[]> },
): Promise<string> {
  mkdirSync(join(snapshotDir, "ts"), { recursive: true });
  copyFileSync(join(baseDir, TIMESERIES_DB), join(snapshotDir, TIMESERIES_DB));
  return withTimeseriesDb(snapshotDir, tables, async (c) => {
    const present = new Set(
      ((await c.runAndReadAll("SELECT table_name FROM duckdb_tables() WHERE database_name = 'ts' AND schema_name = 'main'")).getRowObjectsJS() as { table_name: string }[]).map(
        (r) => r.table_name,
      ),
    );
    const copied = await tablesWithEntityOrder(c);
    for (const table of tables) {
      const rebuilt = changes.rebuilt.has(table.name) || !present.has(table.name);
      if (rebuilt) {
        await c.run(`CREATE OR REPLACE TABLE ${table.name} AS SELECT * FROM read_parquet(${sqlString(join(snapshotDir, table.file))})`);
      }
      const covering = changes.pruned.get(table.name);
      const pruned = covering?.length ? `entity_id IN (SELECT entity_id FROM read_parquet([${covering.map(sqlString).join(", ")}]))` : undefined;
      if (pruned) await c.run(`DELETE FROM ${table.name} WHERE ${pruned}`);
      // The copy follows: written again for a table loaded again (or a base built before copies existed), else pruned alike.
      if (rebuilt || !copied.has(table.name)) await buildEntityOrder(c, table.name);
      else if (pruned) await deleteFromEntityOrder(c, table.name, pruned);
    }
    const wanted = new Set(tables.map((t) => t.name));
    for (const name of present) {
      if (wanted.has(name)) continue;
      await c.run(`DROP TABLE ${name}`);
      await dropEntityOrder(c, name);
    }
  });
}

/**
 * Adds the graph tables (timeseries/graph-tables.ts) to a snapshot's query database, once its
 * entities and facts files are written; returns their row counts for the manifest.
 */
export async function addGraphTables(snapshotDir: string, tables: PublishedTable[]): Promise<{ name: string; rows: number }[]> {
  let loaded: { name: string; rows: number }[] = [];
  await withTimeseriesDb(snapshotDir, tables, async (c) => {
    loaded = await loadGraphTables(c, snapshotDir);
  });
  return loaded;
}

// The load pages through the file it writes: a build keeps its world in memory meanwhile (4 GiB in all).
const DB_OPTIONS = { memoryLimit: "1GB" };

/** Where the entity-ordered copies' sorts spill (beside the database; removed when it is written). */
const spillDir = (snapshotDir: string) => join(snapshotDir, `${TIMESERIES_DB}.tmp`);

async function attach(c: DuckDBConnection, snapshotDir: string): Promise<void> {
  await c.run(`SET temp_directory = ${sqlString(spillDir(snapshotDir))}`);
  await c.run(`ATTACH ${sqlString(join(snapshotDir, TIMESERIES_DB))} AS ts (ROW_GROUP_SIZE ${ROW_GROUP_SIZE})`);
  await c.run("USE ts");
}

/**
 * The catalogue view: every table's columns with their kind, source and description; the graph
 * tables as kind `graph` (each of their rows names its own source).
 */
function catalogViewSql(tables: PublishedTable[]): string {
  const row = (values: string[]) => `(${values.map(sqlString).join(", ")})`;
  const rows = [
    ...tables.flatMap((t) => KINDS[t.kind as Kind].columns.map((col) => row([t.name, t.kind, t.source, col.name, col.type, col.description]))),
    ...GRAPH_TABLES.flatMap((t) => t.columns.map((col) => row([t.name, "graph", "graph", col.name, col.type, col.description]))),
  ];
  return `CREATE OR REPLACE VIEW ${CATALOG_VIEW} AS SELECT * FROM (VALUES ${rows.join(", ")})
         t(table_name, kind, source, column_name, column_type, description)`;
}

/** Opens the snapshot's query database, runs `fill`, then (re)writes the catalogue view and checkpoints. */
async function withTimeseriesDb(snapshotDir: string, tables: PublishedTable[], fill: (c: DuckDBConnection) => Promise<void>): Promise<string> {
  const duck = await openDuck(DB_OPTIONS);
  try {
    await withConnection(duck, async (c) => {
      await attach(c, snapshotDir);
      await fill(c);
      await c.run(catalogViewSql(tables));
      await c.run("CHECKPOINT ts");
    });
  } finally {
    duck.closeSync();
    rmSync(spillDir(snapshotDir), { recursive: true, force: true });
  }
  return TIMESERIES_DB;
}
