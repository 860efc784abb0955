/**
 * @module signals/kit
 * What detectors share beyond their contract (signals/detector.ts): reading rows, rounding and
 * writing figures for evidence, the data points findings rest on, grouping. Imports nothing of
 * signals/, so the graph facts and the detector contract can both use it.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
/** Date arithmetic for detectors' SQL parameters, from the one place it is defined. */
export { addDays } from "../time.ts";

/** One number the finding rests on, with where it came from. */
export interface DataPoint {
  /** Published table (ts_synthetic_pool) or `graph`. */
  table: string;
  entity: string;
  date: string | null;
  column: string;
  value: number | string | null;
}

/**
 * A data point read from a row of a published table: `row.src` names the table, `row.id` the entity;
 * `date` is the row's day, or null for a figure over a window (the column says which).
 */
export function point(row: { src: string; id: string }, column: string, value: DataPoint["value"], date: string | null = null): DataPoint {
  return { table: row.src, entity: row.id, date, column, value };
}

/** Rows of a query as plain objects (BIGINT as number, DATE as YYYY-MM-DD). */
export async function rowsOf<T>(c: DuckDBConnection, sql: string): Promise<T[]> {
  const reader = await c.runAndReadAll(sql);
  return reader.getRowObjectsJson() as T[];
}

/** Rounds for evidence: figures people read, not float noise. */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function usd(value: number): string {
  const abs = Math.abs(value);
  const sign = value < 0 ? "-" : "";
  if (abs >= 1e9) return `${sign}${(abs / 1e9).toFixed(2)}B USD`;
  if (abs >= 1e6) return `${sign}${(abs / 1e6).toFixed(2)}M USD`;
  if (abs >= 1e3) return `${sign}${(abs / 1e3).toFixed(1)}K USD`;
  return `${sign}${abs.toFixed(0)} USD`;
}

/** Adds `value` to the list under `key` (in place: detectors group tens of thousands of findings). */
export function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
