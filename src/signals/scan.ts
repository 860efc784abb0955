/**
 * @module signals/scan
 * One scan: every detector over one snapshot as of one date, scored, screened, identified and
 * written with its qualification moves (signals/qualify.ts). A detector that fails is reported and
 * the others go on. The scan's start, end, per-type counts, times and errors are kept in the scans
 * table (shown in /readyz). The server runs scans in a child process (`ckg scan`), so graph
 * algorithms never hold up requests.
 */
import type { Logger } from "../log.ts";
import { type SnapshotManifest, readManifest } from "../store/manifest.ts";
import { type DataDir, liveSnapshotId, snapshotPath } from "../store/data-dir.ts";
import { DUCK_RESOURCES } from "../store/duckdb.ts";
import type { StateStore } from "../store/state.ts";
import type { ScanContext } from "./detector.ts";
import { type Detection, type Identify, type TypeReport, detectAll } from "./detect.ts";
import { DETECTORS } from "./detectors/index.ts";
import { loadGraphFacts } from "./graph-facts.ts";
import { signalId } from "./identity.ts";
import type { Narrator } from "./narratives.ts";
import { type ApplyCounts, applyScan, openEpisodes } from "./qualify.ts";
import { finishScan, startScan } from "./store.ts";
import { renewLease } from "../store/runs.ts";
import { openScanInputs } from "./scan-inputs.ts";
import { isoSeconds } from "../time.ts";

export interface ScanOptions {
  state: StateStore;
  dir: DataDir;
  narrator: Narrator;
  log: Logger;
  trigger: string;
  /** Scan the data as of this date (default: the snapshot's as-of date); earlier dates backfill. */
  asOf?: string;
  /** Only these types (default: every type). Derived types need the others in the same scan. */
  types?: string[];
  now?: () => Date;
  /** How long the scan's lease lasts unrenewed (renewed every third of it while it runs; default 60 s). */
  leaseMs?: number;
  memoryLimit?: string;
  /** Where the series are read from (default the query database; parquet is the benchmark's baseline). */
  from?: "database" | "parquet";
  onProgress?: (event: TypeReport & { index: number; total: number }) => void;
}

export type { TypeReport } from "./detect.ts";

export interface ScanReport {
  scan_id: string;
  snapshot_id: string;
  as_of: string;
  trigger: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  status: "ok" | "partial" | "failed";
  types: TypeReport[];
  errors: { type: string; message: string }[];
  state: ApplyCounts;
  /** Time to write the signals and their moves to the state store. */
  apply_ms: number;
}

export async function runScan(options: ScanOptions): Promise<ScanReport> {
  const now = options.now ?? (() => new Date());
  const started = now();
  const startedMs = performance.now();
  const snapshotId = liveSnapshotId(options.dir);
  const dir = snapshotPath(options.dir, snapshotId);
  const manifest = readManifest(dir);
  const asOf = options.asOf ?? manifest.as_of.slice(0, 10);
  const scanId = `scan_${isoSeconds(started).replace(/[-:]/g, "")}_${asOf.replaceAll("-", "")}_${crypto.getRandomValues(new Uint8Array(3)).reduce((s, b) => s + b.toString(16).padStart(2, "0"), "")}`;
  // The lease says a live process runs this scan: renewed here, and by the serving replica that
  // started it while detectors hold this event loop; unrenewed, another replica takes the scan over.
  const leaseMs = options.leaseMs ?? 60_000;
  await startScan(options.state, { scanId, startedAt: isoSeconds(started), snapshotId, asOf, trigger: options.trigger, leaseUntil: new Date(Date.now() + leaseMs) });
  const lease = setInterval(() => void renewLease(options.state, process.pid, new Date(Date.now() + leaseMs)).catch(() => undefined), leaseMs / 3);
  try {
    return await scanAndApply(options, { scanId, snapshotId, asOf, started, startedMs, now, dir, manifest });
  } catch (error) {
    // Recorded failed (not left running, to be taken over and fail again); a scan already recorded
    // (taken over, or failed in its apply) keeps what it says.
    await finishScan(options.state, scanId, "failed", now(), { errors: [{ type: "*", message: (error as Error).message }] }).catch(() => undefined);
    throw error;
  } finally {
    clearInterval(lease);
  }
}

async function scanAndApply(
  options: ScanOptions,
  { scanId, snapshotId, asOf, started, startedMs, now, dir, manifest }: { scanId: string; snapshotId: string; asOf: string; started: Date; startedMs: number; now: () => Date; dir: string; manifest: SnapshotManifest },
): Promise<ScanReport> {

  const detectors = options.types ? DETECTORS.filter((d) => options.types!.includes(d.slug)) : DETECTORS;
  const inputs = await openScanInputs(dir, manifest, { memoryLimit: options.memoryLimit ?? DUCK_RESOURCES.batchMemory, from: options.from });
  let detection: Detection;
  try {
    const syntheticSources = manifest.sources.filter((s) => s.synthetic).map((s) => s.id);
    const graph = await loadGraphFacts(inputs.c, syntheticSources);
    const ctx: ScanContext = {
      c: inputs.c,
      asOf,
      day: (n) => `(DATE '${asOf}' - INTERVAL (${n}) DAY)::DATE`,
      graph,
      earlier: [],
      narrator: options.narrator,
    };
    // A signal keeps its id while its episode is open (signals/identity.ts).
    const identify: Identify = async (detector, keys) => {
      const episodes = await openEpisodes(options.state, detector.slug);
      return new Map(
        keys.map((key) => {
          const open = episodes.get(key);
          const episodeStart = open !== undefined && open <= asOf ? open : asOf;
          return [key, { signalId: signalId(detector.slug, key, episodeStart), episodeStart }];
        }),
      );
    };
    detection = await detectAll(ctx, detectors, { manifest, tables: inputs.tables }, identify, (report, index) => {
      if (report.error) options.log.error({ type: report.type, err: report.error }, "signal type failed; the scan goes on");
      options.onProgress?.({ ...report, index, total: detectors.length });
    });
  } finally {
    inputs.close();
  }
  const { reports, errors, candidates, ran } = detection;

  const finished = now();
  const meta = { scanId, asOf, now: isoSeconds(finished) };
  let state: ApplyCounts;
  const applyStarted = performance.now();
  try {
    state = await applyScan(options.state, meta, candidates, ran);
  } catch (error) {
    // A scan taken over by another replica stays recorded as that replica left it.
    await finishScan(options.state, scanId, "failed", finished, { errors: [{ type: "*", message: (error as Error).message }] });
    throw error;
  }
  const report: ScanReport = {
    scan_id: scanId,
    snapshot_id: snapshotId,
    as_of: asOf,
    trigger: options.trigger,
    started_at: isoSeconds(started),
    finished_at: isoSeconds(finished),
    duration_ms: Math.round(performance.now() - startedMs),
    status: errors.length === 0 ? "ok" : ran.length > 0 ? "partial" : "failed",
    types: reports,
    errors,
    state,
    apply_ms: Math.round(performance.now() - applyStarted),
  };
  await finishScan(options.state, scanId, report.status, finished, { ...report });
  // Planner statistics for the reads that follow; the scan is done whether or not this works.
  await options.state.analyze(["signals", "signal_entities", "signal_moves"]).catch((error: Error) => options.log.warn({ err: error.message }, "refreshing the signal tables' statistics failed"));
  options.log.info({ scan_id: scanId, as_of: asOf, ms: report.duration_ms, signals: candidates.length, status: report.status, errors: errors.length }, "scan finished");
  return report;
}
