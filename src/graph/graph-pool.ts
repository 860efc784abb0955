/**
 * @module graph/graph-pool
 * The server's handle on its graph processes. Each replica is a child process holding the whole
 * graph; queries wait in one FIFO queue and go to the first idle replica. Every query has a
 * deadline counted from when it arrived: past it, a queued query is dropped and a running one is
 * stopped by killing its process, which is then restarted and reloaded while the others serve.
 */
import { CkgError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { parseResults } from "./graph-results.ts";
import { Hub, type Job, Replica, type Request } from "./graph-replica.ts";
import type { GraphPhase, GraphStatus, GraphStore, SnapshotGraph } from "./graph-store.ts";
import type { SelectResult } from "./protocol.ts";

/** Oxigraph loads roughly this many quads per second here; used to tell clients when to retry. */
const LOAD_RATE_PER_SECOND = 300_000;

export interface GraphPoolOptions {
  replicas: number;
  /** argv of a graph process (`ckg __graph-worker`). */
  command: string[];
  log: Logger;
}

export class GraphPool implements GraphStore {
  private replicas: Replica[] = [];
  /** Replicas of a previous snapshot that finish their running query, then stop. */
  private readonly retiring = new Set<Replica>();
  private readonly queue: Job[] = [];
  private snapshot: SnapshotGraph | undefined;
  private loadStartedAt = 0;
  private error: string | undefined;
  private timeouts = 0;
  private crashes = 0;
  private closed = false;
  private readonly hub = new Hub();

  constructor(private readonly options: GraphPoolOptions) {}

  /** Starts loading a snapshot's graph into fresh processes; resolves when one of them can answer. */
  async load(snapshot: SnapshotGraph): Promise<void> {
    const previous = this.replicas;
    this.snapshot = snapshot;
    this.error = undefined;
    this.loadStartedAt = performance.now();
    const fresh = Array.from({ length: this.options.replicas }, () => this.spawn());
    // The previous generation keeps answering while the new one loads.
    this.replicas = [...previous, ...fresh];
    await Promise.all(fresh.map((r) => r.settled));
    if (!fresh.some((r) => r.state === "ready")) {
      this.replicas = this.replicas.filter((r) => !fresh.includes(r));
      throw new Error(this.error ?? "the graph failed to load");
    }
    this.replicas = this.replicas.filter((r) => !previous.includes(r));
    for (const old of previous) {
      if (old.job) this.retiring.add(old);
      else old.kill();
    }
  }

  async select(query: string, timeoutMs: number): Promise<SelectResult> {
    return parseResults(await this.submit({ kind: "select", query }, timeoutMs));
  }

  status(): GraphStatus {
    const ready = this.replicas.some((r) => r.state === "ready");
    const loading = this.replicas.some((r) => r.state === "loading");
    const phase: GraphPhase = ready ? "ready" : loading ? "loading" : this.error ? "failed" : "empty";
    return {
      phase,
      snapshot: this.snapshot?.id,
      quads: this.replicas.find((r) => r.quads !== undefined)?.quads,
      replicas: this.replicas.map((r) => ({ pid: r.pid, state: r.state, load_ms: r.loadMs })),
      queued: this.queue.length,
      running: [...this.replicas, ...this.retiring].filter((r) => r.job !== undefined).length,
      timeouts: this.timeouts,
      error: this.error,
    };
  }

  get ready(): boolean {
    return this.replicas.some((r) => r.state === "ready");
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new CkgError("not_ready", "The server is shutting down."));
    for (const replica of [...this.replicas, ...this.retiring]) replica.kill();
    this.replicas = [];
    this.hub.close();
  }

  /** Throws 503 not_ready (with a Retry-After estimate) unless a graph process can answer. */
  assertReady(): void {
    if (!this.ready) throw this.notReady();
  }

  private submit(request: Request, timeoutMs: number): Promise<string> {
    this.assertReady();
    return new Promise((resolve, reject) => {
      const job: Job = {
        request,
        timeoutMs,
        resolve,
        reject,
        timer: setTimeout(() => this.expire(job), timeoutMs),
      };
      this.queue.push(job);
      this.pump();
    });
  }

  private notReady(): CkgError {
    if (this.error && !this.replicas.some((r) => r.state === "loading")) {
      return new CkgError("not_ready", `The graph is not available: ${this.error}`, { retryAfterSeconds: 30 });
    }
    const expectedMs = ((this.snapshot?.quads ?? 0) / LOAD_RATE_PER_SECOND) * 1000;
    const remaining = Math.max(1, Math.ceil((expectedMs - (performance.now() - this.loadStartedAt)) / 1000));
    return new CkgError("not_ready", "The graph is still loading; try again shortly.", {
      retryAfterSeconds: remaining,
      details: { phase: this.status().phase },
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const replica = this.replicas.find((r) => r.state === "ready" && r.job === undefined);
      if (!replica) return;
      const job = this.queue.shift()!;
      job.replica = replica;
      replica.job = job;
      replica
        .send(job.request)
        .then(
          (value) => this.finish(job, () => job.resolve(value)),
          (error: Error) => this.finish(job, () => job.reject(error)),
        );
    }
  }

  private finish(job: Job, settle: () => void): void {
    clearTimeout(job.timer);
    const replica = job.replica;
    if (replica && replica.job === job) replica.job = undefined;
    settle();
    if (replica && this.retiring.delete(replica)) replica.kill();
    this.pump();
  }

  private expire(job: Job): void {
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

  private spawn(): Replica {
    const replica = new Replica(this.options.command, this.hub.path, (r, code) => this.onExit(r, code));
    this.hub.register(replica);
    const snapshot = this.snapshot!;
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
        this.error = `loading ${snapshot.file} failed: ${error.message}`;
        this.options.log.error({ graph_pid: replica.pid, err: error.message }, "graph load failed");
        replica.kill();
      },
    );
    return replica;
  }

  private onExit(replica: Replica, code: number | null): void {
    this.retiring.delete(replica);
    this.hub.forget(replica);
    const index = this.replicas.indexOf(replica);
    if (this.closed || index < 0) return;
    this.replicas.splice(index, 1);
    const job = replica.job;
    replica.job = undefined;
    // Not the query's fault and not lasting: the process is restarted; the caller may try again.
    if (job) this.finish(job, () => job.reject(new CkgError("not_ready", "The graph process stopped while answering; it is being restarted, try again shortly.", { retryAfterSeconds: 5 })));
    // A process that failed to load stays down until the next load(); restarting would fail the same way.
    if (replica.state === "failed") return;
    // A crash (not a kill of ours) waits before the restart, longer each time in a row.
    const delay = replica.stopping ? 0 : Math.min(30_000, 1000 * 2 ** this.crashes++);
    if (!replica.stopping) this.options.log.error({ graph_pid: replica.pid, code }, "graph process exited unexpectedly");
    setTimeout(() => {
      if (!this.closed && this.snapshot) this.replicas.push(this.spawn());
    }, delay);
  }
}

function timeoutError(job: Job, what: string): CkgError {
  return new CkgError(
    "query_timeout",
    `The query ${what} longer than the ${job.timeoutMs} ms limit; narrow it (LIMIT, more specific patterns) and try again.`,
    { details: { timeout_ms: job.timeoutMs } },
  );
}
