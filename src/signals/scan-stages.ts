/**
 * @module signals/scan-stages
 * The stages of one scan (signals/scan.ts lists them), each a function of what the stages before it
 * gave:
 *
 *   start   the live snapshot and the as-of day; the scan recorded running, its lease held
 *   inputs  the snapshot's series (a DuckDB session of the scan's own) and graph facts
 *   detect  every detector, each finding scored, screened and named (signals/detect.ts); the
 *           derived types (convergence, narratives, written by the narrator) run last, on the others
 *   apply   the signals, their qualification moves and the outbox's events: one transaction
 *           (signals/qualify.ts), so readers and the event feed see a scan whole or not at all
 *   record  the report (signals/scan-report.ts) into the scans table
 */
import type { Logger } from "../log.ts";
import { type DataDir, liveSnapshotId, snapshotPath } from "../store/data-dir.ts";
import { DUCK_RESOURCES } from "../store/duckdb.ts";
import { type SnapshotManifest, readManifest } from "../store/manifest.ts";
import { holdLease } from "../store/runs.ts";
import type { StateStore } from "../store/state.ts";
import type { StageTools } from "../pipeline.ts";
import { isoSeconds } from "../time.ts";
import { type Detection, type Identify, detectAll } from "./detect.ts";
import type { ScanContext } from "./detector.ts";
import { DETECTORS, detectorsNamed } from "./detectors/index.ts";
import { type GraphFacts, loadGraphFacts } from "./graph-facts.ts";
import { signalId } from "./identity.ts";
import type { Narrator } from "./narratives.ts";
import { applyScan, openEpisodes } from "./qualify.ts";
import { type ScanInputs, openScanInputs } from "./scan-inputs.ts";
import type { ApplyCounts, ScanReport, TypeReport } from "./scan-report.ts";
import { finishScan, startScan } from "./store.ts";

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

export interface ScanStarted {
  scanId: string;
  snapshotId: string;
  snapshotDir: string;
  manifest: SnapshotManifest;
  asOf: string;
  started: Date;
  startedMs: number;
  now: () => Date;
}

/** The scan recorded running. Until it ends its lease is held; a scan that fails is recorded failed. */
export async function start({ options }: { options: ScanOptions }, tools: StageTools): Promise<ScanStarted> {
  const now = options.now ?? (() => new Date());
  const started = now();
  const startedMs = performance.now();
  const snapshotId = liveSnapshotId(options.dir);
  const snapshotDir = snapshotPath(options.dir, snapshotId);
  const manifest = readManifest(snapshotDir);
  const asOf = options.asOf ?? manifest.as_of.slice(0, 10);
  const random = crypto.getRandomValues(new Uint8Array(3)).reduce((s, b) => s + b.toString(16).padStart(2, "0"), "");
  const scanId = `scan_${isoSeconds(started).replace(/[-:]/g, "")}_${asOf.replaceAll("-", "")}_${random}`;
  // The lease says a live process runs this scan: renewed here, and by the serving replica that
  // started it while detectors hold this event loop; unrenewed, another replica takes the scan over.
  const leaseMs = options.leaseMs ?? 60_000;
  await startScan(options.state, { scanId, startedAt: isoSeconds(started), snapshotId, asOf, trigger: options.trigger, leaseUntil: new Date(Date.now() + leaseMs) });
  tools.defer(holdLease(options.state, process.pid, leaseMs));
  tools.defer(async (error) => {
    if (!error) return;
    // Recorded failed (not left running, to be taken over and fail again); a scan no longer
    // recorded running (taken over by another replica) keeps what it says.
    await finishScan(options.state, scanId, "failed", now(), { errors: [{ type: "*", message: error.message }] }).catch(() => undefined);
  });
  return { scanId, snapshotId, snapshotDir, manifest, asOf, started, startedMs, now };
}

/** The snapshot's series and graph facts, open until `detect` is done. */
export async function inputs({ options, snapshotDir, manifest }: { options: ScanOptions } & ScanStarted, tools: StageTools): Promise<{ inputs: ScanInputs; graph: GraphFacts }> {
  const opened = await openScanInputs(snapshotDir, manifest, { memoryLimit: options.memoryLimit ?? DUCK_RESOURCES.batchMemory, from: options.from });
  tools.defer(() => opened.close());
  const syntheticSources = manifest.sources.filter((s) => s.synthetic).map((s) => s.id);
  return { inputs: opened, graph: await loadGraphFacts(opened.c, syntheticSources) };
}

/** Every detector (or those of `options.types`), in the catalog's order; the inputs are closed after. */
export async function detect(
  { options, inputs: opened, graph, manifest, asOf }: { options: ScanOptions; inputs: ScanInputs; graph: GraphFacts } & ScanStarted,
): Promise<{ detection: Detection }> {
  const detectors = options.types ? detectorsNamed(options.types).detectors : DETECTORS;
  const ctx: ScanContext = {
    c: opened.c,
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
  try {
    const detection = await detectAll(ctx, detectors, { manifest, tables: opened.tables }, identify, (report, index) => {
      if (report.error) options.log.error({ type: report.type, err: report.error }, "signal type failed; the scan goes on");
      options.onProgress?.({ ...report, index, total: detectors.length });
    });
    return { detection };
  } finally {
    // DuckDB's memory goes back before the writes.
    opened.close();
  }
}

/** The candidates written with their moves and events, as of when detection finished. */
export async function apply({ options, scanId, asOf, now, detection }: { options: ScanOptions; detection: Detection } & ScanStarted): Promise<{ applied: ApplyCounts; finished: Date }> {
  const finished = now();
  const applied = await applyScan(options.state, { scanId, asOf, now: isoSeconds(finished) }, detection.candidates, detection.ran);
  return { applied, finished };
}

/** The report, into the scans table (unless another replica took the scan over). */
export async function record(
  input: { options: ScanOptions; detection: Detection; applied: ApplyCounts; finished: Date } & ScanStarted,
  tools: StageTools,
): Promise<{ report: ScanReport }> {
  const { options, detection, applied, finished } = input;
  const { reports, errors, candidates, ran } = detection;
  const report: ScanReport = {
    scan_id: input.scanId,
    snapshot_id: input.snapshotId,
    as_of: input.asOf,
    trigger: options.trigger,
    started_at: isoSeconds(input.started),
    finished_at: isoSeconds(finished),
    duration_ms: Math.round(performance.now() - input.startedMs),
    status: errors.length === 0 ? "ok" : ran.length > 0 ? "partial" : "failed",
    types: reports,
    errors,
    state: applied,
    apply_ms: tools.ms.apply!,
  };
  await finishScan(options.state, input.scanId, report.status, finished, report);
  // Planner statistics for the reads that follow; the scan is done whether or not this works.
  await options.state.analyze(["signals", "signal_entities", "signal_moves"]).catch((error: Error) => options.log.warn({ err: error.message }, "refreshing the signal tables' statistics failed"));
  options.log.info({ scan_id: input.scanId, as_of: input.asOf, ms: report.duration_ms, signals: candidates.length, status: report.status, errors: errors.length }, "scan finished");
  return { report };
}
