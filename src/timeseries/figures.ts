/**
 * @module timeseries/figures
 * An entity's latest figures from every series table that has rows for it (price, market cap,
 * volume, TVL, fees, revenue, ...), each with its as-of date, source and table: the numbers explore
 * shows under market and financial_metrics. An entity with no series gets no numbers in their
 * place: explore and insights say so (NO_SERIES_NOTE).
 */
import { z } from "zod";
import type { SnapshotManifest } from "../snapshot/manifest.ts";
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
  const tables = manifest.timeseries.filter((t) => FIGURES[t.kind as Kind]);
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

/** The published tables that have rows for the entity (one query over all of them). */
export async function seriesTablesOf(store: TimeseriesStore, manifest: SnapshotManifest, entityId: string): Promise<string[]> {
  if (manifest.timeseries.length === 0) return [];
  const id = sqlString(entityId);
  const rows = await store.rows<{ t: string }>(
    manifest.timeseries.map((t) => `SELECT ${sqlString(t.name)} AS t WHERE EXISTS (SELECT 1 FROM ${t.name} WHERE entity_id = ${id})`).join(" UNION ALL "),
  );
  return rows.map((r) => r.t).sort();
}
