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
 * next run resumes from the saved answers. All or nothing: when a provider fails after its
 * retries, nothing is published. Cursors (the last day stored per history) advance only once the
 * snapshot is published, so the next run asks for the days after them.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Rng } from "../dataset/rng.ts";
import { GROUND_TRUTH_FILE } from "../dataset/series/index.ts";
import type { SourceInfo, World } from "../dataset/world.ts";
import type { Logger } from "../log.ts";
import type { Embedder } from "../search/embedder.ts";
import { type SearchIndexInfo, buildSearchIndex, updateSearchIndex } from "../search/build-index.ts";
import { LsaEmbedder } from "../search/embedder.ts";
import { loadLsa } from "../search/lsa.ts";
import { acquireBuildLock } from "../snapshot/build.ts";
import { readManifest, type SnapshotManifest } from "../store/manifest.ts";
import { writeSnapshot } from "../snapshot/write.ts";
import { type DataDir, clearStaleStaging, currentSnapshotId, newSnapshotId, publishSnapshot, snapshotPath, stagingPath } from "../store/data-dir.ts";
import { openDuck, withConnection } from "../store/duckdb.ts";
import { updateTimeseriesDb } from "../timeseries/database.ts";
import type { Kind } from "../timeseries/kinds.ts";
import { IDENTITY_FILE, dropDemoData, loadBaseWorld } from "./base-world.ts";
import type { FetchContext } from "./connector.ts";
import { diffChanges, fingerprints } from "./diff.ts";
import { type HttpOptions, ProviderHttp } from "./http.ts";
import { type ProviderConfig, connector } from "./providers/index.ts";
import { RawStore } from "./raw-store.ts";
import { type ProviderId, ProviderOutput } from "./records.ts";
import { type ResolveStats, resolve } from "./resolve.ts";
import { type ProviderSeries, writeSeries } from "./series.ts";
import { addDays, isoSeconds } from "../time.ts";

export const CONFLICTS_FILE = "conflicts.json";
export const INGEST_REPORT_FILE = "ingest.json";
/** Snapshots kept besides the live one (a server may still answer from the previous one for a moment). */
const KEEP_PREVIOUS = 2;

export type IngestSource =
  | { kind: "fetch"; providers: Map<ProviderId, ProviderConfig>; detailLimit: number; http?: Partial<Omit<HttpOptions, "log">> }
  | { kind: "import"; from: string; providers: ProviderId[] };

export interface IngestOptions {
  dir: DataDir;
  source: IngestSource;
  log: Logger;
  /** The day the run speaks for; defaults to today (UTC). */
  today?: string;
  embedder?: Embedder;
  embedderModel?: string | null;
  /** Leave the generated demo data out of the new snapshot: real data only. */
  withoutDemo?: boolean;
  onProgress?: (event: { provider: ProviderId; step: "fetch" | "parse"; done: number; total: number }) => void;
}

export interface ProviderReport {
  id: ProviderId;
  records: number;
  rows: number;
  links: number;
  rejected: number;
  /** Well-formed records left out or left unlinked, by reason (test networks, reused chain ids, missing companion answers). */
  skipped: Record<string, number>;
  requests: number;
  retries: number;
  rate_limited: number;
  fetch_ms: number;
  parse_ms: number;
  /** Entity records, series rows and links per second, fetch and parse together. */
  records_per_second: number;
  as_of: string;
  latest_day: string | null;
}

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

export class IngestError extends Error {}

const ingestRoot = (dir: DataDir) => join(dir.root, "ingest");
const runDir = (dir: DataDir) => join(ingestRoot(dir), "run");
const cursorsFile = (dir: DataDir) => join(ingestRoot(dir), "cursors.json");

type Cursors = Partial<Record<ProviderId, Record<string, string>>>;

function readCursors(dir: DataDir): Cursors {
  const file = cursorsFile(dir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Cursors) : {};
}

function writeJson(path: string, value: unknown): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 1)}\n`);
  renameSync(temporary, path);
}

export async function ingest(options: IngestOptions): Promise<IngestReport> {
  const { dir, log, source } = options;
  const started = performance.now();
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const baseId = currentSnapshotId(dir);
  if (!baseId) throw new IngestError(`${dir.root} holds no snapshot to add provider data to; run 'ckg build' (or start the server) first.`);
  const release = acquireBuildLock(dir);
  try {
    clearStaleStaging(dir);
    const providers = source.kind === "fetch" ? [...source.providers.keys()] : source.providers;
    const raw = source.kind === "fetch" ? new RawStore(prepareRun(dir, today, providers, log)) : new RawStore(source.from);
    const cursors = readCursors(dir);
    const { reports, outputs } = await readProviders(options, providers, raw, cursors, today);

    const steps: IngestReport["steps_ms"] = { providers: Math.round(performance.now() - started), base: 0, resolve: 0, series: 0, search: 0, write: 0 };
    let mark = performance.now();
    const lap = (step: keyof IngestReport["steps_ms"]) => {
      steps[step] = Math.round(performance.now() - mark);
      mark = performance.now();
    };
    const baseDir = snapshotPath(dir, baseId);
    const baseManifest = readManifest(baseDir);
    const duck = await openDuck({ threads: 2, memoryLimit: "4GB" });
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
      const { tables, rebuilt, pruned } = await withConnection(duck, (c) =>
        writeSeries(c, staging, { dir: baseDir, manifest: baseManifest }, fresh, (s) => world.sources.get(s)?.synthetic === true, (s) => world.sources.has(s)),
      );
      const timeseriesDb = await updateTimeseriesDb(staging, baseDir, tables.map((t) => ({ ...t, source: t.provenance })), { rebuilt, pruned });
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
      publishSnapshot(dir, id);
      log.info({ snapshot: id, entities: manifest.counts.entities, changes, conflicts: report.conflicts }, "ingest published");

      if (source.kind === "fetch") {
        advanceCursors(dir, cursors, outputs.map((o) => o.output));
        rmSync(runDir(dir), { recursive: true, force: true });
      }
      pruneSnapshots(dir, id, log);
      return report;
    } finally {
      duck.closeSync();
    }
  } finally {
    release();
  }
}

/** Fetches (unless importing) and parses each provider in turn; a provider that fails after its retries stops the run. */
async function readProviders(
  options: IngestOptions,
  providers: ProviderId[],
  raw: RawStore,
  cursors: Cursors,
  today: string,
): Promise<{ reports: ProviderReport[]; outputs: { output: ProviderOutput; source: SourceInfo }[] }> {
  const { source, log } = options;
  const reports: ProviderReport[] = [];
  const outputs: { output: ProviderOutput; source: SourceInfo }[] = [];

  for (const id of providers) {
    const c = connector(id);
    const fetchStarted = performance.now();
    const http = source.kind === "fetch" ? new ProviderHttp(id, { log, minIntervalMs: source.providers.get(id)!.minIntervalMs, ...source.http }) : undefined;
    if (source.kind === "fetch") {
      const ctx: FetchContext = {
        http: http!,
        raw,
        settings: source.providers.get(id)!.settings,
        log: log.child({ provider: id }),
        today,
        detailLimit: source.detailLimit,
        // The last stored day is asked again: it may have been taken mid-day (this run's rows win).
        since: (k) => {
          const cursor = cursors[id]?.[k];
          return cursor && addDays(cursor, -1);
        },
        progress: (done, total) => options.onProgress?.({ provider: id, step: "fetch", done, total }),
      };
      try {
        await c.fetch(ctx);
      } catch (error) {
        log.error({ provider: id, err: (error as Error).message }, "provider fetch failed; nothing is published (the saved answers are kept: the next run resumes)");
        throw new IngestError(`${id}: ${(error as Error).message}`);
      }
    }
    const fetchMs = performance.now() - fetchStarted;
    const parseStarted = performance.now();
    const output = new ProviderOutput(id, log);
    c.parse(raw, output);
    options.onProgress?.({ provider: id, step: "parse", done: 1, total: 1 });
    const parseMs = performance.now() - parseStarted;
    const records = output.claims.length + output.rowCount;
    reports.push({
      id,
      records: output.claims.length,
      rows: output.rowCount,
      links: output.links.length,
      rejected: output.rejected.length,
      skipped: Object.fromEntries(output.skipped),
      requests: http?.stats.requests ?? 0,
      retries: http?.stats.retries ?? 0,
      rate_limited: http?.stats.rateLimited ?? 0,
      fetch_ms: Math.round(fetchMs),
      parse_ms: Math.round(parseMs),
      records_per_second: Math.round(records / Math.max(0.001, (fetchMs + parseMs) / 1000)),
      as_of: source.kind === "fetch" ? isoSeconds() : `${output.latestDate ?? today}T00:00:00Z`,
      latest_day: output.latestDate ?? null,
    });
    outputs.push({ output, source: c.source });
    log.info({ provider: id, records: output.claims.length, rows: output.rowCount, rejected: output.rejected.length, ms: Math.round(fetchMs + parseMs) }, "provider read");
  }
  return { reports, outputs };
}

/** The run folder: kept when it is this day's run for the same providers (a resumed run), else started afresh. */
function prepareRun(dir: DataDir, today: string, providers: ProviderId[], log: Logger): string {
  const root = runDir(dir);
  const metaFile = join(root, "run.json");
  if (existsSync(metaFile)) {
    const meta = JSON.parse(readFileSync(metaFile, "utf8")) as { today: string; providers: ProviderId[] };
    if (meta.today === today) {
      log.info({ started_for: meta.today }, "resuming the unfinished ingest of today: saved answers are not asked again");
      writeJson(metaFile, { today, providers: [...new Set([...meta.providers, ...providers])] });
      return join(root, "raw");
    }
  }
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, "raw"), { recursive: true });
  writeJson(metaFile, { today, providers });
  return join(root, "raw");
}

/** Each history's last stored day, from the rows this run parsed (keyed as the provider names them). */
function advanceCursors(dir: DataDir, cursors: Cursors, outputs: ProviderOutput[]): void {
  for (const output of outputs) {
    const mine = (cursors[output.provider] ??= {});
    for (const [kind, rows] of output.series) {
      if (kind === "unlocks") continue; // scheduled days, not history
      for (const row of rows) {
        const k = row.entity_id;
        const day = row.date;
        if (typeof k !== "string" || typeof day !== "string") continue;
        if (!mine[k] || mine[k]! < day) mine[k] = day;
      }
    }
  }
  mkdirSync(ingestRoot(dir), { recursive: true });
  writeJson(cursorsFile(dir), cursors);
}

/**
 * The new snapshot's search index: the base's updated where the entities changed, when it was
 * made with the embedder this run would use (the usual case, minutes less at full scale); else
 * built afresh.
 */
async function searchIndex(
  world: World,
  staging: string,
  base: { dir: string; manifest: SnapshotManifest },
  touched: Set<string>,
  before: Map<string, string>,
  options: Pick<IngestOptions, "embedder" | "embedderModel"> & { rebuild: boolean },
  log: Logger,
): Promise<SearchIndexInfo> {
  const info = base.manifest.search;
  const sameEmbedder = options.embedder ? options.embedder.spec === info.embedder && (options.embedderModel ?? null) === info.model : info.embedder === "lsa";
  // Entities left out (the demo) change the whole corpus: the index is built afresh.
  if (!sameEmbedder || options.rebuild) {
    return buildSearchIndex(world, staging, { rng: new Rng(base.manifest.build.seed).fork("search"), embedder: options.embedder, model: options.embedderModel }, log);
  }
  // A document names its neighbours (their name and sector): what links to an entity whose name or
  // sector changed is embedded again too.
  const after = neighbourSignatures(world, touched);
  const renamed = new Set([...touched].filter((id) => after.get(id) !== before.get(id)));
  const dirty = new Set(touched);
  const { subject, object, isRelation } = world.facts;
  for (let i = 0; i < subject.length; i++) if (isRelation[i] && renamed.has(object[i]!)) dirty.add(subject[i]!);
  const embedder = options.embedder ?? new LsaEmbedder(loadLsa(join(base.dir, info.dir)));
  return updateSearchIndex(world, staging, { dir: base.dir, info }, dirty, embedder, log);
}

/** What a neighbour's search document says of each entity: its name and sector (category). */
function neighbourSignatures(world: World, only?: Set<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of world.entities.values()) if (!only || only.has(e.id)) out.set(e.id, e.name);
  const { subject, predicate, object } = world.facts;
  for (let i = 0; i < subject.length; i++) {
    if (predicate[i] !== "category") continue;
    const id = subject[i]!;
    const name = out.get(id);
    if (name !== undefined) out.set(id, `${name}\u0000${object[i]}`);
  }
  return out;
}

/** The demo's planted anomalies stay documented while their series are kept. */
function readGroundTruth(baseDir: string, manifest: SnapshotManifest, staging: string) {
  if (!manifest.ground_truth) return [];
  copyFileSync(join(baseDir, manifest.ground_truth), join(staging, GROUND_TRUTH_FILE));
  return (JSON.parse(readFileSync(join(staging, GROUND_TRUTH_FILE), "utf8")) as { anomalies?: [] }).anomalies ?? [];
}

function pruneSnapshots(dir: DataDir, live: string, log: Logger): void {
  const others = readdirSync(dir.snapshots).filter((name) => name !== live).sort();
  for (const old of others.slice(0, Math.max(0, others.length - KEEP_PREVIOUS))) {
    rmSync(snapshotPath(dir, old), { recursive: true, force: true });
    log.info({ snapshot: old }, "old snapshot removed");
  }
}
