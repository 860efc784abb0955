/**
 * @module timeseries/figures
 * An entity's latest figures from every series table that has rows for it (price, market cap,
 * volume, TVL, fees, revenue, ...), each with its as-of date, source and table: the numbers explore
 * shows under market and financial_metrics. An entity with no series gets no numbers in their
 * place: explore and insights say so (NO_SERIES_NOTE).
 */
import { z } from "zod";
import type { SnapshotManifest } from "../store/manifest.ts";
import { sqlString } from "../store/duckdb.ts";
import { FIGURES, type Kind } from "./kinds.ts";
import type { TimeseriesStore } from "./store.ts";

export const figureSchema = z.object({
  metric: z.string(),
  value: z.number().nullable(),
  as_of: z.string(),
  source: z.string(),
  table: z.string(),
});
export type Figure = z.infer<typeof figureSchema>;

export type FiguresByCategory = Partial<Record<"market" | "financial_metrics", Figure[]>>;

export async function latestFigures(store: TimeseriesStore, manifest: SnapshotManifest, entityId: string): Promise<FiguresByCategory> {
  // Only the tables that hold rows for this entity are asked (most entities are in one or two, many in none).
  const holding = new Set(await seriesTablesOf(store, manifest, entityId));
  const tables = manifest.timeseries.filter((t) => FIGURES[t.kind as Kind] && holding.has(t.name));
  const found = await Promise.all(
    tables.map(async (table) => {
      const spec = FIGURES[table.kind as Kind]!;
      const columns = spec.columns.map((c) => `"${c}"`).join(", ");
      const [row] = await store.rows<Record<string, unknown>>(
        `SELECT strftime(date, '%Y-%m-%d') AS as_of, ${columns} FROM ${table.name} WHERE entity_id = ${sqlString(entityId)} ORDER BY date DESC LIMIT 1`,
      );
      if (!row) return [];
      return spec.columns.map((metric) => ({
        category: spec.category,
        figure: { metric, value: row[metric] == null ? null : Number(row[metric]), as_of: row.as_of as string, source: table.provenance, table: table.name },
      }));
    }),
  );
  const out: FiguresByCategory = {};
  for (const { category, figure } of found.flat()) (out[category] ??= []).push(figure);
  return out;
}

/** What explore and insights say of an entity no published table has rows for (a real entity before an ingest). */
export const NO_SERIES_NOTE =
  "No time-series data yet for this entity; run `ckg ingest` to load real figures from the data providers (DefiLlama, CoinGecko, ...).";

/**
 * Tables by entity id, per snapshot's store: one pass over every table when first asked. Asking
 * each table for one entity would scan them all for every entity without series (tens of millions
 * of rows at full scale, for every real entity's insights).
 */
const tablesByEntity = new WeakMap<TimeseriesStore, Promise<Map<string, string[]>>>();

/** The published tables that have rows for the entity. */
export async function seriesTablesOf(store: TimeseriesStore, manifest: SnapshotManifest, entityId: string): Promise<string[]> {
  let index = tablesByEntity.get(store);
  if (!index) {
    index = indexTables(store, manifest);
    tablesByEntity.set(store, index);
    index.catch(() => tablesByEntity.delete(store)); // a failed pass is tried again on the next question
  }
  return [...((await index).get(entityId) ?? [])];
}

async function indexTables(store: TimeseriesStore, manifest: SnapshotManifest): Promise<Map<string, string[]>> {
  const index = new Map<string, string[]>();
  if (manifest.timeseries.length === 0) return index;
  const rows = await store.rows<{ id: string; t: string }>(
    `${manifest.timeseries.map((t) => `SELECT DISTINCT entity_id AS id, ${sqlString(t.name)} AS t FROM ${t.name}`).join(" UNION ALL ")} ORDER BY t`,
  );
  for (const { id, t } of rows) {
    const list = index.get(id);
    if (list) list.push(t);
    else index.set(id, [t]);
  }
  return index;
}
