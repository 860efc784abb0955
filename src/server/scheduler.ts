/**
 * @module server/scheduler
 * When the server scans: once on the first start of a data directory that was never scanned (the
 * day before and the day, so lasting signals qualify at once), then on the configured cron. Every
 * scan is `ckg scan` in a child process, so detectors and graph algorithms never hold up requests;
 * one runs at a time. Results and failures are read back from the scans table (shown in /readyz).
 */
import type { Subprocess } from "bun";
import { Cron } from "croner";
import { type Config, ConfigError } from "../config/config.ts";
import type { Logger } from "../log.ts";
import type { DataDir } from "../store/data-dir.ts";
import type { StateDb } from "../store/state-db.ts";
import { recentScans } from "../signals/store.ts";
import { isoSeconds } from "../time.ts";
import { spawnCommand } from "./spawn.ts";

export interface SchedulerStatus {
  running: { trigger: string; since: string } | null;
  cron: string;
  next_run: string | null;
  recent: {
    scan_id: string;
    trigger: string;
    as_of: string;
    status: string;
    started_at: string;
    finished_at: string | null;
    duration_ms: number | null;
    signals: number | null;
    per_type: Record<string, number>;
    errors: { type: string; message: string }[];
  }[];
}

export interface IngestStatus {
  cron: string;
  next_run: string | null;
  running: { since: string } | null;
  last: { started_at: string; finished_at: string; exit_code: number } | null;
}

export class ScanScheduler {
  private cron: Cron | undefined;
  private ingestCron: Cron | undefined;
  private ingesting: { since: string; child: Subprocess } | undefined;
  private lastIngest: IngestStatus["last"] = null;
  private child: Subprocess | undefined;
  private current: { trigger: string; since: string; done: Promise<number> } | undefined;

  constructor(
    private readonly config: Config,
    private readonly dir: DataDir,
    private readonly state: StateDb,
    private readonly log: Logger,
  ) {
    const problems = (["scan_cron", "ingest_cron"] as const).filter((name) => !validCron(config[name]));
    if (problems.length > 0) {
      throw new ConfigError(problems.map((name) => `setting ${name} = ${JSON.stringify(config[name])}: a cron pattern such as '0 6 * * *', or off`));
    }
  }

  /** Starts the schedule, and the first scan when this data directory has never been scanned. */
  start(): void {
    if (this.config.scan_cron !== "off" && !this.cron) {
      this.cron = new Cron(this.config.scan_cron, { timezone: "UTC", protect: true }, () => {
        void this.run("schedule");
      });
    }
    if (this.config.ingest_cron !== "off" && !this.ingestCron) {
      this.ingestCron = new Cron(this.config.ingest_cron, { timezone: "UTC", protect: true }, async () => {
        const code = await this.ingest();
        // The scan reads the snapshot the ingest published (CURRENT), whether or not the server switched yet.
        if (code === 0) await this.run("ingest");
      });
    }
    if (this.config.first_scan && recentScans(this.state, 1).length === 0) void this.run("first-start", ["--days", "2"]);
  }

  /** Runs `ckg ingest` in a child process; resolves to its exit code. A failed ingest leaves the live snapshot serving. */
  async ingest(): Promise<number> {
    if (this.ingesting) return this.ingesting.child.exited;
    const since = isoSeconds();
    this.log.info({}, "ingest starting");
    const child = spawnCommand("ingest", { ...this.config, data_dir: this.dir.root });
    this.ingesting = { since, child };
    const code = await child.exited;
    this.ingesting = undefined;
    this.lastIngest = { started_at: since, finished_at: isoSeconds(), exit_code: code };
    if (code === 0) this.log.info({}, "ingest finished");
    else this.log.error({ code }, "ingest failed; the live snapshot keeps serving");
    return code;
  }

  ingestStatus(): IngestStatus {
    return {
      cron: this.config.ingest_cron,
      next_run: nextRunOf(this.ingestCron),
      running: this.ingesting ? { since: this.ingesting.since } : null,
      last: this.lastIngest,
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
    const done = child.exited.then((code) => {
      this.current = undefined;
      this.child = undefined;
      if (code === 0) this.log.info({ trigger }, "signal scan finished");
      else this.log.error({ trigger, code }, "signal scan failed or was partial; see /readyz for its errors");
      return code;
    });
    this.current = { trigger, since, done };
    return done;
  }

  get running(): boolean {
    return this.current !== undefined;
  }

  status(): SchedulerStatus {
    return {
      running: this.current ? { trigger: this.current.trigger, since: this.current.since } : null,
      cron: this.config.scan_cron,
      next_run: nextRunOf(this.cron),
      recent: recentScans(this.state, 5).map((scan) => {
        const report = scan.report as { duration_ms?: number; types?: { type: string; found: number }[]; errors?: { type: string; message: string }[] } | null;
        const perType = Object.fromEntries((report?.types ?? []).map((t) => [t.type, t.found]));
        return {
          scan_id: scan.scan_id,
          trigger: scan.trigger,
          as_of: scan.as_of,
          status: scan.status,
          started_at: scan.started_at,
          finished_at: scan.finished_at,
          duration_ms: report?.duration_ms ?? null,
          signals: report?.types ? Object.values(perType).reduce((a, b) => a + b, 0) : null,
          per_type: perType,
          errors: report?.errors ?? [],
        };
      }),
    };
  }

  async close(): Promise<void> {
    this.cron?.stop();
    this.ingestCron?.stop();
    if (this.ingesting) {
      this.ingesting.child.kill("SIGTERM");
      await this.ingesting.child.exited;
    }
    if (this.child) {
      this.child.kill("SIGTERM");
      await this.child.exited;
    }
  }
}

/** "off", or a pattern croner's own parser accepts. */
function validCron(pattern: string): boolean {
  if (pattern === "off") return true;
  try {
    new Cron(pattern, { paused: true, timezone: "UTC" }).stop();
    return true;
  } catch {
    return false;
  }
}

/** A schedule's next run, or null when there is none (off, or a pattern that never fires again). */
function nextRunOf(cron: Cron | undefined): string | null {
  const next = cron?.nextRun();
  return next ? isoSeconds(next) : null;
}
