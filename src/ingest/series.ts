/**
 * @module ingest/series
 * The new snapshot's series tables. A provider's rows of a kind go to `ts_<provider>_<kind>`,
 * merged with that table in the live snapshot as keep-history.ts says (append-or-correct: this
 * run's values correct the stored ones of the same entity and day, its missing values and missing
 * rows leave them), so a run that fetched only new days, or an answer that lacks a column, loses
 * nothing. The demo's tables are copied without the rows of entities a provider now covers with
 * the same kind: real data replaces synthetic data of the same entity.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { TS_DIR, type SeriesTable } from "../model/series.ts";
import type { SnapshotManifest } from "../store/manifest.ts";
import { sqlString } from "../store/duckdb.ts";
import { KINDS, type Kind, SERIES_ORDER, SERIES_PARQUET, tableName } from "../timeseries/kinds.ts";
import { mergeSelect } from "./keep-history.ts";
import type { SeriesRow } from "./records.ts";

export interface WrittenSeries {
  tables: SeriesTable[];
  /** Tables whose rows this run wrote (the query database loads them again). */
  rebuilt: Set<string>;
  /** Demo tables that lost the rows of entities the given provider files now cover. */
  pruned: Map<string, string[]>;
}

export interface ProviderSeries {
  provider: string;
  /** The source id its rows carry (named graph, /api/schema). */
  provenance: string;
  kind: Kind;
  rows: SeriesRow[];
}

export async function writeSeries(
  c: DuckDBConnection,
  staging: string,
  /** `today`: the run's day; a schedule's future rows this run no longer lists are dropped (keep-history.ts). */
  base: { dir: string; manifest: SnapshotManifest; today?: string },
  fresh: ProviderSeries[],
  isSyntheticSource: (source: string) => boolean,
  /** False for sources dropped from the world (the demo, with --without-demo): their tables are left out. */
  hasSource: (source: string) => boolean = () => true,
): Promise<WrittenSeries> {
  mkdirSync(join(staging, TS_DIR), { recursive: true });
  const tables: SeriesTable[] = [];
  const written = new Set<string>();
  const pruned = new Map<string, string[]>();
  const oldFile = (name: string) => {
    const t = base.manifest.timeseries.find((x) => x.name === name);
    return t ? join(base.dir, t.file) : undefined;
  };

  for (const series of fresh) {
    const name = tableName(series.provider, series.kind);
    const columns = KINDS[series.kind].columns;
    const stage = `new_${name}`;
    // `ord`: the order the parser gave the rows in (a key's later row wins, keep-history.ts).
    await c.run(`CREATE OR REPLACE TEMP TABLE ${stage} (${columns.map((col) => `"${col.name}" ${col.type === "DATE" ? "VARCHAR" : col.type}`).join(", ")}, ord BIGINT)`);
    const appender = await c.createAppender(stage);
    for (const [ord, row] of series.rows.entries()) {
      for (const col of columns) {
        const value = row[col.name];
        if (value === null || value === undefined || (typeof value === "number" && !Number.isFinite(value))) appender.appendNull();
        else if (col.type === "DOUBLE") appender.appendDouble(Number(value));
        else if (col.type === "BIGINT") appender.appendBigInt(BigInt(Math.round(Number(value))));
        else if (col.type === "BOOLEAN") appender.appendBoolean(Boolean(value));
        else appender.appendVarchar(String(value));
      }
      appender.appendBigInt(BigInt(ord));
      appender.endRow();
    }
    appender.closeSync();
    const select = mergeSelect(series.kind, stage, oldFile(name), base.today);
    tables.push(await copyTable(c, staging, name, series.kind, series.provider, series.provenance, select));
    written.add(name);
  }

  // Entities each kind now has provider rows for: the demo's rows of them give way.
  const covered = new Map<Kind, string[]>();
  for (const t of tables) covered.set(t.kind, [...(covered.get(t.kind) ?? []), join(staging, t.file)]);
  for (const old of base.manifest.timeseries) {
    if (written.has(old.name) || !hasSource(old.provenance)) continue;
    const kind = old.kind as Kind;
    const from = join(base.dir, old.file);
    const replacing = isSyntheticSource(old.provenance) ? (covered.get(kind) ?? []) : [];
    if (replacing.length === 0) {
      copyFileSync(from, join(staging, old.file));
      tables.push({ ...old, kind });
      continue;
    }
    const select = `SELECT * FROM read_parquet(${sqlString(from)}) WHERE entity_id NOT IN (SELECT entity_id FROM read_parquet([${replacing.map(sqlString).join(", ")}]))`;
    tables.push(await copyTable(c, staging, old.name, kind, old.source, old.provenance, select));
    pruned.set(old.name, replacing);
  }
  return { tables, rebuilt: written, pruned };
}

/** Writes `select` as the table `name` of the new snapshot (its Parquet file, ordered as every series), with its row count and days. */
export async function copyTable(c: DuckDBConnection, staging: string, name: string, kind: Kind, source: string, provenance: string, select: string): Promise<SeriesTable> {
  const file = `${TS_DIR}/${name}.parquet`;
  await c.run(`CREATE OR REPLACE TEMP TABLE out_table AS ${select}`);
  await c.run(`COPY (SELECT * FROM out_table ORDER BY ${SERIES_ORDER}) TO ${sqlString(join(staging, file))} ${SERIES_PARQUET}`);
  const stats = (await c.runAndReadAll(`SELECT count(*)::BIGINT AS n, min(date)::VARCHAR AS first, max(date)::VARCHAR AS last FROM out_table`)).getRowObjectsJS()[0]!;
  return { name, kind, source, provenance, file, rows: Number(stats.n), first_date: (stats.first as string | null) ?? null, last_date: (stats.last as string | null) ?? null };
}
