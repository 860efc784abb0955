/**
 * @module timeseries/store
 * The time-series of one snapshot: its query database (timeseries/database.ts) opened read-only in
 * a DuckDB instance of its own, closed off (no file or network access, no spilling to disk, a
 * memory limit, configuration locked). User SQL passes
 * the guard, runs on its own connection with a time limit that interrupts it, and returns at most
 * 10,000 rows with their types kept in JSON.
 */
import { join } from "node:path";
import { type DuckDBConnection, type DuckDBInstance, DuckDBTypeId } from "@duckdb/node-api";
import { z } from "zod";
import { CkgError, isCkgError } from "../errors.ts";
import type { SnapshotManifest } from "../snapshot/manifest.ts";
import { openDuck } from "../store/duckdb.ts";
import { CATALOG_VIEW } from "./kinds.ts";
import { checkQuery, sqlError } from "./sql-guard.ts";

export const MAX_SQL_ROWS = 10_000;

export const sqlAnswerSchema = z.object({
  status: z.literal("success"),
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
  data: z.array(z.record(z.string(), z.unknown())),
  count: z.number().int(),
  truncated: z.boolean(),
});
export type SqlAnswer = z.infer<typeof sqlAnswerSchema>;

export interface StoreOptions {
  memoryLimit: string;
  threads?: number;
}

export class TimeseriesStore {
  private constructor(
    private readonly duck: DuckDBInstance,
    readonly published: ReadonlySet<string>,
  ) {}

  static async open(snapshotDir: string, manifest: SnapshotManifest, options: StoreOptions): Promise<TimeseriesStore> {
    const duck = await openDuck({
      path: join(snapshotDir, manifest.timeseries_db),
      threads: options.threads ?? 2,
      memoryLimit: options.memoryLimit,
      settings: { access_mode: "READ_ONLY" },
    });
    const c = await duck.connect();
    try {
      // The tables live in the database itself: no file or network access is needed at all, and
      // nothing may spill to a temporary directory. Then the configuration is locked.
      await c.run(`SET temp_directory = ''`);
      await c.run(`SET enable_external_access = false`);
      await c.run(`SET lock_configuration = true`);
    } finally {
      c.closeSync();
    }
    return new TimeseriesStore(duck, new Set([...manifest.timeseries.map((t) => t.name), CATALOG_VIEW]));
  }

  /** Runs one user query: guarded, time-limited, row-capped. */
  async query(sql: string, options: { timeoutMs: number; maxRows?: number }): Promise<SqlAnswer> {
    const maxRows = options.maxRows ?? MAX_SQL_ROWS;
    const connection = await this.duck.connect();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      connection.interrupt();
    }, options.timeoutMs);
    try {
      const checked = await checkQuery(connection, sql, this.published);
      const reader = await connection.streamAndReadUntil(checked.sql, maxRows + 1);
      const names = reader.columnNames();
      const types = reader.columnTypes();
      const rows = reader.getRowsJson();
      const truncated = rows.length > maxRows;
      const data = rows.slice(0, maxRows).map((row) => {
        const out: Record<string, unknown> = {};
        names.forEach((name, i) => (out[name] = jsonValue(row[i], types[i]!.typeId)));
        return out;
      });
      return {
        status: "success",
        columns: names.map((name, i) => ({ name, type: types[i]!.toString() })),
        data,
        count: data.length,
        truncated,
      };
    } catch (error) {
      if (timedOut) {
        throw new CkgError("query_timeout", `The query ran longer than the ${options.timeoutMs} ms limit and was stopped; filter or aggregate more.`, {
          details: { timeout_ms: options.timeoutMs },
        });
      }
      throw isCkgError(error) ? error : engineError((error as Error).message);
    } finally {
      clearTimeout(timer);
      connection.closeSync();
    }
  }

  /** Trusted queries of our own (explore figures, signal detectors): no guard, plain JS rows. */
  async rows<T = Record<string, unknown>>(sql: string): Promise<T[]> {
    const connection = await this.duck.connect();
    try {
      return (await connection.runAndReadAll(sql)).getRowObjectsJS() as T[];
    } finally {
      connection.closeSync();
    }
  }

  close(): void {
    this.duck.closeSync();
  }
}

/** What the engine refused at run time, as the documented errors. */
function engineError(message: string): CkgError {
  if (/^Permission Error/.test(message)) {
    return new CkgError("read_only", "The query tried to reach something outside the published tables.", { details: { engine: message.split("\n")[0] } });
  }
  if (/^Out of Memory Error/.test(message)) {
    return new CkgError("query_too_expensive", "The query needs more memory than the limit allows; filter, aggregate or LIMIT it.", {
      details: { engine: message.split("\n")[0] },
    });
  }
  return sqlError(message);
}

/** JSON values keep their type: safe integers as numbers, larger ones as strings; timestamps in ISO 8601. */
function jsonValue(value: unknown, type: DuckDBTypeId): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM: {
      const n = Number(value);
      return Number.isSafeInteger(n) ? n : String(value);
    }
    case DuckDBTypeId.DECIMAL:
      return Number(value);
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return `${String(value).replace(" ", "T")}Z`;
    case DuckDBTypeId.TIMESTAMP_TZ: {
      const date = new Date(String(value).replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00"));
      return Number.isNaN(date.getTime()) ? String(value) : date.toISOString();
    }
    default:
      return value;
  }
}
