/**
 * @module server/services
 * What a running server holds: the data directory, the state store, DuckDB, the graph
 * store (its own processes or an external SPARQL store), the signal scan scheduler and the live snapshot with its indexes; and how it gets
 * there: build a first snapshot when the data directory is empty (in a child process, so the server
 * answers health checks meanwhile), activate it, then start the scans. Operations receive these
 * services; they never build them.
 */
import type { DuckDBInstance } from "@duckdb/node-api";
import type { ApiServices } from "../api/services.ts";
import type { Phase, ServerReadiness } from "../api/readiness.ts";
import type { Config } from "../config/config.ts";
import type { LiveSnapshot } from "../operations/context.ts";
import { CkgError } from "../errors.ts";
import { applySnapshotChanges } from "../graph/change-log.ts";
import { FactIndex } from "../graph/fact-index.ts";
import { type GraphStore, openGraphStore } from "../graph/open-store.ts";
import { loadOntology } from "../graph/ontology.ts";
import type { Logger } from "../log.ts";
import { selfCommand } from "../runtime.ts";
import { spawnCommand } from "./spawn.ts";
import { SearchEngine, searchLookups } from "../search/engine.ts";
import { NameIndex } from "../entities/name-index.ts";
import { describeSchema, syntheticNotice } from "../snapshot/describe.ts";
import { MANIFEST_FILE, type SnapshotManifest, readManifest, snapshotGraphs } from "../store/manifest.ts";
import { type DataDir, currentSnapshotId, dataDir, ensureDataDir, snapshotPath } from "../store/data-dir.ts";
import { openDuck } from "../store/duckdb.ts";
import { ScanScheduler } from "./scheduler.ts";
import { EntitySeries } from "../timeseries/figures.ts";
import { TimeseriesStore } from "../timeseries/store.ts";
import { openState } from "../store/open-state.ts";
import type { StateStore } from "../store/state.ts";
import { join } from "node:path";
import { VERSION } from "../version.ts";

/** How long a replaced snapshot's SQL database stays open for the requests still using it. */
const RETIRE_AFTER_MS = 60_000;
/** A failed start is tried again after 5 s, then 10, 20, ... up to every 5 minutes. */
const START_RETRY_MS = 5_000;
const START_RETRY_MAX_MS = 300_000;

export class Services implements ApiServices {
  phase: Phase = "starting";
  error: string | undefined;
  live: LiveSnapshot | undefined;
  /** The last published snapshot that could not be loaded, and why (the live one kept serving). */
  rejected: { id: string; error: string; at: string } | undefined;
  readonly startedAt = Date.now();
  private childLogsTo: 1 | 2 = 1;
  private watcher: ReturnType<typeof setInterval> | undefined;
  /** A failed start is tried again after this many ms, doubling up to START_RETRY_MAX_MS. */
  private startRetryMs = START_RETRY_MS;
  private startAttempts = 0;
  private startRetry: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  private constructor(
    readonly config: Config,
    readonly log: Logger,
    readonly dir: DataDir,
    readonly state: StateStore,
    readonly duck: DuckDBInstance,
    readonly graph: GraphStore,
    readonly scans: ScanScheduler,
  ) {}

  /**
   * `graphCommand` replaces the argv of graph processes (tests start them through a delay);
   * `childLogsTo: 2` sends the first build's log lines to stderr (stdout is the MCP protocol in `ckg mcp`).
   */
  static async open(config: Config, log: Logger, options: { graphCommand?: string[]; childLogsTo?: 1 | 2; startRetryMs?: number } = {}): Promise<Services> {
    const dir = dataDir(config.data_dir);
    ensureDataDir(dir);
    const state = await openState(config, dir.stateDb);
    let scans: ScanScheduler;
    try {
      scans = new ScanScheduler(config, dir, state, log); // checks the cron settings: a bad one stops the start here
    } catch (error) {
      await state.close();
      throw error;
    }
    const duck = await openDuck({ threads: 2 });
    const command = options.graphCommand ?? selfCommand("__graph-worker");
    const graph = openGraphStore(config, command, log);
    const services = new Services(config, log, dir, state, duck, graph, scans);
    services.childLogsTo = options.childLogsTo ?? 1;
    services.startRetryMs = options.startRetryMs ?? START_RETRY_MS;
    return services;
  }

  /**
   * Brings the server to ready: builds a first snapshot if there is none, then activates the current
   * one. A failure (a snapshot being replaced, a graph process that died) is tried again with a
   * doubling delay instead of leaving the server failed until a restart; /readyz says "failed" and
   * why meanwhile.
   */
  async start(): Promise<void> {
    clearTimeout(this.startRetry);
    this.phase = "starting";
    try {
      let id = currentSnapshotId(this.dir);
      if (!id) {
        this.phase = "building";
        await this.buildFirstSnapshot();
        id = currentSnapshotId(this.dir);
        if (!id) throw new Error("the first build finished without publishing a snapshot");
      }
      await this.activate(id);
      await this.scans.start(this.live!.manifest.as_of.slice(0, 10));
      this.startAttempts = 0;
      this.error = undefined;
    } catch (error) {
      this.phase = "failed";
      this.error = (error as Error).message;
      const retryMs = Math.min(START_RETRY_MAX_MS, this.startRetryMs * 2 ** this.startAttempts++);
      this.log.error({ err: this.error, retry_in_ms: retryMs }, "start-up failed; trying again");
      if (!this.closed) this.startRetry = setTimeout(() => this.start().catch(() => undefined), retryMs);
      throw error;
    }
  }

  /**
   * Makes a snapshot live at start-up. The graph processes start loading first (the longest step,
   * in other processes); meanwhile this process builds the name index, applies the change log and
   * the schema document, so non-graph routes answer as soon as those are done.
   */
  async activate(id: string): Promise<void> {
    const { live, graphLoaded } = await this.prepare(id);
    const previous = this.live; // an earlier attempt's, when a start is tried again
    this.live = live;
    if (previous) closeSnapshot(previous);
    this.phase = "loading";
    this.log.info({ snapshot: id, nodes: live.names.size, synthetic: live.manifest.synthetic }, "snapshot active; graph loading");
    await graphLoaded;
    this.phase = "ready";
    this.log.info({ snapshot: id, ready_ms: Date.now() - this.startedAt }, "ready");
    this.watchSnapshots();
  }

  /**
   * Switches a running server to a newer snapshot (published by `ckg ingest`): everything is
   * prepared beside the live one, which keeps answering; the switch is one assignment once the new
   * graph is loaded. Requests already running finish on the old snapshot, whose SQL database is
   * closed a while later.
   */
  async switchTo(id: string): Promise<void> {
    const previous = this.live;
    const started = performance.now();
    this.log.info({ from: previous?.id, to: id }, "a new snapshot was published; loading it beside the live one");
    const { live, graphLoaded } = await this.prepare(id);
    try {
      await graphLoaded;
    } catch (error) {
      closeSnapshot(live);
      throw error;
    }
    this.live = live;
    this.log.info({ snapshot: id, ms: Math.round(performance.now() - started) }, "switched to the new snapshot");
    if (previous) setTimeout(() => closeSnapshot(previous), RETIRE_AFTER_MS).unref();
  }

  /** Polls CURRENT: a snapshot published by another process is picked up without a restart. */
  private watchSnapshots(): void {
    if (this.watcher) return;
    let failed: string | undefined;
    let switching = false;
    this.watcher = setInterval(() => {
      const id = currentSnapshotId(this.dir);
      if (!id || switching || id === this.live?.id || id === failed) return;
      switching = true;
      this.switchTo(id)
        .then(() => {
          failed = undefined;
          this.rejected = undefined;
        })
        .catch((error: Error) => {
          failed = id;
          this.rejected = { id, error: error.message, at: new Date().toISOString() };
          this.log.error({ snapshot: id, err: error.message }, "the new snapshot could not be loaded; the previous one keeps serving");
        })
        .finally(() => (switching = false));
    }, this.config.snapshot_poll_ms);
    this.watcher.unref();
  }

  private async prepare(id: string): Promise<{ live: LiveSnapshot; graphLoaded: Promise<void> }> {
    const dir = snapshotPath(this.dir, id);
    const manifest = await reading(dir, MANIFEST_FILE, () => readManifest(dir));
    const ns = manifest.namespaces;
    const graphLoaded = reading(dir, manifest.files.graph, () => this.graph.load({ id, file: join(dir, manifest.files.graph), quads: manifest.counts.quads, graphs: snapshotGraphs(manifest) }));
    graphLoaded.catch(() => undefined); // awaited by the caller; a failure must not go unhandled meanwhile
    const ontology = loadOntology(ns.ontology);
    const names = await reading(dir, manifest.files.entities, () => NameIndex.fromParquet(this.duck, join(dir, manifest.files.entities), ns));
    // Explore's fact index builds while search opens (its queries interleave with theirs).
    const factsBuilt = reading(dir, manifest.files.facts, () => this.buildFactIndex(id, dir, manifest, names));
    factsBuilt.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
    // The latest figures are read beside them, in a DuckDB instance of their own (timeseries/figures.ts).
    const seriesRead = this.readEntitySeries(id, dir, manifest);
    seriesRead.catch(() => undefined); // awaited below, as above
    const lookups = await reading(dir, manifest.files.facts, () => searchLookups(this.duck, dir, manifest, names));
    const search = await SearchEngine.open(dir, manifest, lookups, this.config, this.log);
    try {
      const facts = await factsBuilt;
      const added = await applySnapshotChanges(this.state, this.duck, { id, changesFile: join(dir, manifest.files.changes) }, names);
      if (added > 0) this.log.info({ snapshot: id, changes_added: added }, "changes feed extended");
      const schema = describeSchema(manifest, ontology, ns);
      const series = await seriesRead;
      const timeseries = await TimeseriesStore.open(dir, manifest, { memoryLimit: this.config.sql_memory_limit });
      return { live: { id, dir, manifest, ns, ontology, names, facts, search, schema, timeseries, series }, graphLoaded };
    } catch (error) {
      search.close(); // its scan workers would otherwise outlive a snapshot that never went live
      throw error;
    }
  }

  private async readEntitySeries(id: string, dir: string, manifest: SnapshotManifest): Promise<EntitySeries> {
    const started = performance.now();
    const series = await reading(dir, manifest.timeseries_db, () => EntitySeries.read(dir, manifest));
    this.log.info({ snapshot: id, ms: Math.round(performance.now() - started) }, "latest figures read");
    return series;
  }

  private async buildFactIndex(id: string, dir: string, manifest: SnapshotManifest, names: NameIndex): Promise<FactIndex> {
    const started = performance.now();
    const files = { facts: join(dir, manifest.files.facts), entities: join(dir, manifest.files.entities) };
    const facts = await FactIndex.fromParquet(this.duck, files, names, manifest.namespaces);
    this.log.info({ snapshot: id, facts: facts.facts, mb: Math.round(facts.bytes / 1e6), ms: Math.round(performance.now() - started) }, "fact index built");
    if (facts.skipped > 0) this.log.warn({ snapshot: id, facts_skipped: facts.skipped }, "facts whose subject is not a node of the snapshot were left out of explore");
    return facts;
  }

  /** The live snapshot, or 503 while there is none yet. */
  snapshot(): LiveSnapshot {
    if (this.live) return this.live;
    throw new CkgError("not_ready", this.phase === "failed" ? `The server failed to start: ${this.error}` : `The dataset is not ready yet (${this.phase}).`, {
      retryAfterSeconds: this.phase === "building" ? 10 : 3,
      details: { phase: this.phase },
    });
  }

  async readiness(): Promise<{ ready: boolean; body: ServerReadiness }> {
    const live = this.live;
    const body: ServerReadiness = {
      status: this.phase,
      version: VERSION,
      uptime_s: Math.round((Date.now() - this.startedAt) / 1000),
      data_dir: this.dir.root,
      graph: this.graph.status(),
      ...(await this.scans.readiness()), // state_store, scans, ingest (or state_error)
    };
    if (this.error) body.error = this.error;
    if (this.rejected) body.snapshot_rejected = this.rejected;
    if (live) {
      body.snapshot = {
        id: live.id,
        created_at: live.manifest.created_at,
        as_of: live.manifest.as_of,
        synthetic: live.manifest.synthetic,
        notice: syntheticNotice(live.manifest),
        entity_counts: live.schema.provenance.entity_counts,
        sources: live.manifest.sources.map((s) => ({ id: s.id, kind: s.kind, synthetic: s.synthetic, entities: s.entities, facts: s.facts, as_of: s.as_of })),
      };
    }
    return { ready: this.phase === "ready" && !body.state_error, body };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.startRetry);
    if (this.watcher) clearInterval(this.watcher);
    await this.scans.close();
    await this.graph.close();
    if (this.live) closeSnapshot(this.live);
    this.duck.closeSync();
    await this.state.close();
  }

  private async buildFirstSnapshot(): Promise<void> {
    const { config } = this;
    this.log.info({ data_dir: this.dir.root, scale: String(config.scale) }, "data directory is empty: building the default dataset");
    const proc = spawnCommand("build", { ...config, data_dir: this.dir.root }, { stdout: this.childLogsTo === 2 ? 2 : "inherit" });
    const code = await proc.exited;
    if (code !== 0) throw new Error(`building the default dataset failed (exit code ${code}); see the log above`);
  }
}

/** Runs a step that reads one file of a snapshot; its failure names the file (a corrupt snapshot says where). */
async function reading<T>(dir: string, file: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw new Error(`${join(dir, file)}: ${(error as Error).message}`, { cause: error });
  }
}

/** Releases what a snapshot holds beyond memory: its SQL database and its search workers. */
function closeSnapshot(live: LiveSnapshot): void {
  live.timeseries.close();
  live.search.close();
}
