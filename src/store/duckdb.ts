/**
 * @module store/duckdb
 * Opening DuckDB: the one place that creates instances, so settings (threads, memory, no extension
 * downloads) are the same everywhere. The single executable swaps the native binding this package
 * loads for an embedded copy (scripts/build.ts); nothing here knows about that.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance, type DuckDBConnection, JSDuckDBValueConverter } from "@duckdb/node-api";
import { DUCK_RESOURCES } from "./duck-resources.ts";

export { DUCK_RESOURCES } from "./duck-resources.ts";

export interface DuckOptions {
  /** Database file, or ":memory:". */
  path?: string;
  /** Default: DUCK_RESOURCES.threads. */
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
  settings.threads = String(options.threads ?? DUCK_RESOURCES.threads);
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
 * A query's columns as JavaScript values, read chunk by chunk: DuckDB never holds the whole result,
 * so it does not keep the memory of one either (a result of the 670,000 entities read in one piece
 * left 250 MB more resident in DuckDB's allocator than read this way).
 */
export async function streamColumns(connection: DuckDBConnection, sql: string): Promise<Record<string, unknown[]>> {
  const result = await connection.stream(sql);
  const names = result.columnNames();
  const columns: unknown[][] = names.map(() => []);
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    for (const [i, values] of chunk.convertColumns(JSDuckDBValueConverter).entries()) for (const value of values) columns[i]!.push(value);
  }
  return Object.fromEntries(names.map((name, i) => [name, columns[i]!]));
}

/**
 * A scratch database on disk for work too large to hold in memory (a build's tables): DuckDB keeps
 * at most `memoryLimit` in memory and pages the rest to the file. `remove` closes it and deletes the
 * file, its log and the folder DuckDB spills intermediate results to.
 */
export async function openScratchDuck(dir: string, name: string, memoryLimit: string): Promise<{ duck: DuckDBInstance; remove(): void }> {
  const path = join(dir, name);
  const duck = await openDuck({ path, memoryLimit });
  return {
    duck,
    remove() {
      duck.closeSync();
      for (const file of [path, `${path}.wal`, `${path}.tmp`]) rmSync(file, { recursive: true, force: true });
    },
  };
}
