/**
 * Scheduled backups: a real `ckg serve` on a copy of the fixture takes a backup at each firing of
 * `CKG_BACKUP_CRON` (every two seconds here) into `CKG_BACKUP_DIR`, keeps the newest
 * `CKG_BACKUP_KEEP`, and each one it keeps is whole; a schedule with nowhere to go stops the start.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkBackup } from "../../src/backup/restore.ts";
import { selfCommand } from "../../src/runtime.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { startServer } from "../support/server.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { until } from "../support/until.ts";

describe("scheduled backups", () => {
  test("one per firing, the oldest beyond the count deleted, each one whole; nothing else in the folder touched", async () => {
    const dir = await copyOfFixture();
    const backups = tempDir("ckg-backups-");
    // Not a scheduled backup's name: never deleted.
    mkdirSync(join(backups, "mine"));
    writeFileSync(join(backups, "mine", "backup.json"), "{}");
    const server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), {
      CKG_LOG_LEVEL: "info",
      CKG_SCAN_CRON: "off",
      CKG_FIRST_SCAN: "false",
      CKG_BACKUP_CRON: "*/2 * * * * *",
      CKG_BACKUP_DIR: backups,
      CKG_BACKUP_KEEP: "2",
    });
    try {
      await server.waitReady(60_000);
      const taken = await until("three scheduled backups", 90_000, () => {
        const lines = server.lines().filter((l) => l.msg === "scheduled backup taken");
        return lines.length >= 3 && lines;
      });
      const removed = taken.flatMap((l) => l.removed as string[]);
      expect(removed.length).toBeGreaterThan(0);
      for (const name of removed) expect(existsSync(join(backups, name))).toBe(false);
    } finally {
      await server.stop();
    }
    const kept = readdirSync(backups).filter((name) => name.startsWith("ckg-backup-"));
    expect(kept.length).toBe(2);
    for (const name of kept) expect((await checkBackup(join(backups, name))).snapshot).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
    expect(existsSync(join(backups, "mine", "backup.json"))).toBe(true);
  }, 180_000);

  test("a schedule without a folder is a configuration error before the server starts", () => {
    const run = Bun.spawnSync(selfCommand("serve", "--data-dir", tempDir("ckg-backup-cfg-"), "--port", "0"), { env: { ...process.env, CKG_BACKUP_CRON: "0 3 * * *" } });
    expect(run.exitCode).toBe(2);
    expect(run.stderr.toString()).toContain("backup_cron (from CKG_BACKUP_CRON) = \"0 3 * * *\" needs backup_dir (unset)");
  });
});
