/**
 * @module demo/series/series-db
 * The scratch DuckDB database the demo series are generated in: deterministic noise macros (a
 * hash of entity, day and salt, so the same seed gives the same numbers on any number of threads),
 * the table of days, and a typed bulk loader for parameter rows computed in JavaScript.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import type { GroundTruth } from "../../model/series.ts";
import type { Rng } from "../../rng.ts";
import type { GenContext } from "../synthetic/context.ts";

/** Two years of days, ending on the as-of date (day 730). */
const DAYS = 731;
export const LAST_DAY = DAYS - 1;

export interface SeriesContext {
  c: DuckDBConnection;
  ctx: GenContext;
  rng: Rng;
  /** The as-of date, YYYY-MM-DD (the series' last day). */
  asOf: string;
  plants: boolean;
  truth: GroundTruth[];
  /** Entities already used by a plant: each plant gets its own. */
  planted: Set<string>;
  /** Plants that found no fitting entity (small worlds). */
  skipped: string[];
}

export async function prepareSeriesDb(c: DuckDBConnection, asOf: string): Promise<void> {
  // u01: uniform in (0,1); gauss: standard normal (Box-Muller on the two halves of one hash).
  // The hash is hashed again: DuckDB combines argument hashes linearly, which would correlate salts.
  await c.run(`CREATE MACRO u01(k, n, s) AS ((hash(hash(k, n, s)) >> 11)::DOUBLE + 0.5) / 9007199254740992.0`);
  await c.run(
    `CREATE MACRO gauss(k, n, s) AS sqrt(-2 * ln(((hash(hash(k, n, s)) >> 32)::DOUBLE + 0.5) / 4294967296.0)) * cos(2 * pi() * (((hash(hash(k, n, s)) & 4294967295)::DOUBLE + 0.5) / 4294967296.0))`,
  );
  await c.run(
    `CREATE TABLE days AS SELECT i::INTEGER AS day, (DATE '${asOf}' - INTERVAL (${LAST_DAY} - i) DAY)::DATE AS date FROM range(${DAYS}) t(i)`,
  );
}

type Cell = string | number | boolean | null;

/**
 * The integer column `loadRows` adds with `{ keyed: true }`: each row's position. A daily walk
 * partitions and joins by it rather than by the VARCHAR entity id, which costs about twice as much
 * to sort and to hash over millions of rows.
 */
export const ROW_KEY = "pk";

/** Creates a table and fills it from JavaScript rows (VARCHAR, DOUBLE, BOOLEAN, DATE as text). */
export async function loadRows(
  c: DuckDBConnection,
  table: string,
  columns: Record<string, "VARCHAR" | "DOUBLE" | "BOOLEAN" | "DATE">,
  rows: Cell[][],
  options: { keyed?: boolean } = {},
): Promise<void> {
  const names = Object.keys(columns);
  const key = options.keyed ? [`${ROW_KEY} INTEGER`] : [];
  // Dates travel as text and are cast once in SQL; the appender needs a plain table first.
  await c.run(`CREATE TABLE ${table}_raw (${[...key, ...names.map((n) => `"${n}" ${columns[n] === "DATE" ? "VARCHAR" : columns[n]}`)].join(", ")})`);
  const appender = await c.createAppender(`${table}_raw`);
  for (const [position, row] of rows.entries()) {
    if (options.keyed) appender.appendInteger(position);
    row.forEach((value, i) => {
      const type = columns[names[i]!];
      if (value === null) appender.appendNull();
      else if (type === "DOUBLE") appender.appendDouble(value as number);
      else if (type === "BOOLEAN") appender.appendBoolean(value as boolean);
      else appender.appendVarchar(String(value));
    });
    appender.endRow();
  }
  appender.closeSync();
  const select = [...(options.keyed ? [ROW_KEY] : []), ...names.map((n) => (columns[n] === "DATE" ? `"${n}"::DATE AS "${n}"` : `"${n}"`))].join(", ");
  await c.run(`CREATE TABLE ${table} AS SELECT ${select} FROM ${table}_raw`);
  await c.run(`DROP TABLE ${table}_raw`);
}

/**
 * The CTEs of daily random walks over a keyed parameter table (`loadRows` with `keyed`), for a
 * `WITH` clause: `steps` has each of `sums`' expressions (over `p`, the parameters, and `d`, the
 * days) per row and day; `walk`, their running sums by day (and the running maximum of each of
 * `maxes`, for a level that only steps up); `walk_end`, each running sum on the last day (what a
 * walk that must end at a latent level is divided by). The window sorts only the key, the day
 * and the steps, never the parameters, and orders integers, not entity ids: at full scale this
 * took the token walk from 42 to 17 s. `join` adds tables the step expressions read.
 */
export function walksSql(params: string, sums: Record<string, string>, options: { maxes?: Record<string, string>; join?: string } = {}): string {
  const maxes = options.maxes ?? {};
  const stepColumns = [...Object.entries(sums), ...Object.entries(maxes)].map(([name, expression]) => `${expression} AS ${name}`);
  const running = [...Object.keys(sums).map((name) => `sum(${name}) OVER running AS ${name}`), ...Object.keys(maxes).map((name) => `max(${name}) OVER running AS ${name}`)];
  return `steps AS (
      SELECT p.${ROW_KEY}, d.day, ${stepColumns.join(", ")} FROM ${params} p CROSS JOIN days d ${options.join ?? ""}
    ),
    walk AS MATERIALIZED (
      SELECT ${ROW_KEY}, day, ${running.join(", ")}
      FROM steps WINDOW running AS (PARTITION BY ${ROW_KEY} ORDER BY day ROWS UNBOUNDED PRECEDING)
    ),
    walk_end AS (SELECT ${ROW_KEY}, ${Object.keys(sums).map((name) => `arg_max(${name}, day) AS ${name}`).join(", ")} FROM walk GROUP BY ${ROW_KEY})`;
}

/**
 * The FROM clause of a query over `walksSql`'s walks: `w` each walk's row, `e` its row on the last
 * day, `p` its parameters, `d` its day.
 */
export function walkRows(params: string): string {
  return `walk w JOIN walk_end e USING (${ROW_KEY}) JOIN ${params} p USING (${ROW_KEY}) JOIN days d USING (day)`;
}

/** Quotes a string for SQL. */
export function q(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
