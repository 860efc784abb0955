/**
 * @module config/settings-backup
 * Scheduled backups (`ckg backup` run by the server on a cron, backup/): off by default.
 */
import { z } from "zod";
import { type Setting, type SettingRule, setting } from "./setting.ts";

export const BACKUP_SETTINGS = {
  backup_cron: setting(
    "string",
    z.string().min(1, "a cron pattern such as '0 3 * * *', or off"),
    "off",
    "when the server takes a backup (`ckg backup` into backup_dir; cron, UTC); off disables it",
  ),
  backup_dir: setting("string", z.string().min(1).optional(), undefined, "where scheduled backups go, each in a folder of its own named ckg-backup-<time> (needed when backup_cron is set; best on another disk)"),
  backup_keep: setting("integer", z.number().int().min(1).max(1000), 7, "scheduled backups kept: after each one, the oldest beyond this many are deleted"),
} as const satisfies Record<string, Setting>;

type BackupValues = { backup_cron: string; backup_dir: string | undefined };

export const BACKUP_RULES: readonly SettingRule<BackupValues>[] = [
  {
    settings: ["backup_cron", "backup_dir"],
    summary: "backup_cron other than off needs backup_dir: where the backups go",
    check: (values, describe) => (values.backup_cron !== "off" && !values.backup_dir ? [`${describe("backup_cron")} needs backup_dir (unset): where the backups go`] : []),
  },
];
