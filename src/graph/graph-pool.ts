/**
 * @module graph/graph-pool
 * The server's handle on its graph processes. Each replica is a child process holding the whole
 * graph; queries wait in one FIFO queue and go to the first idle replica. Every query has a
 * deadline counted from when it arrived: past it, a queued query is dropped and a running one is
 * stopped by killing its process, which is then restarted and reloaded while the others serve.
 */
import { CkgError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { decodeGraphResult, parseResults } from "./graph-results.ts";
import { Hub, type Job, Replica, type UnnumberedRequest } from "./graph-replica.ts";
import type { GraphPhase, GraphStatus, GraphStore, SnapshotGraph } from "./graph-store.ts";
import type { ConstructOptions, GraphResult, QueryScope, SelectResult } from "./protocol.ts";

/** Oxigraph loads roughly this many quads per second here; used to tell clients when to retry. */
const LOAD_RATE_PER_SECOND = 300_000;
/**
 * How long a replaced snapshot's graph still answers the requests that began on it (one pinned
 * before a switch may reach the graph a little after, e.g. once its payment settled).
 */
const RETIRED_GRAPH_GRACE_MS = 15_000;

export interface GraphPoolOptions {
  replicas: number;
  /** argv of a graph process (`ckg __graph-worker`). */
  command: string[];
  log: Logger;
  /** RETIRED_GRAPH_GRACE_MS unless a test says otherwise. */
  retiredGraceMs?: number;
}

/** One snapshot's graph processes: loaded beside the live one, live once activated, then retired. */
interface Generation {
  snapshot: SnapshotGraph;
  replicas: Replica[];
  loadStartedAt: number;
  /** Resolves when one replica can answer; rejects when none loaded. */
  loaded: Promise<void>;
  error?: string;
  /** Replaced by a newer snapshot: its processes stop once idle past the grace period. */
  retired: boolean;
  retireTimer?: ReturnType<typeof setTimeout>;
  closing: boolean;
}

/** A query of the pool, bound to the generation (snapshot) it must be answered from. */
interface PoolJob extends Job {
  generation: Generation;
}

export class GraphPool implements GraphStore {
  private readonly generations = new Map<string, Generation>();
  /** The live snapshot's generation: unpinned queries and the status go to it. */
  private current: Generation | undefined;
  private readonly queue: PoolJob[] = [];
  private timeouts = 0;
  private crashes = 0;
  private closed = false;
  private readonly hub = new Hub();

  constructor(private readonly options: GraphPoolOptions) {}

  /**
   * Loads a snapshot's graph into fresh processes beside the live one; resolves when one of them
   * can answer. Queries keep going to the live graph until activate(); discard() drops it instead.
   */
  load(snapshot: SnapshotGraph): Promise<void> {
    const existing = this.generations.get(snapshot.id);
    if (existing && !existing.closing && existing.error === undefined) return existing.loaded;
    if (existing) this.retire(existing);
    const generation: Generation = { snapshot, replicas: [], loadStartedAt: performance.now(), loaded: Promise.resolve(), retired: false, closing: false };
    generation.replicas = Array.from({ length: this.options.replicas }, () => this.spawn(generation));
    this.generations.set(snapshot.id, generation);
    generation.loaded = Promise.all(generation.replicas.map((r) => r.settled)).then(() => {
      if (!generation.replicas.some((r) => r.state === "ready")) throw new Error(generation.error ?? "the graph failed to load");
    });
    return generation.loaded;
  }

  /** Makes a snapshot's graph (loaded or still loading) the live one; the others retire. */
  activate(id: string): void {
    const generation = this.generations.get(id);
    if (!generation) throw new Error(`activate: the graph of snapshot ${id} was never loaded`);
    this.current = generation;
    generation.retired = false;
    clearTimeout(generation.retireTimer);
    for (const other of this.generations.values()) {
      if (other === generation || other.retired) continue;
      other.retired = true;
      other.retireTimer = setTimeout(() => this.retire(other), this.options.retiredGraceMs ?? RETIRED_GRAPH_GRACE_MS);
      other.retireTimer.unref?.();
    }
  }

  /** Drops a snapshot's graph that will not go live (its snapshot was rejected). */
  discard(id: string): void {
    const generation = this.generations.get(id);
    if (generation && generation !== this.current) this.retire(generation);
  }

  async select(query: string, timeoutMs: number, snapshotId?: string, scope: QueryScope = {}): Promise<SelectResult> {
    return parseResults(await this.submit({ kind: "select", query, ...scope }, timeoutMs, snapshotId));
  }

  async construct(query: string, options: ConstructOptions, timeoutMs: number, snapshotId?: string): Promise<GraphResult> {
    return decodeGraphResult(await this.submit({ kind: "construct", query, ...options }, timeoutMs, snapshotId));
  }

  status(): GraphStatus {
    const generation = this.current;
    const replicas = generation?.replicas ?? [];
    const ready = replicas.some((r) => r.state === "ready");
    const loading = replicas.some((r) => r.state === "loading");
    const phase: GraphPhase = ready ? "ready" : loading ? "loading" : generation?.error ? "failed" : "empty";
    return {
      phase,
      snapshot: generation?.snapshot.id,
      quads: replicas.find((r) => r.quads !== undefined)?.quads,
      replicas: replicas.map((r) => ({ pid: r.pid, state: r.state, load_ms: r.loadMs })),
      queued: this.queue.length,
      running: [...this.generations.values()].flatMap((g) => g.replicas).filter((r) => r.job !== undefined).length,
      timeouts: this.timeouts,
      error: generation?.error,
    };
  }

  get ready(): boolean {
    return this.current?.replicas.some((r) => r.state === "ready") ?? false;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new CkgError("not_ready", "The server is shutting down."));
    for (const generation of this.generations.values()) {
      clearTimeout(generation.retireTimer);
      for (const replica of generation.replicas) replica.kill();
    }
    this.generations.clear();
    this.hub.close();
  }

  /** Stops a generation's processes (each as soon as it is idle); its queued queries fail, never moving to another graph. */
  private retire(generation: Generation): void {
    clearTimeout(generation.retireTimer);
    generation.closing = true;
    for (const job of this.queue.filter((j) => j.generation === generation)) {
      this.queue.splice(this.queue.indexOf(job), 1);
      clearTimeout(job.timer);
      job.reject(replaced());
    }
    for (const replica of generation.replicas) if (!replica.job) replica.kill();
    this.forgetIfGone(generation);
  }

  /** Throws 503 not_ready (with a Retry-After estimate) unless the live graph can answer. */
  assertReady(): void {
    if (!this.ready) throw this.notReady(this.current);
  }

  private submit(request: UnnumberedRequest, timeoutMs: number, snapshotId: string | undefined): Promise<string> {
    // A request pinned to a snapshot reads that snapshot's graph, never another's.
    const generation = snapshotId === undefined ? this.current : this.generations.get(snapshotId);
    if (!generation || generation.closing) throw replaced();
    if (!generation.replicas.some((r) => r.state === "ready")) throw this.notReady(generation);
    return new Promise((resolve, reject) => {
      const job: PoolJob = { request, timeoutMs, resolve, reject, generation, timer: setTimeout(() => this.expire(job), timeoutMs) };
      this.queue.push(job);
      this.pump();
    });
  }

  private notReady(generation: Generation | undefined): CkgError {
    if (generation?.error && !generation.replicas.some((r) => r.state === "loading")) {
      return new CkgError("not_ready", `The graph is not available: ${generation.error}`, { retryAfterSeconds: 30 });
    }
    const expectedMs = ((generation?.snapshot.quads ?? 0) / LOAD_RATE_PER_SECOND) * 1000;
    const remaining = Math.max(1, Math.ceil((expectedMs - (performance.now() - (generation?.loadStartedAt ?? 0))) / 1000));
    return new CkgError("not_ready", "The graph is still loading; try again shortly.", {
      retryAfterSeconds: remaining,
      details: { phase: this.status().phase },
    });
  }

  /** Starts every queued query whose graph has an idle process, in arrival order. */
  private pump(): void {
    for (let i = 0; i < this.queue.length; ) {
      const job = this.queue[i]!;
      const replica = job.generation.replicas.find((r) => r.state === "ready" && r.job === undefined);
      if (!replica) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      job.replica = replica;
      replica.job = job;
      replica.send(job.request).then(
        (value) => this.finish(job, () => job.resolve(value)),
        (error: Error) => this.finish(job, () => job.reject(error)),
      );
    }
  }

  private finish(job: PoolJob, settle: () => void): void {
    clearTimeout(job.timer);
    const replica = job.replica;
    if (replica && replica.job === job) replica.job = undefined;
    settle();
    if (replica && job.generation.closing) {
      replica.kill();
      this.forgetIfGone(job.generation);
    }
    this.pump();
  }

  private forgetIfGone(generation: Generation): void {
    if (generation.replicas.every((r) => r.stopping || r.state === "dead") && this.generations.get(generation.snapshot.id) === generation) {
      this.generations.delete(generation.snapshot.id);
    }
  }

  private expire(job: PoolJob): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      job.reject(timeoutError(job, "waited for a free graph process"));
      return;
    }
    const replica = job.replica;
    if (!replica || replica.job !== job) return;
    this.timeouts++;
    this.options.log.warn({ graph_pid: replica.pid, timeout_ms: job.timeoutMs }, "graph query ran past its time limit; restarting its process");
    replica.job = undefined;
    replica.kill();
    job.reject(timeoutError(job, "ran"));
  }

  private spawn(generation: Generation): Replica {
    const replica = new Replica(this.options.command, this.hub.path, (r, code) => this.onExit(generation, r, code));
    this.hub.register(replica);
    const { snapshot } = generation;
    replica.settled = replica.send({ kind: "load", file: snapshot.file }).then(
      (text) => {
        const loaded = JSON.parse(text) as { quads: number; ms: number };
        replica.state = "ready";
        replica.loadMs = loaded.ms;
        replica.quads = loaded.quads;
        this.crashes = 0;
        this.options.log.info({ graph_pid: replica.pid, snapshot: snapshot.id, quads: loaded.quads, ms: loaded.ms }, "graph loaded");
        this.pump();
      },
      (error: Error) => {
        if (replica.stopping) return;
        replica.state = "failed";
        generation.error = `loading ${snapshot.file} failed: ${error.message}`;
        this.options.log.error({ graph_pid: replica.pid, err: error.message }, "graph load failed");
        replica.kill();
      },
    );
    return replica;
  }

  private onExit(generation: Generation, replica: Replica, code: number | null): void {
    this.hub.forget(replica);
    const index = generation.replicas.indexOf(replica);
    if (this.closed || index < 0) return;
    generation.replicas.splice(index, 1);
    const job = replica.job as PoolJob | undefined;
    replica.job = undefined;
    // Not the query's fault and not lasting: the process is restarted; the caller may try again.
    if (job) this.finish(job, () => job.reject(new CkgError("not_ready", "The graph process stopped while answering; it is being restarted, try again shortly.", { retryAfterSeconds: 5 })));
    if (generation.closing) return this.forgetIfGone(generation);
    // A process that failed to load stays down until the next load(); restarting would fail the same way.
    if (replica.state === "failed") return;
    // A crash (not a kill of ours) waits before the restart, longer each time in a row.
    const delay = replica.stopping ? 0 : Math.min(30_000, 1000 * 2 ** this.crashes++);
    if (!replica.stopping) this.options.log.error({ graph_pid: replica.pid, code }, "graph process exited unexpectedly");
    setTimeout(() => {
      if (!this.closed && !generation.closing) generation.replicas.push(this.spawn(generation));
    }, delay);
  }
}

/** A request pinned to a snapshot whose graph is gone: it is not answered from another one. */
function replaced(): CkgError {
  return new CkgError("not_ready", "The snapshot this request began on has been replaced; try again.", { retryAfterSeconds: 1 });
}

function timeoutError(job: Job, what: string): CkgError {
  return new CkgError(
    "query_timeout",
    `The query ${what} longer than the ${job.timeoutMs} ms limit; narrow it (LIMIT, more specific patterns) and try again.`,
    { details: { timeout_ms: job.timeoutMs } },
  );
}
