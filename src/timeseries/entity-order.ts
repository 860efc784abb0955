/**
 * @module timeseries/entity-order
 * An entity-ordered copy of each series table, internal to the query database: a query for one
 * entity reads one or two row groups of it instead of a row group of every month of the published
 * table. The published tables keep their order (month, then entity and date), which is what makes a
 * day across all entities fast; neither order serves both (stored by entity alone, a day
 * across all tokens took 230 ms instead of 14).
 *
 * A series table `t` has, in schema `entity_order` (which no user query can name):
 *   t_keys (entity_id, entity_key)   each entity's key, 1, 2, ... in entity_id order,
 *   t (every column of t, entity_key) t's rows ordered by entity_key, then by t's own row order.
 * The key is an integer because DuckDB's zonemaps keep only 8 bytes of a string ('token/th'): on
 * the id itself no row group could be skipped; on the key, all but the entity's own are. Within
 * one entity the copy keeps the published row order, so a query for one entity answers the same
 * rows in the same order from either table (timeseries/entity-route.ts sends it to the copy).
 */
import type { DuckDBConnection } from "@duckdb/node-api";

const ENTITY_ORDER_SCHEMA = "entity_order";
/** The copy's extra column; user queries never see it (they read the copy through SELECT * EXCLUDE). */
export const ENTITY_KEY = "entity_key";
/** The key that no entity has: the key of an entity with no rows in the table. */
export const NO_ENTITY_KEY = 0;

/** The copy of a published table, as SQL names it. */
export function entityOrderTable(table: string): string {
  return `${ENTITY_ORDER_SCHEMA}.${table}`;
}

function keysTable(table: string): string {
  return `${ENTITY_ORDER_SCHEMA}.${table}_keys`;
}

/** Writes (or rewrites) the keys and the entity-ordered copy of `table`, a table of the current database. */
export async function buildEntityOrder(c: DuckDBConnection, table: string): Promise<void> {
  await c.run(`CREATE SCHEMA IF NOT EXISTS ${ENTITY_ORDER_SCHEMA}`);
  await c.run(`CREATE OR REPLACE TABLE ${keysTable(table)} AS
    SELECT entity_id, (row_number() OVER (ORDER BY entity_id))::INTEGER AS ${ENTITY_KEY}
    FROM (SELECT DISTINCT entity_id FROM ${table} WHERE entity_id IS NOT NULL)`);
  // Sorted on two integers (a third of the time a sort on the id takes); rowid keeps the table's own order within an entity.
  await c.run(`CREATE OR REPLACE TABLE ${entityOrderTable(table)} AS
    SELECT t.*, k.${ENTITY_KEY} FROM ${table} t JOIN ${keysTable(table)} k ON k.entity_id = t.entity_id
    ORDER BY k.${ENTITY_KEY}, t.rowid`);
}

/** Deletes from the copy what was deleted from `table` by the same filter, so the two hold the same rows. */
export async function deleteFromEntityOrder(c: DuckDBConnection, table: string, where: string): Promise<void> {
  await c.run(`DELETE FROM ${entityOrderTable(table)} WHERE ${where}`);
}

export async function dropEntityOrder(c: DuckDBConnection, table: string): Promise<void> {
  await c.run(`DROP TABLE IF EXISTS ${entityOrderTable(table)}`);
  await c.run(`DROP TABLE IF EXISTS ${keysTable(table)}`);
}

/** The published tables of the current database (USE) that have an entity-ordered copy. */
export async function tablesWithEntityOrder(c: DuckDBConnection): Promise<Set<string>> {
  const rows = (
    await c.runAndReadAll(
      `SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = '${ENTITY_ORDER_SCHEMA}' AND NOT ends_with(table_name, '_keys')`,
    )
  ).getRowObjectsJS() as { table_name: string }[];
  return new Set(rows.map((r) => r.table_name));
}

/** Each entity's key per table: what a query for one entity is routed by. */
export type EntityKeys = ReadonlyMap<string, ReadonlyMap<string, number>>;

/**
 * Reads the keys of the given tables that have a copy (a query database built before the copies
 * existed has none: its queries read the published tables, as before). About 100,000 keys at full scale.
 */
export async function readEntityKeys(c: DuckDBConnection, tables: readonly string[]): Promise<EntityKeys> {
  const copied = await tablesWithEntityOrder(c);
  const keys = new Map<string, Map<string, number>>();
  for (const table of tables) {
    if (!copied.has(table)) continue;
    const rows = (await c.runAndReadAll(`SELECT entity_id, ${ENTITY_KEY} FROM ${keysTable(table)}`)).getRowsJS() as [string, number][];
    keys.set(table, new Map(rows));
  }
  return keys;
}
