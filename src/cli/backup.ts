/**
 * @module cli/backup
 * `ckg backup <path>` and `ckg restore <path>` (backup/): a consistent copy of the live snapshot and
 * the state, taken while the server runs, and its way back into an empty data directory. `--verify`
 * proves a backup restores: into a scratch directory, opened and queried by this ckg.
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import type { Config } from "../config/config.ts";
import { EXIT } from "../exit-codes.ts";
import { type Command, UsageError } from "./command.ts";

const scratch = { type: "string", help: "where --verify restores its scratch copy (default: the system's temporary folder); it needs room for the whole backup" } as const;

export const backup: Command = {
  name: "backup",
  summary: "Copy the live snapshot and the state (consistently, while the server runs) into a new directory; --verify restores it into a scratch directory and queries it.",
  usage: "<path> [--verify] [options]",
  settings: COMMAND_SETTINGS.backup,
  options: {
    verify: { type: "boolean", help: "then restore it into a scratch directory, check every file's SHA-256 and ask each engine a question" },
    scratch,
  },
  async run({ config, positionals, options }) {
    const [dest] = positionals;
    if (!dest || positionals.length > 1) throw new UsageError("give one path for the backup: ckg backup <path> (a new directory)");
    const [{ takeBackup }, { dataDir }] = await Promise.all([import("../backup/take.ts"), import("../store/data-dir.ts")]);
    const taken = await takeBackup(dataDir(config.data_dir), dest, config.state_url);
    const rows = Object.values(taken.manifest.state.tables).reduce((a, b) => a + b, 0);
    console.log(
      `backup ${taken.path}: snapshot ${taken.manifest.snapshot}, ${taken.manifest.state.engine} state (${rows} rows in ${Object.keys(taken.manifest.state.tables).length} tables), ` +
        `${taken.manifest.files.length} files, ${mib(taken.bytes)} MiB, in ${seconds(taken.ms)} s`,
    );
    return options.verify ? verify(taken.path, config, options.scratch as string | undefined) : EXIT.ok;
  },
};

export const restore: Command = {
  name: "restore",
  summary: "Restore a backup into an empty data directory (every file checked first; nothing changes if any is wrong); --verify only checks it, in a scratch directory.",
  usage: "<path> [--verify] [options]",
  settings: COMMAND_SETTINGS.restore,
  options: {
    verify: { type: "boolean", help: "do not restore: check the backup in a scratch directory (files, and a question to each engine)" },
    scratch,
  },
  async run({ config, positionals, options }) {
    const [from] = positionals;
    if (!from || positionals.length > 1) throw new UsageError("give the backup's path: ckg restore <path> [--data-dir DIR]");
    if (options.verify) return verify(from, config, options.scratch as string | undefined);
    const [{ restoreBackup }, { dataDir }] = await Promise.all([import("../backup/restore.ts"), import("../store/data-dir.ts")]);
    const restored = await restoreBackup(from, dataDir(config.data_dir), config.state_url);
    const { manifest } = restored;
    const where = manifest.state.engine === "postgresql" ? "its state into the PostgreSQL database at CKG_STATE_URL" : "its state";
    console.log(
      `restored ${from} (taken ${manifest.created_at} by ckg ${manifest.ckg_version}) into ${dataDir(config.data_dir).root}: snapshot ${manifest.snapshot} and ${where}, ` +
        `${mib(restored.bytes)} MiB, in ${seconds(restored.ms)} s`,
    );
    return EXIT.ok;
  },
};

async function verify(path: string, config: Config, scratchParent: string | undefined): Promise<number> {
  const [{ verifyBackup }, { createLogger }] = await Promise.all([import("../supervisor/backup-verify.ts"), import("../log.ts")]);
  const result = await verifyBackup(path, config, createLogger(config.log_level === "info" ? "warn" : config.log_level, 2), scratchParent);
  for (const check of result.checks) console.log(`  ${check.ok ? "ok  " : "FAIL"} ${check.what.padEnd(8)} ${check.detail}`);
  console.log(`${result.ok ? "verified" : "verification FAILED"}: ${path} (restored in ${seconds(result.restoreMs)} s, checked in ${seconds(result.ms)} s)`);
  return result.ok ? EXIT.ok : EXIT.failure;
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const seconds = (ms: number) => (ms / 1000).toFixed(1);
