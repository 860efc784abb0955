/**
 * @module supervisor/supervisor
 * What a running server holds: the data directory, the state store, DuckDB, the graph
 * store (its own processes or an external SPARQL store), the run scheduler (signal scans and ingests) and the live snapshot with its indexes; and how it gets
 * there: build a first snapshot when the data directory is empty (in a child process, so the server
 * answers health checks meanwhile), activate it, then start the scans. Operations receive these
 * services; they never build them.
 */
import { SparqlEngineTally } from "../graph/analytic/analytic-sparql.ts";
import type { DuckDBInstance } from "@duckdb/node-api";
import type { Services } from "../operations/context.ts";
import type { Phase, ServerReadiness } from "../operations/readiness.ts";
import type { Config } from "../config/config.ts";
import type { LiveSnapshot } from "../operations/context.ts";
import { CkgError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import { applySnapshotChanges } from "../graph/change-log.ts";
import { type GraphStore, openGraphStore } from "../graph/open-store.ts";
import type { Logger } from "../log.ts";
import { selfCommand } from "../runtime.ts";
import { spawnCommand } from "./spawn.ts";
import { closeSnapshot, prepareSnapshot } from "./prepare-snapshot.ts";
import { syntheticNotice } from "../snapshot/describe.ts";
import { serveQualityFrom } from "../signals/quality.ts";
import { type DataDir, currentSnapshotId, dataDir, ensureDataDir, recordFormats, snapshotPath } from "../store/data-dir.ts";
import { openDuck } from "../store/duckdb.ts";
import { EventFeed } from "../push/feed.ts";
import { BackupSchedule } from "./backup-schedule.ts";
import { Push } from "../push/push.ts";
import { RunScheduler } from "./scheduler.ts";
import { openState } from "../store/open-state.ts";
import type { StateStore } from "../store/state.ts";
import { join } from "node:path";
import { VERSION } from "../version.ts";

/** How long a replaced snapshot's SQL database stays open for the requests still using it. */
const RETIRE_AFTER_MS = 60_000;
/** A failed start is tried again after 5 s, then 10, 20, ... up to every 5 minutes. */
const START_RETRY_MS = 5_000;
const START_RETRY_MAX_MS = 300_000;

export class Supervisor implements Services {
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
  /** Answers queries only: no scans, ingests or backups are scheduled and no webhooks delivered (a backup's check). */
  private queriesOnly = false;
  private backups: BackupSchedule | undefined;
  private startAttempts = 0;
  private startRetry: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private pushing = false;

  private constructor(
    readonly config: Config,
    readonly log: Logger,
    readonly dir: DataDir,
    readonly state: StateStore,
    readonly duck: DuckDBInstance,
    readonly graph: GraphStore,
    readonly scheduler: RunScheduler,
    readonly events: EventFeed,
    readonly push: Push,
  ) {}

  readonly sparqlEngines = new SparqlEngineTally();

  /**
   * `graphCommand` replaces the argv of graph processes (tests start them through a delay);
   * `childLogsTo: 2` sends the first build's log lines to stderr (stdout is the MCP protocol in `ckg mcp`);
   * `queriesOnly`: no scheduler and no webhook deliveries (a backup's restored copy, opened to be checked).
   */
  static async open(
    config: Config,
    log: Logger,
    options: { graphCommand?: string[]; childLogsTo?: 1 | 2; startRetryMs?: number; queriesOnly?: boolean } = {},
  ): Promise<Supervisor> {
    const dir = dataDir(config.data_dir);
    ensureDataDir(dir);
    serveQualityFrom(dir.root);
    const state = await openState(config, dir.stateDb);
    let scheduler: RunScheduler;
    try {
      // The state store is at this ckg's format now (migrated if it was older): say so before serving.
      recordFormats(dir);
      scheduler = new RunScheduler(config, dir, state, log); // checks the cron settings: a bad one stops the start here
    } catch (error) {
      await state.close();
      throw error;
    }
    const duck = await openDuck();
    const command = options.graphCommand ?? selfCommand("__graph-worker");
    const graph = openGraphStore(config, command, log);
    const events = new EventFeed(state, config.push_poll_ms, log);
    const services = new Supervisor(config, log, dir, state, duck, graph, scheduler, events, new Push(state, events, config, log));
    services.childLogsTo = options.childLogsTo ?? 1;
    services.startRetryMs = options.startRetryMs ?? START_RETRY_MS;
    services.queriesOnly = options.queriesOnly ?? false;
    services.backups = new BackupSchedule(config, state, log);
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
      if (this.queriesOnly) return;
      await this.scheduler.start(this.live!.manifest.as_of.slice(0, 10));
      this.backups?.start();
      if (!this.pushing) {
        this.pushing = true;
        await this.push.start();
      }
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
    const { live, graphLoaded } = await prepareSnapshot(this, id);
    const previous = this.live; // an earlier attempt's, when a start is tried again
    try {
      await this.goLive(live); // the graph still loading: SPARQL answers 503 with a retry estimate meanwhile
    } catch (error) {
      closeSnapshot(live);
      throw error;
    }
    if (previous && previous !== live) closeSnapshot(previous);
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
    const { live, graphLoaded } = await prepareSnapshot(this, id);
    try {
      await graphLoaded;
      // The graph and everything else switch together; requests pinned to the previous snapshot
      // keep querying its graph while they finish.
      await this.goLive(live);
    } catch (error) {
      closeSnapshot(live);
      this.graph.discard(id);
      throw error;
    }
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

  /** Makes a prepared snapshot the one every route answers from: its changes join the feed, then one assignment switches the graph and the rest together. */
  private async goLive(live: LiveSnapshot): Promise<void> {
    const added = await applySnapshotChanges(this.state, this.duck, { id: live.id, changesFile: join(live.dir, live.manifest.files.changes) }, live.names);
    if (added > 0) {
      this.log.info({ snapshot: live.id, changes_added: added }, "changes feed extended");
      this.events.wake();
    }
    this.live = live;
    this.graph.activate(live.id);
    // Loading left garbage behind (the Parquet rows read into the indexes: 300 MB at full scale)
    // that the collector would keep until the heap grows again; given back before serving.
    Bun.gc(true);
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
      ...(await this.scheduler.readiness()), // state_store, scans, ingest (or state_error)
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
    await this.scheduler.close();
    await this.backups?.close();
    await this.push.close();
    this.events.stop();
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
    if (code !== EXIT.ok) throw new Error(`building the default dataset failed (exit code ${code}); see the log above`);
  }
}
