/**
 * @module timeseries/graph-tables
 * The graph as SQL tables beside the series: `graph_entities` (one row per entity) and
 * `graph_facts` (one row per fact: attribute, relationship or class), loaded from the snapshot's
 * entities.parquet and facts.parquet into its query database. Counting and grouping over the whole
 * graph (entities by type, a predicate histogram, investors by rounds) then run in DuckDB's column
 * store in milliseconds, where the same SPARQL walks every quad of the graph store.
 */
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString } from "../store/duckdb.ts";
import type { ColumnDef } from "./kinds.ts";

export interface GraphTableDef {
  name: string;
  /** The snapshot file it is loaded from (FILES in snapshot/write.ts). */
  file: "entities.parquet" | "facts.parquet";
  description: string;
  /** Row order in the query database: a filter on one type or predicate skips whole row groups. */
  order: string;
  columns: ColumnDef[];
}

export const GRAPH_TABLES: readonly GraphTableDef[] = [
  {
    name: "graph_entities",
    file: "entities.parquet",
    description: "every entity of the graph: id, type, name, symbol, aliases and the source that named it",
    order: "type, id",
    columns: [
      { name: "id", type: "VARCHAR", description: "graph id (token/usdc-usdc); the entity_id of the ts_* tables" },
      { name: "uri", type: "VARCHAR", description: "entity URI" },
      { name: "type", type: "VARCHAR", description: "entity type (Token, Protocol, Chain, Organization, Person, Exchange, Pool, ...)" },
      { name: "labels", type: "VARCHAR[]", description: "every class of the entity (an Exchange is also an Organization)" },
      { name: "name", type: "VARCHAR", description: "display name" },
      { name: "name_key", type: "VARCHAR", description: "the name normalised for exact lookup (lower case, no spaces)" },
      { name: "symbol", type: "VARCHAR", description: "ticker symbol (tokens), else null" },
      { name: "aliases", type: "VARCHAR[]", description: "other names" },
      { name: "source", type: "VARCHAR", description: "source of the entity (synthetic-demo is generated demo data)" },
      { name: "prominence", type: "DOUBLE", description: "0..1, how prominent the entity is (search ranks by it)" },
    ],
  },
  {
    name: "graph_facts",
    file: "facts.parquet",
    description: "every fact of the graph: subject, predicate, object and its source",
    // The file's own order (by subject): sorting 4 M rows would cost a build memory it does not have.
    order: "",
    columns: [
      { name: "subject_id", type: "VARCHAR", description: "graph id of the subject (graph_entities.id)" },
      { name: "predicate", type: "VARCHAR", description: "ontology predicate (investedIn, deployedOn, schema:name, rdf:type, ...; /api/schema lists them)" },
      { name: "object", type: "VARCHAR", description: "a graph id (object_kind entity), a class (class) or a value as text (literal)" },
      { name: "object_kind", type: "VARCHAR", description: "entity, class or literal" },
      { name: "datatype", type: "VARCHAR", description: "XSD datatype of a typed literal (decimal, integer, date, gYear, anyURI), else null" },
      { name: "source", type: "VARCHAR", description: "source of the fact (its named graph; synthetic-demo is generated demo data)" },
      { name: "as_of", type: "TIMESTAMP", description: "when the source stated it" },
    ],
  },
];

/**
 * graph_facts again, laid out for analytic SPARQL (graph/analytic), not published to user
 * SQL. One table ordered by predicate and subject, not one table per predicate: DuckDB keeps each
 * row group's min and max, so a constant predicate reads only its own row groups (QLever's PSO
 * permutation, Virtuoso's PSOG index, as a range of one column store), and a join on subjects of
 * one type reads a range too (ids start with the type: protocol/...); one table keeps the
 * translator's relations uniform (a variable predicate is the same scan). At full scale,
 * protocols per chain takes 15 ms here and 74 ms in the published table's subject order.
 *
 * Numbers are typed once, here: `number` is the value of an xsd:integer or xsd:decimal literal
 * (DECIMAL(38, 12), exact for every number the graph profile admits), NULL for every other term.
 * Casting the text to DECIMAL(38, ·) in each query was the slowest shape of
 * scripts/bench/analytic.ts (SUM of a round's amount by stage: 254 ms against Virtuoso's 9 ms at
 * full scale; DuckDB alone 105 ms, now 5 ms; at default scale 10 ms for 595 values, 0.5 ms cast as
 * DOUBLE, which is not exact). Cast once here it costs 33 ms of the build and 5 blocks of storage
 * (69 K numbers at full scale). The lexical form, datatype and kind stay beside it: answers are
 * made from those, so a number comes back exactly as the graph store writes it. Integer ids for
 * subjects and objects (a hash of the term) were measured too and not kept: DuckDB's
 * dictionary-compressed strings group and join as fast (protocols per chain 33 ms on strings, 35-41
 * ms on ids, in memory at full scale).
 */
export const FACTS_BY_PREDICATE = "graph_facts_by_predicate";

/** Decimal places of the typed `number` column (the graph profile admits numbers of at most this many). */
export const NUMBER_SCALE = 12;
export const NUMBER_TYPE = `DECIMAL(38, ${NUMBER_SCALE})`;
const NUMERIC_DATATYPES = ["integer", "decimal"].map((t) => `'http://www.w3.org/2001/XMLSchema#${t}'`).join(", ");

/**
 * Loads (or replaces) the graph tables in the attached query database from the snapshot's files;
 * returns their row counts.
 */
export async function loadGraphTables(c: DuckDBConnection, snapshotDir: string): Promise<{ name: string; rows: number }[]> {
  const loaded: { name: string; rows: number }[] = [];
  for (const table of GRAPH_TABLES) {
    const columns = table.columns.map((col) => `"${col.name}"`).join(", ");
    const order = table.order ? ` ORDER BY ${table.order}` : "";
    await c.run(`CREATE OR REPLACE TABLE ${table.name} AS SELECT ${columns} FROM read_parquet(${sqlString(join(snapshotDir, table.file))})${order}`);
    const rows = Number((await c.runAndReadAll(`SELECT count(*) FROM ${table.name}`)).getRowsJS()[0]![0]);
    loaded.push({ name: table.name, rows });
  }
  await c.run(
    `CREATE OR REPLACE TABLE ${FACTS_BY_PREDICATE} AS SELECT subject_id, predicate, object, object_kind, datatype,
      CASE WHEN object_kind = 'literal' AND datatype IN (${NUMERIC_DATATYPES}) THEN TRY_CAST(object AS ${NUMBER_TYPE}) END AS number
      FROM graph_facts ORDER BY predicate, subject_id`,
  );
  return loaded;
}
