/**
 * Signed snapshots: how long `ckg snapshot pack`, `verify` and `install` take on
 * a data directory's live snapshot, and what a server's signature check adds before it serves one.
 * Run by hand, on a quiet machine:
 *   bun scripts/bench/snapshot-pack.ts [--data-dir DIR] [--rounds 3]
 *
 * `--data-dir`: a built data directory, read only (a full-scale one: `ckg build --scale full`).
 * Without it, a default-scale one is built in a scratch folder first (said in the output). Each
 * round runs the real commands as child processes: pack into a new file, verify it, install it into
 * an empty data directory; then a server with trusted keys starts on that directory once and its
 * "snapshot signature checked" line gives the check's time. Beside them, the floors under the same
 * bytes: OpenSSL's SHA-256 of every file (what pack and verify must at least hash; coreutils'
 * sha256sum is slower than the hash ckg uses) and `cp -r` of the snapshot folder (what install must
 * at least write). The snapshot's files are in the page cache after the first step (nothing drops
 * it), so every figure is a warm-cache one. Needs free disk for two copies of the snapshot (pack and
 * install); everything is removed at the end.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { selfCommand } from "../../src/runtime.ts";
import { listFiles } from "../../src/store/file-hashes.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { startServer } from "../../test/support/server.ts";
import { until } from "../../test/support/until.ts";
import { median, printTable } from "./stats.ts";

const { values } = parseArgs({ options: { "data-dir": { type: "string" }, rounds: { type: "string", default: "3" } } });
const rounds = Number(values.rounds);
const scratch = mkdtempSync(join(tmpdir(), "ckg-bench-pack-"));
const env = { ...process.env, CKG_LOG_LEVEL: "warn" };

/** Runs a command to its end; its wall time (s) and peak RSS (MB, GNU time). */
function timed(argv: string[], extraEnv: Record<string, string> = {}): { s: number; rssMb: number; out: string } {
  const started = performance.now();
  const run = Bun.spawnSync(["/usr/bin/time", "-f", "%M", ...argv], { env: { ...env, ...extraEnv } });
  const s = (performance.now() - started) / 1000;
  const err = run.stderr.toString();
  if (run.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${run.exitCode}: ${err}`);
  const rssKb = Number(err.trim().split("\n").at(-1));
  return { s, rssMb: rssKb / 1024, out: run.stdout.toString() };
}

try {
  let root = values["data-dir"];
  if (!root) {
    root = join(scratch, "built");
    const built = timed(selfCommand("build", "--data-dir", root));
    console.log(`no --data-dir: built a default-scale data directory in ${built.s.toFixed(1)} s (${root})`);
  }
  const source = dataDir(root);
  const id = currentSnapshotId(source);
  if (!id) throw new Error(`no snapshot in ${root}`);
  const folder = snapshotPath(source, id);
  const files = listFiles(folder);
  const bytes = files.reduce((sum, f) => sum + statSync(join(folder, f)).size, 0);
  console.log(`snapshot ${id} in ${root}: ${files.length} files, ${(bytes / 1e9).toFixed(2)} GB; ${rounds} rounds, warm page cache`);
  const keys = timed(selfCommand("keys", "generate", "--out", join(scratch, "keys")));
  const pub = keys.out.trim();
  const key = join(scratch, "keys", "ckg-snapshot.key");

  const times: Record<string, number[]> = { hash: [], copy: [], pack: [], verify: [], install: [] };
  const rss: Record<string, number> = { pack: 0, verify: 0, install: 0 };
  let check = 0;
  for (let round = 0; round < rounds; round++) {
    times.hash!.push(timed(["sh", "-c", `cd '${folder}' && find . -type f -print0 | xargs -0 openssl dgst -sha256 > /dev/null`]).s);
    const copyTo = join(scratch, "copy");
    times.copy!.push(timed(["cp", "-r", folder, copyTo]).s);
    rmSync(copyTo, { recursive: true, force: true });
    const pack = join(scratch, "snapshot.ckg.tar");
    const packed = timed(selfCommand("snapshot", "pack", pack, "--data-dir", root, "--snapshot-signing-key", key));
    const verified = timed(selfCommand("snapshot", "verify", pack), { CKG_SNAPSHOT_TRUSTED_KEYS: pub });
    const target = join(scratch, "installed");
    const installed = timed(selfCommand("snapshot", "install", pack, "--data-dir", target), { CKG_SNAPSHOT_TRUSTED_KEYS: pub });
    for (const [name, run] of Object.entries({ pack: packed, verify: verified, install: installed })) {
      times[name]!.push(run.s);
      rss[name] = Math.max(rss[name]!, run.rssMb);
    }
    if (round === 0) {
      console.log(`pack file: ${(statSync(pack).size / 1e9).toFixed(2)} GB`);
      Bun.spawnSync(["sync"]); // the install's writes reach the disk first, so their writeback does not slow the check
      const server = await startServer(selfCommand("serve", "--data-dir", target, "--port", "0"), { CKG_LOG_LEVEL: "info", CKG_SNAPSHOT_TRUSTED_KEYS: pub, CKG_FIRST_SCAN: "false", CKG_SCAN_CRON: "off" });
      try {
        const line = await until("the server's signature check", 600_000, () => server.lines().find((l) => l.msg === "snapshot signature checked"));
        check = Number(line.ms) / 1000;
      } finally {
        await server.stop();
      }
    }
    rmSync(pack, { force: true });
    rmSync(target, { recursive: true, force: true });
  }
  const gbps = (s: number) => `${(bytes / 1e9 / s).toFixed(2)} GB/s`;
  const row = (name: string, label: string): [string, string] => {
    const s = median(times[name]!);
    return [label, `${s.toFixed(2)} s (${gbps(s)})${rss[name] ? `, peak RSS ${Math.round(rss[name]!)} MB` : ""}; rounds ${times[name]!.map((t) => t.toFixed(2)).join(", ")}`];
  };
  printTable(`Signed snapshot ${id} (${(bytes / 1e9).toFixed(2)} GB), medians of ${rounds}`, [
    row("pack", "ckg snapshot pack (hash, sign, write)"),
    row("verify", "ckg snapshot verify (signature, every file's SHA-256)"),
    row("install", "ckg snapshot install (verify while unpacking, publish)"),
    ["server: signature check before serving", `${check.toFixed(2)} s (${gbps(check)}), first round`],
    row("hash", "floor: openssl dgst -sha256 of every file"),
    row("copy", "floor: cp -r of the snapshot folder"),
  ]);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
