/**
 * @module signals/scan-inputs
 * The DuckDB session a scan reads: the snapshot's time-series database opened read-only in an
 * instance of the scan's own (so a scan never competes with user SQL for connections or memory
 * limits), a view per kind that unions every source's table of that kind (detectors work on demo
 * and provider tables alike), and the graph's entities and facts from the snapshot's Parquet.
 */
import { join } from "node:path";
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import type { SnapshotManifest } from "../store/manifest.ts";
import { openDuck, sqlString } from "../store/duckdb.ts";
import { KINDS, type Kind } from "../timeseries/kinds.ts";

export interface ScanInputs {
  duck: DuckDBInstance;
  c: DuckDBConnection;
  tables: Map<Kind, string[]>;
  /** Closes the session; again, does nothing. */
  close(): void;
}

/**
 * `from: "parquet"` reads the published Parquet files instead of the query database: the same
 * rows, slower to scan; the scan benchmark uses it as its baseline.
 */
export async function openScanInputs(
  snapshotDir: string,
  manifest: SnapshotManifest,
  /** `cutAt`: a SQL date expression every observed series stops at (createKindViews; a backtest's day). */
  options: { memoryLimit: string; from?: "database" | "parquet"; cutAt?: string },
): Promise<ScanInputs> {
  const parquet = options.from === "parquet";
  const duck = await openDuck({
    ...(parquet ? {} : { path: join(snapshotDir, manifest.timeseries_db), settings: { access_mode: "READ_ONLY" } }),
    memoryLimit: options.memoryLimit,
  });
  const c = await duck.connect();
  const tables = await createKindViews(
    c,
    manifest.timeseries.map((t) => ({ name: t.name, kind: t.kind as Kind, from: parquet ? `read_parquet(${sqlString(join(snapshotDir, t.file))})` : t.name })),
    options.cutAt,
  );
  await c.run(`CREATE TEMP VIEW facts AS SELECT * FROM read_parquet(${sqlString(join(snapshotDir, manifest.files.facts))})`);
  await c.run(`CREATE TEMP VIEW entities AS SELECT * FROM read_parquet(${sqlString(join(snapshotDir, manifest.files.entities))})`);
  let open = true;
  return {
    duck,
    c,
    tables,
    close() {
      if (!open) return;
      open = false;
      c.closeSync();
      duck.closeSync();
    },
  };
}

/** Kinds whose rows are schedules published ahead (unlocks): a day's view may see their future rows. */
export const SCHEDULED_KINDS: readonly Kind[] = ["unlocks"];

/**
 * A temporary view per kind that unions every published table of that kind (`from` is what to read:
 * a table name or a Parquet reader). With `cutAt`, a SQL expression of a date (a backtest's
 * `getvariable('as_of')`), every observed series stops at that day, so a detector cannot read a
 * value from after the day it is run as of, whatever its own SQL says; scheduled kinds are not cut.
 */
export async function createKindViews(c: DuckDBConnection, published: { name: string; kind: Kind; from: string }[], cutAt?: string): Promise<Map<Kind, string[]>> {
  const tables = new Map<Kind, string[]>();
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const mine = published.filter((t) => t.kind === kind);
    tables.set(kind, mine.map((t) => t.name));
    const columns = KINDS[kind].columns.map((col) => `"${col.name}"`).join(", ");
    const empty = `SELECT NULL::VARCHAR AS source_table, ${KINDS[kind].columns.map((col) => `NULL::${col.type} AS "${col.name}"`).join(", ")} WHERE false`;
    const cut = cutAt && !SCHEDULED_KINDS.includes(kind) ? ` WHERE date <= ${cutAt}` : "";
    const union = mine.length > 0 ? mine.map((t) => `SELECT '${t.name}' AS source_table, ${columns} FROM ${t.from}${cut}`).join(" UNION ALL ") : empty;
    await c.run(`CREATE TEMP VIEW ${kind} AS ${union}`);
  }
  return tables;
}
