/**
 * @module signals/scheduler
 * When the server scans: once on the first start of a data directory that was never scanned (the
 * day before and the day, so lasting signals qualify at once), then on the configured cron. Every
 * scan is `ckg scan` in a child process, so detectors and graph algorithms never hold up requests;
 * one runs at a time. Results and failures are read back from the scans table (shown in /readyz).
 */
import type { Subprocess } from "bun";
import { Cron } from "croner";
import type { Config } from "../config/config.ts";
import type { Logger } from "../log.ts";
import { selfCommand } from "../runtime.ts";
import type { DataDir } from "../store/data-dir.ts";
import type { StateDb } from "../store/state-db.ts";
import { recentScans } from "./store.ts";

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

export class ScanScheduler {
  private cron: Cron | undefined;
  private child: Subprocess | undefined;
  private current: { trigger: string; since: string; done: Promise<number> } | undefined;

  constructor(
    private readonly config: Config,
    private readonly dir: DataDir,
    private readonly state: StateDb,
    private readonly log: Logger,
  ) {}

  /** Starts the schedule, and the first scan when this data directory has never been scanned. */
  start(): void {
    if (this.config.scan_cron !== "off" && !this.cron) {
      this.cron = new Cron(this.config.scan_cron, { timezone: "UTC", protect: true }, () => {
        void this.run("schedule");
      });
    }
    if (this.config.first_scan && recentScans(this.state, 1).length === 0) void this.run("first-start", ["--days", "2"]);
  }

  /** Runs `ckg scan` now unless one is running (then waits for that one); resolves to its exit code. */
  run(trigger: string, extra: string[] = []): Promise<number> {
    if (this.current) return this.current.done;
    const since = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    this.log.info({ trigger }, "signal scan starting");
    const child = Bun.spawn(
      selfCommand("scan", "--data-dir", this.dir.root, "--trigger", trigger, "--log-level", this.config.log_level, ...extra),
      {
        // The report goes to the scans table; the child's log lines (stderr) join the server's.
        stdio: ["ignore", "ignore", "inherit"],
        env: {
          ...process.env,
          ...(this.config.narrative_url ? { CKG_NARRATIVE_URL: this.config.narrative_url } : {}),
          CKG_NARRATIVE_MODEL: this.config.narrative_model,
          ...(this.config.narrative_api_key ? { CKG_NARRATIVE_API_KEY: this.config.narrative_api_key } : {}),
        },
      },
    );
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
      next_run: this.cron?.nextRun()?.toISOString().replace(/\.\d+Z$/, "Z") ?? null,
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
    if (this.child) {
      this.child.kill("SIGTERM");
      await this.child.exited;
    }
  }
}
