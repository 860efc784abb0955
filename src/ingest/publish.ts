/**
 * @module ingest/publish
 * An ingest's last stage (ingest/ingest.ts lists them all), `publish`: the run's report written
 * into the new snapshot (ingest.json), the snapshot signed when a key is set, then renamed into
 * snapshots/ with CURRENT pointed at it (store/data-dir.ts), so a running server picks it up. Only
 * then do the cursors advance and the run's saved answers go; older snapshots are pruned.
 */
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../log.ts";
import type { StageTools } from "../pipeline.ts";
import { type DataDir, publishSnapshot, snapshotPath } from "../store/data-dir.ts";
import type { SnapshotManifest } from "../store/manifest.ts";
import type { IngestRun } from "./options.ts";
import type { ProviderRead, ProviderReport } from "./read-providers.ts";
import type { Resolution, ResolveStats } from "./resolve/types.ts";
import { type Cursors, advanceCursors, clearRun, writeJson } from "./run-state.ts";
import type { Staged } from "./new-snapshot.ts";
import type { Base } from "./update-world.ts";

const INGEST_REPORT_FILE = "ingest.json";
/** Snapshots kept besides the live one (a server may still answer from the previous one for a moment). */
const KEEP_PREVIOUS = 2;

export interface IngestReport {
  snapshot_id: string;
  base_snapshot_id: string;
  providers: ProviderReport[];
  resolution: ResolveStats;
  conflicts: number;
  changes: { CREATE: number; UPDATE: number };
  entities: number;
  /** Where the time went: providers (fetch and parse), base (reading the live snapshot), resolve (and the changes), series, search, write (graph dump, tables, manifest). */
  steps_ms: Record<"providers" | "base" | "resolve" | "series" | "search" | "write", number>;
  duration_ms: number;
}

type Published = IngestRun & Base & Staged & { cursors: Cursors; outputs: ProviderRead[]; reports: ProviderReport[]; resolution: Resolution; manifest: SnapshotManifest };

/** Stage `publish`: the report, the signature, the publish itself; then the cursors, the run folder and old snapshots. */
export async function publish(input: Published, tools: StageTools): Promise<{ report: IngestReport }> {
  const { options, base, staging, snapshotId: id, baseId, resolution, manifest } = input;
  const { dir, log, source } = options;
  const { world } = base;
  const ms = (stage: string) => tools.ms[stage] ?? 0;
  const changes = { CREATE: world.changes.filter((c) => c.operation === "CREATE").length, UPDATE: world.changes.filter((c) => c.operation === "UPDATE").length };
  const report: IngestReport = {
    snapshot_id: id,
    base_snapshot_id: baseId,
    providers: input.reports,
    resolution: resolution.stats,
    conflicts: resolution.conflicts.length,
    changes,
    entities: manifest.counts.entities,
    steps_ms: { providers: ms("fetch") + ms("parse"), base: ms("base"), resolve: ms("resolve") + ms("diff"), series: ms("series"), search: ms("search"), write: ms("write") },
    duration_ms: Math.round(performance.now() - input.started),
  };
  writeJson(join(staging, INGEST_REPORT_FILE), report);
  await options.sign?.(staging, id);
  publishSnapshot(dir, id);
  log.info({ snapshot: id, entities: manifest.counts.entities, changes, conflicts: report.conflicts }, "ingest published");

  // Cursors advance only from rows that were published: a history skipped is asked again from the same day.
  if (source.kind === "fetch") {
    advanceCursors(dir, input.cursors, input.outputs.map((o) => o.output));
    clearRun(dir);
  }
  pruneSnapshots(dir, id, baseId, log);
  return { report };
}

/**
 * Keeps the live snapshot, the one it replaced (named, not the newest others: a publish killed
 * before its switch leaves a newer snapshot that never went live) and the newest others up to
 * KEEP_PREVIOUS.
 */
function pruneSnapshots(dir: DataDir, live: string, replaced: string, log: Logger): void {
  const others = readdirSync(dir.snapshots).filter((name) => name !== live && name !== replaced).sort();
  for (const old of others.slice(0, Math.max(0, others.length - (KEEP_PREVIOUS - 1)))) {
    rmSync(snapshotPath(dir, old), { recursive: true, force: true });
    log.info({ snapshot: old }, "old snapshot removed");
  }
}
