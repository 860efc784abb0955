/**
 * @module ingest/ingest
 * `ckg ingest` and `ckg import`: provider data into a new snapshot beside the live one.
 *
 *   fetch    each provider's answers into ingest/run/raw (skipping answers a killed run saved)
 *   parse    the saved answers into claims and series rows (the same parsers for an import)
 *   resolve  claims onto the live snapshot's world: one entity per real thing
 *   build    series tables, search index, graph dump and manifest in tmp/<id>
 *   publish  rename into snapshots/ and point CURRENT at it: the running server picks it up
 *
 * Nothing touches the live snapshot: a failure or a kill at any step leaves it serving, and the
 * next run resumes from the saved answers. One refusal never stops a run: a request a provider
 * refuses (after its retries) is skipped and listed in the report (`skipped`), and the run
 * publishes what the others gave; only a run that got nothing at all from any provider publishes
 * nothing. Cursors (the last day stored per history) advance only from rows that were published,
 * so a skipped history is asked again from the same day next time.
 */
import { copyFileSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { GROUND_TRUTH_FILE } from "../model/series.ts";
import type { Logger } from "../log.ts";
import { acquireBuildLock } from "../snapshot/build.ts";
import { readManifest, type SnapshotManifest } from "../store/manifest.ts";
import { writeSnapshot } from "../snapshot/write.ts";
import { type DataDir, clearStaleStaging, liveSnapshotId, newSnapshotId, publishSnapshot, snapshotPath, stagingPath } from "../store/data-dir.ts";
import { DUCK_RESOURCES, openDuck, withConnection } from "../store/duckdb.ts";
import { publishedTables, updateTimeseriesDb } from "../timeseries/database.ts";
import type { Kind } from "../timeseries/kinds.ts";
import { IDENTITY_FILE, dropDemoData, loadBaseWorld } from "./base-world.ts";
import { deriveInsiderFlows } from "./derived-flows.ts";
import { diffChanges, fingerprints } from "./diff.ts";
import { type IngestOptions, IngestError } from "./options.ts";
import { type ProviderReport, readProviders } from "./read-providers.ts";
import { RawStore } from "./raw-store.ts";
import { resolve } from "./resolve/index.ts";
import type { ResolveStats } from "./resolve/types.ts";
import { advanceCursors, clearRun, prepareRun, readCursors, writeJson } from "./run-state.ts";
import { neighbourSignatures, searchIndex } from "./search-update.ts";
import { type ProviderSeries, writeSeries } from "./series.ts";
import { isoSeconds } from "../time.ts";


const CONFLICTS_FILE = "conflicts.json";
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
  /** Where the time went: providers (fetch and parse), base (reading the live snapshot), resolve, series, search, write (graph dump, tables, manifest). */
  steps_ms: Record<"providers" | "base" | "resolve" | "series" | "search" | "write", number>;
  duration_ms: number;
}

export async function ingest(options: IngestOptions): Promise<IngestReport> {
  const { dir, log, source } = options;
  const started = performance.now();
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const baseId = liveSnapshotId(dir);
  const release = acquireBuildLock(dir);
  try {
    clearStaleStaging(dir);
    const providers = source.kind === "fetch" ? [...source.providers.keys()] : source.providers;
    const raw = source.kind === "fetch" ? new RawStore(prepareRun(dir, today, providers, log)) : new RawStore(source.from);
    const cursors = readCursors(dir);
    const { reports, outputs } = await readProviders(options, providers, raw, cursors, today);
    if (reports.every((r) => r.records === 0 && r.rows === 0 && r.links === 0)) {
      const why = reports.flatMap((r) => r.skipped.slice(0, 3).map((s) => `${r.id} ${s.request}: ${s.reason}`));
      throw new IngestError(`no provider gave anything to publish${why.length > 0 ? `:\n${why.join("\n")}` : ""}`);
    }

    const steps: IngestReport["steps_ms"] = { providers: Math.round(performance.now() - started), base: 0, resolve: 0, series: 0, search: 0, write: 0 };
    let mark = performance.now();
    const lap = (step: keyof IngestReport["steps_ms"]) => {
      steps[step] = Math.round(performance.now() - mark);
      mark = performance.now();
    };
    const baseDir = snapshotPath(dir, baseId);
    const baseManifest = readManifest(baseDir);
    const duck = await openDuck({ memoryLimit: DUCK_RESOURCES.batchMemory });
    try {
      const base = await loadBaseWorld(duck, baseDir, baseManifest);
      const { world } = base;
      const before = fingerprints(world);
      const hadEntity = new Set(world.entities.keys());
      const shownToNeighbours = neighbourSignatures(world);
      const demoRemoved = options.withoutDemo ? dropDemoData(world) : 0;
      if (demoRemoved > 0) log.info({ entities: demoRemoved }, "demo data left out");
      lap("base");
      for (const { source: info } of outputs) if (!world.sources.has(info.id)) world.addSource(info);
      const asOfById = new Map(reports.map((r) => [r.id, r.as_of]));
      const resolution = resolve(base, outputs.map((o) => ({ ...o, asOf: asOfById.get(o.output.provider)! })), log);
      const firstSource = new Map<string, string>();
      for (const { output, source: info } of outputs) {
        for (const claim of output.claims) {
          const id = resolution.idOf(claim.keys[0]!);
          if (id && !firstSource.has(id)) firstSource.set(id, info.id);
        }
      }
      const now = isoSeconds();
      world.changes.push(...diffChanges(before, (id) => hadEntity.has(id), world, resolution.touched, (id) => firstSource.get(id) ?? outputs[0]?.source.id ?? "ckg", now));
      const problems = world.validate();
      if (problems.length > 0) throw new IngestError(`the resolved world is inconsistent:\n${problems.join("\n")}`);
      lap("resolve");

      const asOf = new Date();
      const id = newSnapshotId(asOf);
      const staging = stagingPath(dir, id);
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
      lap("series");
      const search = await searchIndex(world, staging, { dir: baseDir, manifest: baseManifest }, resolution.touched, shownToNeighbours, { ...options, rebuild: demoRemoved > 0 }, log);
      lap("search");
      const truth = options.withoutDemo ? [] : readGroundTruth(baseDir, baseManifest, staging);
      const sourceAsOf = Object.fromEntries([...baseManifest.sources.map((s) => [s.id, s.as_of]), ...reports.map((r) => [r.id, r.as_of])]);
      const manifest = await writeSnapshot(world, {
        id,
        series: { tables, truth },
        timeseriesDb,
        search,
        dir: staging,
        ns: baseManifest.namespaces,
        asOf,
        scale: baseManifest.build.scale,
        seed: baseManifest.build.seed,
        startedAt: started,
        sourceAsOf,
        log,
      });
      writeJson(join(staging, IDENTITY_FILE), Object.fromEntries(resolution.identity));
      writeJson(join(staging, CONFLICTS_FILE), resolution.conflicts);
      lap("write");
      const changes = { CREATE: world.changes.filter((c) => c.operation === "CREATE").length, UPDATE: world.changes.filter((c) => c.operation === "UPDATE").length };
      const report: IngestReport = {
        snapshot_id: id,
        base_snapshot_id: baseId,
        providers: reports,
        resolution: resolution.stats,
        conflicts: resolution.conflicts.length,
        changes,
        entities: manifest.counts.entities,
        steps_ms: steps,
        duration_ms: Math.round(performance.now() - started),
      };
      writeJson(join(staging, INGEST_REPORT_FILE), report);
      await options.sign?.(staging, id);
      publishSnapshot(dir, id);
      log.info({ snapshot: id, entities: manifest.counts.entities, changes, conflicts: report.conflicts }, "ingest published");

      if (source.kind === "fetch") {
        advanceCursors(dir, cursors, outputs.map((o) => o.output));
        clearRun(dir);
      }
      pruneSnapshots(dir, id, baseId, log);
      return report;
    } finally {
      duck.closeSync();
    }
  } finally {
    release();
  }
}

/** The demo's planted anomalies stay documented while their series are kept. */
function readGroundTruth(baseDir: string, manifest: SnapshotManifest, staging: string) {
  if (!manifest.ground_truth) return [];
  copyFileSync(join(baseDir, manifest.ground_truth), join(staging, GROUND_TRUTH_FILE));
  return (JSON.parse(readFileSync(join(staging, GROUND_TRUTH_FILE), "utf8")) as { anomalies?: [] }).anomalies ?? [];
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
