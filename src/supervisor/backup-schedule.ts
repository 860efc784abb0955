/**
 * @module supervisor/backup-schedule
 * Scheduled backups (`backup_cron`, off by default): at each firing the server runs `ckg backup
 * <backup_dir>/ckg-backup-<time>` in a child process (copying gigabytes and reading the whole state
 * never holds up a request), then deletes the oldest scheduled backups beyond `backup_keep`. Only
 * folders this schedule names and that hold a backup.json are ever deleted, and a failed backup
 * deletes nothing. Replicas sharing the state store take each firing's backup once (the first to
 * claim it).
 */
import { Cron } from "croner";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { BACKUP_FILE } from "../backup/manifest.ts";
import type { Config } from "../config/config.ts";
import type { Logger } from "../log.ts";
import type { StateStore } from "../store/state.ts";
import { claimRun } from "../store/runs.ts";
import { isoSeconds } from "../time.ts";
import { spawnCommand } from "./spawn.ts";

const PREFIX = "ckg-backup-";
const NAMED = /^ckg-backup-\d{8}T\d{6}Z$/;

export class BackupSchedule {
  private cron: Cron | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly config: Config,
    private readonly state: StateStore,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.config.backup_cron === "off" || this.cron || !this.config.backup_dir) return;
    this.cron = new Cron(this.config.backup_cron, { timezone: "UTC", protect: true }, (cron) => {
      this.running = this.fire(cron.currentRun() ?? new Date()).finally(() => (this.running = undefined));
    });
    this.log.info({ cron: this.config.backup_cron, dir: this.config.backup_dir, keep: this.config.backup_keep, next: this.cron.nextRun()?.toISOString() }, "backups scheduled");
  }

  /** When the next backup is due (for /readyz and the log). */
  get nextRun(): string | null {
    return this.cron?.nextRun()?.toISOString() ?? null;
  }

  /** Stops the schedule; a backup in progress is waited for (its child writes beside and renames, so a kill would leave nothing either). */
  async close(): Promise<void> {
    this.cron?.stop();
    await this.running;
  }

  private async fire(firedAt: Date): Promise<void> {
    const stamp = isoSeconds(firedAt);
    const claim = await claimRun(this.state, `backup@${stamp}`);
    if (!claim.claimed) return this.log.info({ holder: claim.holder }, "scheduled backup runs on another replica");
    const dir = this.config.backup_dir!;
    const dest = join(dir, `${PREFIX}${stamp.replace(/[-:]/g, "")}`);
    const started = performance.now();
    const child = spawnCommand("backup", this.config, { args: [dest] });
    const code = await child.exited;
    if (code !== 0) return this.log.error({ dest, exit_code: code }, "scheduled backup failed (its reason is logged above); older backups are kept");
    const removed = prune(dir, this.config.backup_keep);
    this.log.info({ dest, ms: Math.round(performance.now() - started), removed }, "scheduled backup taken");
  }
}

/** Deletes the oldest complete scheduled backups in `dir` beyond `keep`; returns the ones deleted. */
function prune(dir: string, keep: number): string[] {
  if (!existsSync(dir)) return [];
  const backups = readdirSync(dir)
    .filter((name) => NAMED.test(name) && existsSync(join(dir, name, BACKUP_FILE)))
    .sort();
  const old = backups.slice(0, Math.max(0, backups.length - keep));
  for (const name of old) rmSync(join(dir, name), { recursive: true, force: true });
  return old;
}
