/**
 * @module store/duckdb
 * Opening DuckDB: the one place that creates instances, so settings (threads, memory, no extension
 * downloads) are the same everywhere. The single executable swaps the native binding this package
 * loads for an embedded copy (scripts/build.ts); nothing here knows about that.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";

export interface DuckOptions {
  /** Database file, or ":memory:". */
  path?: string;
  threads?: number;
  memoryLimit?: string;
  /** Extra settings applied at creation (they may be locked afterwards by the caller). */
  settings?: Record<string, string>;
}

export async function openDuck(options: DuckOptions = {}): Promise<DuckDBInstance> {
  const settings: Record<string, string> = {
    // Extensions are built in (parquet, json, icu); a server with no network must never try to fetch one.
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
    ...options.settings,
  };
  if (options.threads) settings.threads = String(options.threads);
  if (options.memoryLimit) settings.memory_limit = options.memoryLimit;
  return DuckDBInstance.create(options.path ?? ":memory:", settings);
}

/** Quotes a string as a SQL literal. */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** Runs `fn` with a connection that is always closed afterwards. */
export async function withConnection<T>(instance: DuckDBInstance, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
  const connection = await instance.connect();
  try {
    return await fn(connection);
  } finally {
    connection.closeSync();
  }
}

/**
 * A scratch database on disk for work too large to hold in memory (a build's tables): DuckDB keeps
 * at most `memoryLimit` in memory and pages the rest to the file. `remove` closes it and deletes the
 * file, its log and the folder DuckDB spills intermediate results to.
 */
export async function openScratchDuck(dir: string, name: string, memoryLimit: string): Promise<{ duck: DuckDBInstance; remove(): void }> {
  const path = join(dir, name);
  const duck = await openDuck({ path, threads: 2, memoryLimit });
  return {
    duck,
    remove() {
      duck.closeSync();
      for (const file of [path, `${path}.wal`, `${path}.tmp`]) rmSync(file, { recursive: true, force: true });
    },
  };
}
