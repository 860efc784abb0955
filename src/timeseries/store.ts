/**
 * @module timeseries/store
 * The time-series of one snapshot: its query database (timeseries/database.ts) opened read-only in
 * a DuckDB instance of its own, closed off (no file or network access, no spilling to disk, a
 * memory limit, configuration locked). User SQL passes
 * the guard, a read of one entity goes to its table's entity-ordered copy (timeseries/entity-route.ts),
 * and the query runs on its own connection with a time limit that interrupts it, and returns at most
 * 10,000 rows with their types kept in JSON.
 */
import { join } from "node:path";
import { type DuckDBConnection, type DuckDBInstance, type DuckDBPreparedStatement, DuckDBTypeId } from "@duckdb/node-api";
import { LRUCache } from "lru-cache";
import { z } from "zod";
import { CkgError, isCkgError } from "../errors.ts";
import type { SnapshotManifest } from "../store/manifest.ts";
import { openDuck } from "../store/duckdb.ts";
import { type EntityKeys, readEntityKeys } from "./entity-order.ts";
import { routeToEntityOrder } from "./entity-route.ts";
import { CATALOG_VIEW } from "./kinds.ts";
import { type CheckedQuery, checkQuery, sqlError } from "./sql-guard.ts";

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
  /** sql_memory_limit; its threads are every DuckDB instance's (store/duck-resources.ts). */
  memoryLimit: string;
}

/** Idle connections kept for reuse: a fresh connection costs about a millisecond on its first query. */
const IDLE_CONNECTIONS = 8;

/**
 * Verdicts of the guard kept per query text: dashboards and agents send the same queries again, and
 * a verdict depends only on the text and this snapshot's published tables.
 */
const CHECKED_QUERIES = 1000;

/** ckg's own statements kept prepared per connection (analytic SPARQL's translations). */
const PREPARED_PER_CONNECTION = 200;

export class TimeseriesStore {
  private readonly idle: DuckDBConnection[] = [];
  private readonly prepared = new WeakMap<DuckDBConnection, LRUCache<string, DuckDBPreparedStatement>>();
  private readonly checked = new Map<string, CheckedQuery>();
  /** User queries running now: what the server is busy with (tests wait on it to act mid-query). */
  private active = 0;

  private constructor(
    private readonly duck: DuckDBInstance,
    readonly published: ReadonlySet<string>,
    private readonly entityKeys: EntityKeys,
  ) {}

  static async open(snapshotDir: string, manifest: SnapshotManifest, options: StoreOptions): Promise<TimeseriesStore> {
    const duck = await openDuck({
      path: join(snapshotDir, manifest.timeseries_db),
      memoryLimit: options.memoryLimit,
      settings: { access_mode: "READ_ONLY" },
    });
    const c = await duck.connect();
    let entityKeys: EntityKeys;
    try {
      // The tables live in the database itself: no file or network access is needed at all, and
      // nothing may spill to a temporary directory. Then the configuration is locked.
      await c.run(`SET temp_directory = ''`);
      await c.run(`SET enable_external_access = false`);
      await c.run(`SET lock_configuration = true`);
      entityKeys = await readEntityKeys(c, manifest.timeseries.map((t) => t.name));
    } finally {
      c.closeSync();
    }
    const published = new Set([...manifest.timeseries.map((t) => t.name), ...manifest.graph_tables.map((t) => t.name), CATALOG_VIEW]);
    return new TimeseriesStore(duck, published, entityKeys);
  }

  get running(): number {
    return this.active;
  }

  /** Runs user SQL (its text, checked here, or what `check` returned for it): guarded, time-limited, row-capped. */
  async query(sql: string | CheckedQuery, options: { timeoutMs: number; maxRows?: number }): Promise<SqlAnswer> {
    const maxRows = options.maxRows ?? MAX_SQL_ROWS;
    return this.timed(options.timeoutMs, async (connection) => {
      const checked = typeof sql === "string" ? await this.guard(connection, sql) : sql;
      // Streamed, and read only up to the row cap: the engine stops producing rows past it, and the
      // query runs as written (an outer LIMIT wrapper cost a point query 12% here).
      let reader = await connection.streamAndReadUntil(checked.sql, maxRows + 1);
      if (new Set(reader.columnNames()).size < reader.columnCount) {
        // Duplicate column names (a.x, b.x): as a subquery they get suffixes, which JSON objects need.
        reader = await connection.streamAndReadUntil(`SELECT * FROM (\n${checked.sql}\n) AS answer`, maxRows + 1);
      }
      const names = reader.columnNames();
      const types = reader.columnTypes();
      const rows = reader.getRowObjectsJson() as Record<string, unknown>[];
      const truncated = rows.length > maxRows;
      const data = truncated ? rows.slice(0, maxRows) : rows;
      // Only columns whose JSON form needs fixing are touched; the rest stay as DuckDB wrote them.
      types.forEach((type, i) => {
        const convert = converterFor(type.typeId);
        if (!convert) return;
        const name = names[i]!;
        for (const row of data) row[name] = convert(row[name]);
      });
      return {
        status: "success",
        columns: names.map((name, i) => ({ name, type: types[i]!.toString() })),
        data,
        count: data.length,
        truncated,
      };
    });
  }

  /**
   * SQL of ckg's own making over the published tables (analytic SPARQL, graph/analytic): no guard,
   * but the same time limit and errors as user SQL, and counted as running. Rows as arrays.
   */
  async ownQuery(sql: string, options: { timeoutMs: number }): Promise<unknown[][]> {
    return this.timed(options.timeoutMs, async (connection) => (await (await this.preparedOn(connection, sql)).runAndReadAll()).getRowsJS() as unknown[][]);
  }

  /**
   * `sql` prepared on `connection`, kept for the next time: ckg's own queries (analytic SPARQL's
   * translations) come back with the same text, and a prepared one skips DuckDB's parse and bind
   * (a small query's 0.96 ms becomes 0.5-0.6 ms). User SQL is never kept: its text is anyone's.
   */
  private async preparedOn(connection: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
    let kept = this.prepared.get(connection);
    if (!kept) {
      kept = new LRUCache<string, DuckDBPreparedStatement>({ max: PREPARED_PER_CONNECTION, dispose: (statement) => statement.destroySync() });
      this.prepared.set(connection, kept);
    }
    let statement = kept.get(sql);
    if (!statement) {
      statement = await connection.prepare(sql);
      kept.set(sql, statement);
    }
    return statement;
  }

  /** Runs `fn` on a connection of its own, interrupted at `timeoutMs` (504 query_timeout). */
  private async timed<T>(timeoutMs: number, fn: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const connection = await this.acquire();
    this.active++;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      connection.interrupt();
    }, timeoutMs);
    try {
      return await fn(connection);
    } catch (error) {
      if (timedOut) {
        throw new CkgError("query_timeout", `The query ran longer than the ${timeoutMs} ms limit and was stopped; filter or aggregate more.`, {
          details: { timeout_ms: timeoutMs },
        });
      }
      throw isCkgError(error) ? error : engineError((error as Error).message);
    } finally {
      this.active--;
      clearTimeout(timer);
      this.release(connection);
    }
  }

  /** Runs the guard alone (before a paid query is charged): throws the 4xx the query would get. */
  async check(sql: string): Promise<CheckedQuery> {
    const connection = await this.acquire();
    try {
      return await this.guard(connection, sql);
    } catch (error) {
      throw isCkgError(error) ? error : engineError((error as Error).message);
    } finally {
      this.release(connection);
    }
  }

  /** The guard's verdict, with the text to run (routed to the entity-ordered copies), cached by query text. */
  private async guard(connection: DuckDBConnection, sql: string): Promise<CheckedQuery> {
    let checked = this.checked.get(sql);
    if (checked) {
      // Most recently used last: the Map's order is the eviction order.
      this.checked.delete(sql);
    } else {
      const guarded = await checkQuery(connection, sql, this.published);
      checked = { sql: routeToEntityOrder(guarded.sql, guarded.statements, this.entityKeys) };
    }
    this.checked.set(sql, checked);
    if (this.checked.size > CHECKED_QUERIES) this.checked.delete(this.checked.keys().next().value!);
    return checked;
  }

  /** Trusted queries of our own (explore figures, signal detectors): no guard, plain JS rows. */
  async rows<T = Record<string, unknown>>(sql: string): Promise<T[]> {
    const connection = await this.acquire();
    try {
      return (await connection.runAndReadAll(sql)).getRowObjectsJS() as T[];
    } finally {
      this.release(connection);
    }
  }

  close(): void {
    for (const connection of this.idle.splice(0)) this.closeConnection(connection);
    this.duck.closeSync();
  }

  private async acquire(): Promise<DuckDBConnection> {
    return this.idle.pop() ?? this.duck.connect();
  }

  private release(connection: DuckDBConnection): void {
    if (this.idle.length < IDLE_CONNECTIONS) this.idle.push(connection);
    else this.closeConnection(connection);
  }

  private closeConnection(connection: DuckDBConnection): void {
    this.prepared.get(connection)?.clear(); // its statements first: they belong to it
    connection.closeSync();
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

/**
 * JSON values keep their type: safe integers as numbers, larger ones as strings; decimals as
 * numbers; timestamps in ISO 8601. Undefined for types whose JSON form is already right.
 */
function converterFor(type: DuckDBTypeId): ((value: unknown) => unknown) | undefined {
  switch (type) {
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
      return (value) => {
        if (value === null) return null;
        const n = Number(value);
        return Number.isSafeInteger(n) ? n : String(value);
      };
    case DuckDBTypeId.DECIMAL:
      return (value) => (value === null ? null : Number(value));
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return (value) => (value === null ? null : `${String(value).replace(" ", "T")}Z`);
    case DuckDBTypeId.TIMESTAMP_TZ:
      return (value) => {
        if (value === null) return null;
        const date = new Date(String(value).replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00"));
        return Number.isNaN(date.getTime()) ? String(value) : date.toISOString();
      };
    default:
      return undefined;
  }
}
