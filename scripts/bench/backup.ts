/**
 * Backup, restore and verification of a data directory, timed. Run by hand:
 *   bun scripts/bench/backup.ts --data-dir DIR [--work DIR]
 *
 * Through the CLI as a person runs it (child processes of this checkout's ckg): `ckg backup`,
 * `ckg restore` into an empty directory, `ckg restore --verify` (restore into a scratch directory,
 * hashes, one question per engine). Prints each one's wall time and the backup's size, beside the
 * floor: `cp -r` of the same snapshot folder and state file (no consistency, no hashes). Each
 * copy is deleted before the next is made, so the disk needs room for two copies at most.
 */
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { listFiles } from "../../src/store/file-hashes.ts";
import { selfCommand } from "../../src/runtime.ts";
import { dataDir, liveSnapshotId, snapshotPath } from "../../src/store/data-dir.ts";

const { values } = parseArgs({ options: { "data-dir": { type: "string" }, work: { type: "string", default: "/tmp/ckg-bench-backup" } } });
if (!values["data-dir"]) throw new Error("give --data-dir DIR (a data directory with a snapshot)");
const dir = dataDir(values["data-dir"]);
const work = values.work!;
rmSync(work, { recursive: true, force: true });

function timed(what: string, argv: string[]): number {
  const started = performance.now();
  const run = Bun.spawnSync(argv, { env: { ...process.env, CKG_LOG_LEVEL: "warn" }, stdout: "pipe", stderr: "pipe" });
  const ms = performance.now() - started;
  if (run.exitCode !== 0) throw new Error(`${what}: exit ${run.exitCode}: ${run.stderr.toString()}`);
  process.stderr.write(run.stdout.toString());
  return ms;
}

const size = (root: string) => listFiles(root).reduce((sum, path) => sum + statSync(join(root, path)).size, 0);
const row = (what: string, ms: number, extra = "") => console.log(`${what.padEnd(64)} ${(ms / 1000).toFixed(1).padStart(8)} s ${extra}`);

const backup = join(work, "backup");
const floor = join(work, "cp");
const restored = join(work, "restored");
try {
  const snapshot = liveSnapshotId(dir);
  const floorMs = timed("cp", ["sh", "-c", `mkdir -p ${floor} && cp -r ${snapshotPath(dir, snapshot)} ${floor}/ && (test ! -f ${dir.stateDb} || cp ${dir.stateDb} ${floor}/)`]);
  rmSync(floor, { recursive: true, force: true });
  const backupMs = timed("backup", selfCommand("backup", backup, "--data-dir", dir.root));
  const bytes = size(backup);
  const restoreMs = timed("restore", selfCommand("restore", backup, "--data-dir", restored));
  rmSync(restored, { recursive: true, force: true });
  const verifyMs = timed("verify", selfCommand("restore", backup, "--verify", "--scratch", work));
  console.log(`data directory ${dir.root}, snapshot ${snapshot}`);
  row("floor: cp -r of the snapshot and the state file", floorMs);
  row("ckg backup (consistent state copy, SHA-256 of each file)", backupMs, `${(bytes / 2 ** 20).toFixed(0)} MiB, ${(backupMs / floorMs).toFixed(2)}x the floor`);
  row("ckg restore into an empty directory (hashes before and after)", restoreMs, `${(restoreMs / floorMs).toFixed(2)}x the floor`);
  row("ckg restore --verify (scratch restore, open, ask every engine)", verifyMs);
} finally {
  rmSync(work, { recursive: true, force: true });
}
