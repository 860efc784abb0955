/**
 * @module supervisor/scheduler
 * When the server scans and ingests: at start, what it owes (supervisor/catch-up.ts: the first scan of a
 * never-scanned data directory, missed as-of days, a scheduled run that fell while it was down, an
 * interrupted ingest), then on the configured crons. Every scan is `ckg scan` and every ingest
 * `ckg ingest` in a child process, so detectors and graph algorithms never hold up requests; one
 * of each runs at a time. A run whose process is gone is recorded interrupted (store/runs.ts); on
 * shutdown a running one may finish within the grace period. Results and failures are read back
 * from the state store (shown in /readyz).
 *
 * Replicas sharing the state store (PostgreSQL, or one SQLite file on one machine) run each cron
 * firing once (the first to claim it), and hold a lease on the scan they run, renewed every third
 * of `scan_lease_ms` (store/runs.ts holdLease). Every replica checks as often: a scan whose lease ran out (its replica died or
 * was cut off) or whose process on this machine is gone is recorded interrupted by the one replica
 * whose UPDATE lands, and that replica scans the same as-of day again: the scan is handed over.
 */
import type { Subprocess } from "bun";
import { Cron } from "croner";
import { type Config, ConfigError, checkRules } from "../config/config.ts";
import { EXIT } from "../exit-codes.ts";
import type { Logger } from "../log.ts";
import type { DataDir } from "../store/data-dir.ts";
import type { StateStore } from "../store/state.ts";
import { type InterruptedScan, claimRun, cronSlot, holdLease, markInterrupted, recentIngests } from "../store/runs.ts";
import { recentScans } from "../signals/store.ts";
import { isoSeconds } from "../time.ts";
import { type ScanPlan, handoverPlan, ingestOwed, planScans } from "./catch-up.ts";
import { CRON_RULE } from "./cron.ts";
import type { IngestStatus, ScansStatus } from "../operations/readiness.ts";
import { spawnCommand } from "./spawn.ts";

export class RunScheduler {
  private cron: Cron | undefined;
  private ingestCron: Cron | undefined;
  private ingesting: { since: string; child: Subprocess; done: Promise<number> } | undefined;
  private child: Subprocess | undefined;
  private current: { trigger: string; since: string; done: Promise<number> } | undefined;
  private watch: ReturnType<typeof setInterval> | undefined;
  /** Scans taken over, run one after another. */
  private handovers: Promise<unknown> = Promise.resolve();
  private closing = false;
  /** The live snapshot's as-of day, as of the last start: where a scan taken over scans up to. */
  private asOf: string | undefined;

  constructor(
    private readonly config: Config,
    private readonly dir: DataDir,
    private readonly state: StateStore,
    private readonly log: Logger,
  ) {
    const problems = checkRules(config, [CRON_RULE]);
    if (problems.length > 0) throw new ConfigError(problems);
  }

  /**
   * Starts the schedules and does what a start owes: runs left "running" by a process that is gone
   * are marked interrupted, then the missed ingest and scans run (supervisor/catch-up.ts). `asOf` is the
   * live snapshot's as-of day.
   */
  async start(asOf: string): Promise<void> {
    const noticed = await markInterrupted(this.state);
    if (noticed.scans.length + noticed.ingests.length > 0) this.log.warn(noticed, "runs whose process was gone are marked interrupted; the missed work is redone");
    if (!this.watch) {
      this.watch = setInterval(() => this.tend().catch((error: Error) => this.log.warn({ err: error.message }, "checking scan leases failed")), this.config.scan_lease_ms / 3);
      this.watch.unref?.();
    }
    if (this.config.scan_cron !== "off" && !this.cron) {
      this.cron = new Cron(this.config.scan_cron, { timezone: "UTC", protect: true }, () => this.fire("scan"));
    }
    if (this.config.ingest_cron !== "off" && !this.ingestCron) {
      this.ingestCron = new Cron(this.config.ingest_cron, { timezone: "UTC", protect: true }, () => this.fire("ingest"));
    }
    this.asOf = asOf;
    const ingest = await ingestOwed(this.state, this.ingestCron);
    const scans = await planScans(this.state, { asOf, cron: this.cron, firstScan: this.config.first_scan });
    // Replicas starting together owe the same catch-up: the one that claims it runs it.
    if (ingest && (await this.claim(ingest.slot, "catch-up ingest"))) {
      this.log.info({ why: ingest.why }, "catching up: ingest");
      void this.ingestThenScan("catch-up");
    } else if (!ingest && scans && (await this.claim(scans.slot, `${scans.trigger} scan`))) {
      this.log.info({ why: scans.why }, `catching up: ${scans.trigger} scan`);
      void this.run(scans.trigger, scans.args);
    }
  }

  /** Claims a run among replicas sharing the state store (store/runs.ts claimRun); logs when another replica has it. */
  private async claim(slot: string, what: string): Promise<boolean> {
    const claim = await claimRun(this.state, slot);
    if (!claim.claimed) this.log.info({ slot: claim.slot, holder: claim.holder }, `${what} runs on another replica`);
    return claim.claimed;
  }

  /**
   * A cron fired: the scan (or ingest, then scan) runs here unless another replica sharing the
   * state store claimed this firing first. Resolves to the exit code, or null when skipped.
   */
  async scheduled(kind: "scan" | "ingest", firedAt = new Date()): Promise<number | null> {
    // A replica already scanning leaves the firing to one that is free (its claim would waste it).
    if (kind === "scan" && this.current) {
      this.log.info({ running: this.current.trigger }, "scheduled scan left to another replica: a scan is running here");
      return null;
    }
    if (!(await this.claim(cronSlot(kind, firedAt), `scheduled ${kind}`))) return null;
    if (kind === "scan") return this.run("schedule");
    return this.ingestThenScan("ingest");
  }

  /**
   * Every third of the lease: takes over a scan another replica left (its lease ran out, or its
   * process here is gone), scanning its as-of day.
   */
  private async tend(): Promise<void> {
    const noticed = await markInterrupted(this.state);
    for (const ingest of noticed.ingests) this.log.warn({ ingest_id: ingest }, "an ingest whose process was gone is marked interrupted");
    for (const scan of noticed.scans) this.handOver(scan, handoverPlan(scan, this.asOf ?? scan.as_of));
  }

  /** Runs a scan taken over from a replica that stopped running it, in turn: after every scan before it here. */
  private handOver(scan: InterruptedScan, plan: Omit<ScanPlan, "slot">): void {
    this.log.warn({ ...scan, why: plan.why, args: plan.args }, "a scan that no process runs any more is taken over here");
    this.handovers = this.handovers
      .then(async () => {
        while (this.current) await this.current.done;
        if (!this.closing) await this.run(plan.trigger, plan.args);
      })
      .catch((error: Error) => this.log.error({ err: error.message }, "the scan taken over could not start"));
  }

  /** A cron's callback: a failure to start (the state store locked or away) is logged, never thrown. */
  private fire(kind: "scan" | "ingest"): void {
    this.scheduled(kind).catch((error: Error) => this.log.error({ err: error.message }, `the scheduled ${kind} could not start`));
  }

  /** An ingest, then (when it published) a scan of the snapshot it published (CURRENT), whether or not the server switched yet. */
  private async ingestThenScan(trigger: string): Promise<number> {
    const code = await this.ingest(trigger);
    return code === EXIT.ok ? this.run("ingest") : code;
  }

  /** Runs `ckg ingest` in a child process; resolves to its exit code. A failed ingest leaves the live snapshot serving. */
  async ingest(trigger = "manual"): Promise<number> {
    if (this.ingesting) return this.ingesting.done;
    const since = isoSeconds();
    this.log.info({ trigger }, "ingest starting");
    // The child records itself in the ingests table (store/runs.ts).
    const child = spawnCommand("ingest", { ...this.config, data_dir: this.dir.root }, { args: ["--trigger", trigger] });
    const done = child.exited.then((code) => {
      this.ingesting = undefined;
      if (code === EXIT.ok) this.log.info({}, "ingest finished");
      else this.log.error({ code }, "ingest failed; the live snapshot keeps serving");
      return code;
    });
    this.ingesting = { since, child, done };
    return done;
  }

  async ingestStatus(): Promise<IngestStatus> {
    return {
      cron: this.config.ingest_cron,
      next_run: nextRunOf(this.ingestCron),
      running: this.ingesting ? { since: this.ingesting.since } : null,
      last: (await recentIngests(this.state, 1)).map(({ pid: _pid, ...record }) => record)[0] ?? null,
    };
  }

  /** Runs `ckg scan` now unless one is running (then waits for that one); resolves to its exit code. */
  run(trigger: string, extra: string[] = []): Promise<number> {
    if (this.current) return this.current.done;
    const since = isoSeconds();
    this.log.info({ trigger }, "signal scan starting");
    // The report goes to the scans table.
    const child = spawnCommand("scan", { ...this.config, data_dir: this.dir.root }, { args: ["--trigger", trigger, ...extra] });
    this.child = child;
    // Renewed from here too: the scan's detectors may hold its own event loop past a renewal.
    const release = holdLease(this.state, child.pid, this.config.scan_lease_ms, (error) => this.log.warn({ err: error.message }, "renewing the scan's lease failed"));
    const done = child.exited.then((code) => {
      release();
      this.current = undefined;
      this.child = undefined;
      if (code === EXIT.ok) this.log.info({ trigger }, "signal scan finished");
      else this.log.error({ trigger, code }, "signal scan failed or was partial; see /readyz for its errors");
      return code;
    });
    this.current = { trigger, since, done };
    return done;
  }

  /** What /readyz shows of scans and ingests; a state store that cannot be read (a PostgreSQL away) is said, not thrown. */
  async readiness(): Promise<{ state_store: StateStore["engine"]; scans: ScansStatus | null; ingest: IngestStatus | null; state_error?: string }> {
    const state_store = this.state.engine;
    try {
      const [scans, ingest] = await Promise.all([this.status(), this.ingestStatus()]);
      return { state_store, scans, ingest };
    } catch (error) {
      return { state_store, scans: null, ingest: null, state_error: `the state store cannot be read: ${(error as Error).message}` };
    }
  }

  get scanning(): boolean {
    return this.current !== undefined;
  }

  async status(): Promise<ScansStatus> {
    return {
      running: this.current ? { trigger: this.current.trigger, since: this.current.since } : null,
      cron: this.config.scan_cron,
      next_run: nextRunOf(this.cron),
      recent: (await recentScans(this.state, 5)).map((scan) => {
        // A scan that ended without its report (failed, interrupted, or one that could not be read) has its errors alone.
        const report = scan.report && "scan_id" in scan.report ? scan.report : null;
        const perType = Object.fromEntries((report?.types ?? []).map((t) => [t.type, t.found]));
        return {
          scan_id: scan.scan_id,
          trigger: scan.trigger,
          as_of: scan.as_of,
          status: scan.status,
          started_at: scan.started_at,
          finished_at: scan.finished_at,
          duration_ms: report?.duration_ms ?? null,
          signals: report ? Object.values(perType).reduce((a, b) => a + b, 0) : null,
          per_type: perType,
          errors: scan.report?.errors ?? [],
        };
      }),
    };
  }

  /**
   * Stops the schedules; a running scan or ingest may finish within `run_grace_ms`, then it is
   * stopped (SIGTERM) and recorded interrupted, to be redone at the next start.
   */
  async close(): Promise<void> {
    this.closing = true;
    this.cron?.stop();
    this.ingestCron?.stop();
    clearInterval(this.watch);
    const running = [this.current?.done, this.ingesting?.done].filter((p) => p !== undefined);
    if (running.length === 0) return;
    this.log.info({ grace_ms: this.config.run_grace_ms }, "waiting for the running scan or ingest to finish");
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all(running), new Promise((resolve) => (timer = setTimeout(resolve, this.config.run_grace_ms)))]);
    clearTimeout(timer);
    for (const child of [this.child, this.ingesting?.child]) {
      if (!child || child.exitCode !== null || child.signalCode !== null) continue;
      child.kill("SIGTERM");
      await child.exited;
    }
    const noticed = await markInterrupted(this.state);
    if (noticed.scans.length + noticed.ingests.length > 0) this.log.warn(noticed, "stopped before finishing: recorded interrupted, redone at the next start");
  }
}

/** A schedule's next run, or null when there is none (off, or a pattern that never fires again). */
function nextRunOf(cron: Cron | undefined): string | null {
  const next = cron?.nextRun();
  return next ? isoSeconds(next) : null;
}
