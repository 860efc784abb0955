/**
 * @module timeseries/figures
 * An entity's latest figures from every series table that has rows for it (price, market cap,
 * volume, TVL, fees, revenue, ...), each with its as-of date, source and table: the numbers explore
 * shows under market and financial_metrics. An entity with no series gets no numbers in their
 * place: explore and insights say so (NO_SERIES_NOTE).
 *
 * Both are read once per snapshot, when it loads (one GROUP BY per table over the full data's 72 M
 * rows, about 5 s), and kept: about 100,000 (entity, table) pairs and 65,000 latest rows at full
 * scale, a few MB. Asked per request instead, one protocol's latest row scanned its whole table
 * (the rows are stored by month, and a zone map keeps only 8 bytes of an id): 120-180 ms per
 * explore of a protocol or lending market at 32 clients, the slowest part of explore by far. The
 * read runs in a DuckDB instance of its own, closed afterwards: in the server's query instance the
 * pages it read stayed cached (2 GB more RSS).
 */
import { z } from "zod";
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import type { SnapshotManifest } from "../store/manifest.ts";
import { openDuck, withConnection } from "../store/duckdb.ts";
import { FIGURES, type Kind } from "./kinds.ts";

/** Memory of the instance that reads them: the reads stream, and what it caches goes when it closes. */
const READ_MEMORY = "256MB";

export const figureSchema = z.object({
  metric: z.string(),
  value: z.number().nullable(),
  as_of: z.string(),
  source: z.string(),
  table: z.string(),
});
export type Figure = z.infer<typeof figureSchema>;

export type FiguresByCategory = Partial<Record<"market" | "financial_metrics", Figure[]>>;

/** What explore and insights say of an entity no published table has rows for (a real entity before an ingest). */
export const NO_SERIES_NOTE =
  "No time-series data yet for this entity; run `ckg ingest` to load real figures from the data providers (DefiLlama, CoinGecko, ...).";

/** One figures table's latest rows: row r of entity `rows.get(id)` has `columns.length` values from r * columns.length. */
interface LatestRows {
  name: string;
  category: "market" | "financial_metrics";
  source: string;
  columns: string[];
  rows: Map<string, number>;
  asOf: string[];
  /** NaN: the value is null in the table. */
  values: Float64Array;
}

/** The series tables and latest figures of every entity of one snapshot's time-series. */
export class EntitySeries {
  private constructor(
    private readonly tables: Map<string, string[]>,
    private readonly latest: LatestRows[],
  ) {}

  /** Reads them from a snapshot's query database (timeseries/database.ts). */
  static async read(snapshotDir: string, manifest: SnapshotManifest): Promise<EntitySeries> {
    const duck = await openDuck({ path: join(snapshotDir, manifest.timeseries_db), memoryLimit: READ_MEMORY, settings: { access_mode: "READ_ONLY" } });
    try {
      return await withConnection(duck, async (c) => {
        await c.run(`SET temp_directory = ''`); // nothing is written next to a published snapshot
        return await EntitySeries.readWith(c, manifest);
      });
    } finally {
      duck.closeSync();
    }
  }

  private static async readWith(c: DuckDBConnection, manifest: SnapshotManifest): Promise<EntitySeries> {
    const tables = new Map<string, string[]>();
    if (manifest.timeseries.length > 0) {
      const rows = await rowsOf<{ id: string; t: number }>(
        c,
        `${manifest.timeseries.map((t, i) => `SELECT DISTINCT entity_id AS id, ${i} AS t FROM ${t.name}`).join(" UNION ALL ")} ORDER BY t`,
      );
      for (const { id, t } of rows) {
        const name = manifest.timeseries[t]!.name;
        const list = tables.get(id);
        if (list) list.push(name);
        else tables.set(id, [name]);
      }
    }
    const latest: LatestRows[] = [];
    for (const t of manifest.timeseries) {
      const spec = FIGURES[t.kind as Kind];
      if (spec) latest.push(await latestRows(c, t.name, t.provenance, spec));
    }
    return new EntitySeries(tables, latest);
  }

  /** The published tables that have rows for the entity. */
  tablesOf(entityId: string): string[] {
    return [...(this.tables.get(entityId) ?? [])];
  }

  /** The entity's latest row of each figures table that has rows for it. */
  latestFigures(entityId: string): FiguresByCategory {
    const out: FiguresByCategory = {};
    for (const table of this.latest) {
      const row = table.rows.get(entityId);
      if (row === undefined) continue;
      const figures = (out[table.category] ??= []);
      table.columns.forEach((metric, c) => {
        const value = table.values[row * table.columns.length + c]!;
        figures.push({ metric, value: Number.isNaN(value) ? null : value, as_of: table.asOf[row]!, source: table.source, table: table.name });
      });
    }
    return out;
  }
}

/** Each entity's row of the latest date in one table, its figure columns as doubles. */
async function latestRows(c: DuckDBConnection, name: string, source: string, spec: { category: "market" | "financial_metrics"; columns: string[] }): Promise<LatestRows> {
  // The whole latest row (a struct is never null), so a null figure stays null rather than an older value.
  const fields = spec.columns.map((c, i) => `v${i} := "${c}"::DOUBLE`).join(", ");
  const found = await rowsOf<{ id: string; row: Record<string, number | null> & { as_of: string } }>(
    c,
    `SELECT entity_id AS id, max_by(struct_pack(as_of := strftime(date, '%Y-%m-%d'), ${fields}), date) AS row FROM ${name} GROUP BY entity_id`,
  );
  const rows = new Map<string, number>();
  const asOf: string[] = [];
  const dates = new Map<string, string>(); // one string per distinct date, shared by the rows
  const values = new Float64Array(found.length * spec.columns.length);
  found.forEach(({ id, row }, r) => {
    rows.set(id, r);
    const date = row.as_of;
    asOf.push(dates.get(date) ?? (dates.set(date, date), date));
    spec.columns.forEach((_, c) => (values[r * spec.columns.length + c] = row[`v${c}`] ?? Number.NaN));
  });
  return { name, category: spec.category, source, columns: spec.columns, rows, asOf, values };
}

async function rowsOf<T>(c: DuckDBConnection, sql: string): Promise<T[]> {
  return (await c.runAndReadAll(sql)).getRowObjectsJS() as T[];
}
