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
import type { StateStore } from "../store/state.ts";
import type { Kind } from "../timeseries/kinds.ts";
import type { Detector, Finding, ScanContext, ScoredFinding } from "./detector.ts";
import { DETECTORS } from "./detectors/index.ts";
import { type GraphFacts, loadGraphFacts } from "./graph-facts.ts";
import { signalId, signalKey } from "./identity.ts";
import type { Narrator } from "./narratives.ts";
import { type ApplyCounts, type IdentifiedCandidate, applyScan, openEpisodes } from "./qualify.ts";
import { finishScan, startScan } from "./store.ts";
import { renewLease } from "../store/runs.ts";
import { openScanInputs } from "./scan-inputs.ts";
import { type Candidate, scoreFinding } from "./score.ts";
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

export interface TypeReport {
  type: string;
  ms: number;
  found: number;
  below_threshold: number;
  duplicates: number;
  /** Findings from synthetic data that named only real entities (dropped: demo data says nothing about them). */
  real_only_dropped: number;
  by_severity: Record<string, number>;
  error?: string;
}

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
  const reports: TypeReport[] = [];
  const errors: { type: string; message: string }[] = [];
  const candidates: IdentifiedCandidate[] = [];
  const ran: string[] = [];
  const inputs = await openScanInputs(dir, manifest, { memoryLimit: options.memoryLimit ?? "4GB", threads: 2, from: options.from });
  try {
    const syntheticSources = new Set(manifest.sources.filter((s) => s.synthetic).map((s) => s.id));
    const graph = await loadGraphFacts(inputs.c, [...syntheticSources]);
    const earlier: ScoredFinding[] = [];
    const ctx: ScanContext = {
      c: inputs.c,
      asOf,
      day: (n) => `(DATE '${asOf}' - INTERVAL (${n}) DAY)::DATE`,
      graph,
      earlier,
      narrator: options.narrator,
    };
    const provenance = findingProvenance(manifest, syntheticSources, graph, inputs.tables);
    const isReal = (id: string) => {
      const source = graph.sourceOf(id);
      return source !== undefined && !syntheticSources.has(source);
    };
    for (const [index, detector] of detectors.entries()) {
      const t0 = performance.now();
      const report: TypeReport = { type: detector.slug, ms: 0, found: 0, below_threshold: 0, duplicates: 0, real_only_dropped: 0, by_severity: {} };
      try {
        const findings = await detector.detect(ctx);
        const byKey = new Map<string, Omit<Candidate, "key">>();
        for (const found of findings) {
          const { synthetic } = provenance(detector, found);
          // Demo data speaks of generated entities only: a real entity it reaches through a synthetic
          // link (a synthetic market's real asset) is left out, and a finding left about no one is dropped.
          const finding = synthetic ? { ...found, entities: found.entities.filter((e) => !isReal(e)) } : found;
          if (finding.entities.length === 0) {
            report.real_only_dropped++;
            continue;
          }
          const { sources } = provenance(detector, finding);
          const scored = scoreFinding(detector, finding, { asOf, ns: manifest.namespaces, sources, synthetic });
          if (!scored) {
            report.below_threshold++;
            continue;
          }
          const key = signalKey(scored.uris, finding.key);
          const previous = byKey.get(key);
          if (previous) report.duplicates++;
          if (!previous || scored.score > previous.score) byKey.set(key, scored);
        }
        const episodes = await openEpisodes(options.state, detector.slug);
        for (const [key, scored] of byKey) {
          const open = episodes.get(key);
          const episodeStart = open !== undefined && open <= asOf ? open : asOf;
          const id = signalId(detector.slug, key, episodeStart);
          candidates.push({ ...scored, key, signalId: id, episodeStart });
          report.by_severity[scored.severity] = (report.by_severity[scored.severity] ?? 0) + 1;
          earlier.push({
            signalId: id,
            type: detector.slug,
            category: detector.category,
            inputs: detector.inputs,
            entities: scored.finding.entities,
            score: scored.score,
            severity: scored.severity,
            summary: scored.finding.summary,
            synthetic: scored.evidence.synthetic === true,
            screened: scored.failed.length === 0,
            evidence: scored.evidence,
          });
        }
        report.found = byKey.size;
        ran.push(detector.slug);
      } catch (error) {
        report.error = (error as Error).message;
        errors.push({ type: detector.slug, message: report.error });
        options.log.error({ type: detector.slug, err: report.error }, "signal type failed; the scan goes on");
      }
      report.ms = Math.round(performance.now() - t0);
      reports.push(report);
      options.onProgress?.({ ...report, index, total: detectors.length });
    }
  } finally {
    inputs.close();
  }

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

/**
 * What one finding was computed from, and whether any of it is generated demo data: the published
 * tables its data points come from, and for graph types the sources of the entities it names (a
 * synthetic fact only links generated entities: graph-facts.ts). Derived types say themselves
 * whether a signal they link is synthetic. Per finding, not per type: once an ingest adds real
 * series beside the demo's, a signal on real data is not labelled synthetic.
 */
function findingProvenance(
  manifest: SnapshotManifest,
  syntheticSources: Set<string>,
  graph: GraphFacts,
  tables: Map<Kind, string[]>,
): (detector: Detector, finding: Finding) => { sources: string[]; synthetic: boolean } {
  const provenanceOf = new Map(manifest.timeseries.map((t) => [t.name, t.provenance]));
  return (detector, finding) => {
    const sources = new Set<string>();
    for (const point of finding.dataPoints) if (provenanceOf.has(point.table)) sources.add(point.table);
    if (detector.inputs.some((input) => input.startsWith("graph:"))) {
      for (const entity of finding.entities) {
        const source = graph.sourceOf(entity);
        if (source) sources.add(source);
      }
    }
    if (sources.size === 0) {
      // Nothing named by the finding: every table the type reads (or the signals it derives from).
      for (const input of detector.inputs) for (const table of input.startsWith("ts:") ? (tables.get(input.slice(3) as Kind) ?? []) : []) sources.add(table);
    }
    const list = sources.size > 0 ? [...sources].sort() : ["signals"];
    const synthetic = finding.synthetic === true || list.some((s) => syntheticSources.has(provenanceOf.get(s) ?? s));
    return { sources: list, synthetic };
  };
}
