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
  close(): void;
}

/**
 * `from: "parquet"` reads the published Parquet files instead of the query database: the same
 * rows, slower to scan; the scan benchmark uses it as its baseline.
 */
export async function openScanInputs(
  snapshotDir: string,
  manifest: SnapshotManifest,
  options: { memoryLimit: string; threads: number; from?: "database" | "parquet" },
): Promise<ScanInputs> {
  const parquet = options.from === "parquet";
  const duck = await openDuck({
    ...(parquet ? {} : { path: join(snapshotDir, manifest.timeseries_db), settings: { access_mode: "READ_ONLY" } }),
    threads: options.threads,
    memoryLimit: options.memoryLimit,
  });
  const c = await duck.connect();
  const tables = new Map<Kind, string[]>();
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const published = manifest.timeseries.filter((t) => t.kind === kind);
    const names = published.map((t) => t.name);
    tables.set(kind, names);
    const columns = KINDS[kind].columns.map((col) => `"${col.name}"`).join(", ");
    const empty = `SELECT NULL::VARCHAR AS source_table, ${KINDS[kind].columns.map((col) => `NULL::${col.type} AS "${col.name}"`).join(", ")} WHERE false`;
    const from = (t: (typeof published)[number]) => (parquet ? `read_parquet(${sqlString(join(snapshotDir, t.file))})` : t.name);
    const union = published.length > 0 ? published.map((t) => `SELECT '${t.name}' AS source_table, ${columns} FROM ${from(t)}`).join(" UNION ALL ") : empty;
    await c.run(`CREATE TEMP VIEW ${kind} AS ${union}`);
  }
  await c.run(`CREATE TEMP VIEW facts AS SELECT * FROM read_parquet(${sqlString(join(snapshotDir, manifest.files.facts))})`);
  await c.run(`CREATE TEMP VIEW entities AS SELECT * FROM read_parquet(${sqlString(join(snapshotDir, manifest.files.entities))})`);
  return {
    duck,
    c,
    tables,
    close() {
      c.closeSync();
      duck.closeSync();
    },
  };
}
