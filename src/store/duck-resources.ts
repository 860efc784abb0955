/**
 * @module store/duck-resources
 * What every DuckDB instance of this process may use: its threads, and the memory of batch work (a
 * scan, an ingest, a backtest). Set once at start from the settings `duckdb_threads` and
 * `batch_memory_limit` (main.ts), the settings' defaults until then. The SQL engine's own limit is
 * `sql_memory_limit`; a build's steps and the figures reader have budgets of their own, named where
 * they are used. A module of its own, without DuckDB: main.ts sets it before anything loads DuckDB.
 */
import { SETTINGS } from "../config/settings.ts";

export const DUCK_RESOURCES: { threads: number; batchMemory: string } = { threads: SETTINGS.duckdb_threads.default, batchMemory: SETTINGS.batch_memory_limit.default };

export function useDuckResources(resources: { duckdb_threads: number; batch_memory_limit: string }): void {
  DUCK_RESOURCES.threads = resources.duckdb_threads;
  DUCK_RESOURCES.batchMemory = resources.batch_memory_limit;
}
