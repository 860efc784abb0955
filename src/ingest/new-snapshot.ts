/**
 * @module ingest/new-snapshot
 * An ingest's stages that build the new snapshot in its staging folder, tmp/<id> (ingest/ingest.ts
 * lists them all): `series`, the series tables merged with the stored history and the query
 * database (ingest/series.ts); `search`, the search index updated for what changed
 * (ingest/search-update.ts); `write`, the graph dump, the world's tables and the manifest
 * (snapshot/write.ts), with the identity map and the conflicts kept.
 */
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GROUND_TRUTH_FILE, type SeriesTable } from "../model/series.ts";
import type { SearchIndexInfo } from "../search/build-index.ts";
import { newSnapshotId, stagingPath } from "../store/data-dir.ts";
import { withConnection } from "../store/duckdb.ts";
import type { SnapshotManifest } from "../store/manifest.ts";
import { writeSnapshot } from "../snapshot/write.ts";
import { publishedTables, updateTimeseriesDb } from "../timeseries/database.ts";
import type { Kind } from "../timeseries/kinds.ts";
import { IDENTITY_FILE } from "./base-world.ts";
import { deriveInsiderFlows } from "./derived-flows.ts";
import type { IngestRun } from "./options.ts";
import type { ProviderRead, ProviderReport } from "./read-providers.ts";
import type { Resolution } from "./resolve/types.ts";
import { writeJson } from "./run-state.ts";
import { searchIndex } from "./search-update.ts";
import { type ProviderSeries, writeSeries } from "./series.ts";
import type { Base } from "./update-world.ts";

const CONFLICTS_FILE = "conflicts.json";

export interface Staged {
  snapshotId: string;
  /** The new snapshot's as-of instant. */
  asOf: Date;
  staging: string;
  tables: SeriesTable[];
  /** The query database's path in the snapshot. */
  timeseriesDb: string;
}

/** Stage `series`: every provider's rows, on resolved entities, into the new snapshot's tables beside the base's; the flows derived from holders; the query database. */
export async function buildSeries({ options, today, duck, base, baseDir, baseManifest, outputs, resolution }: IngestRun & Base & { outputs: ProviderRead[]; resolution: Resolution }): Promise<Staged> {
  const { world } = base;
  const asOf = new Date();
  const snapshotId = newSnapshotId(asOf);
  const staging = stagingPath(options.dir, snapshotId);
  const fresh: ProviderSeries[] = [];
  for (const { output } of outputs) {
    for (const [kind, rows] of output.series) {
      fresh.push({ provider: output.provider, provenance: output.provider, kind: kind as Kind, rows: resolution.resolveRows(rows) });
    }
  }
  const synthetic = (s: string) => world.sources.get(s)?.synthetic === true;
  const written = await withConnection(duck, (c) => writeSeries(c, staging, { dir: baseDir, manifest: baseManifest, today }, fresh, synthetic, (s) => world.sources.has(s)));
  const { rebuilt, pruned } = written;
  // Flows derived from the holder snapshots replace the base's copy of them.
  const derived = await withConnection(duck, (c) => deriveInsiderFlows(c, staging, written.tables, world, synthetic));
  const tables = [...written.tables.filter((t) => !derived.some((d) => d.name === t.name)), ...derived];
  for (const d of derived) rebuilt.add(d.name);
  const timeseriesDb = await updateTimeseriesDb(staging, baseDir, publishedTables(tables), { rebuilt, pruned });
  return { snapshotId, asOf, staging, tables, timeseriesDb };
}

/** Stage `search`: the base's search index updated for the entities this run changed (built afresh when the demo was left out). */
export async function updateSearch(
  { options, base, staging, baseDir, baseManifest, resolution, shownToNeighbours, demoRemoved }: IngestRun & Base & Staged & { resolution: Resolution },
): Promise<{ search: SearchIndexInfo }> {
  const rebuild = demoRemoved > 0;
  return { search: await searchIndex(base.world, staging, { dir: baseDir, manifest: baseManifest }, resolution.touched, shownToNeighbours, { ...options, rebuild }, options.log) };
}

/** Stage `write`: the world's files, the graph tables and the manifest; the identity map and the conflicts beside them. */
export async function writeFiles(
  input: IngestRun & Base & Staged & { reports: ProviderReport[]; resolution: Resolution; search: SearchIndexInfo },
): Promise<{ manifest: SnapshotManifest }> {
  const { options, base, baseDir, baseManifest, staging, resolution } = input;
  const truth = options.withoutDemo ? [] : readGroundTruth(baseDir, baseManifest, staging);
  const sourceAsOf = Object.fromEntries([...baseManifest.sources.map((s) => [s.id, s.as_of]), ...input.reports.map((r) => [r.id, r.as_of])]);
  const manifest = await writeSnapshot(base.world, {
    id: input.snapshotId,
    series: { tables: input.tables, truth },
    timeseriesDb: input.timeseriesDb,
    search: input.search,
    dir: staging,
    ns: baseManifest.namespaces,
    asOf: input.asOf,
    scale: baseManifest.build.scale,
    seed: baseManifest.build.seed,
    startedAt: input.started,
    sourceAsOf,
    log: options.log,
  });
  writeJson(join(staging, IDENTITY_FILE), Object.fromEntries(resolution.identity));
  writeJson(join(staging, CONFLICTS_FILE), resolution.conflicts);
  return { manifest };
}

/** The demo's planted anomalies stay documented while their series are kept. */
function readGroundTruth(baseDir: string, manifest: SnapshotManifest, staging: string) {
  if (!manifest.ground_truth) return [];
  copyFileSync(join(baseDir, manifest.ground_truth), join(staging, GROUND_TRUTH_FILE));
  return (JSON.parse(readFileSync(join(staging, GROUND_TRUTH_FILE), "utf8")) as { anomalies?: [] }).anomalies ?? [];
}
