/**
 * The migration time of a default data directory (how long an upgrade keeps a server down). Run by
 * hand, under the shared lock:
 *   flock /tmp/ckg-bench.lock bun scripts/bench/migration.ts [--data-dir <dir>] [--runs 5] [--scale default]
 *
 * `--data-dir`: a default data directory written by the previous release (left unchanged). Without
 * it, the previous release (CHANGELOG.md) is checked out in a git worktree and writes one: `build`
 * (`--scale`, default: the default scale), `scan`, and `serve` until ready (which applies the snapshot's changes to the state
 * store). Each run times, on a fresh working copy (snapshot hard-linked, state.sqlite copied), what
 * this ckg does to a directory before it serves it: refuseNewerDataDir, openSqliteState (which
 * migrates) and recordFormats.
 *   - upgrade from the previous release: the copy as that release left it (no format.json);
 *   - baseline, nothing to migrate: the same copy once upgraded;
 *   - a state step to run: the copy with the last state step undone (its tables dropped, user_version
 *     one less), so the kept copy of the database (VACUUM INTO) and the step in its transaction run;
 *   - baseline, a plain copy of state.sqlite (copyFileSync).
 */
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type DataDir, dataDir, liveSnapshotId, recordFormats, refuseNewerDataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { MIGRATIONS } from "../../src/store/migrations-sqlite.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { checkOut, previousRelease, releaseCkg, removeCheckout, runRelease } from "../../test/support/previous-release.ts";
import { startServer } from "../../test/support/server.ts";
import { percentile, printTable } from "./stats.ts";
import { workingCopy } from "./working-copy.ts";

const { values } = parseArgs({ options: { "data-dir": { type: "string" }, runs: { type: "string", default: "5" }, scale: { type: "string", default: "default" } } });
const runs = Number(values.runs);
const scratch = mkdtempSync(join(tmpdir(), "ckg-bench-migration-"));

/** A default data directory as the previous release writes it, made in `scratch`. */
async function writtenByPreviousRelease(): Promise<string> {
  const release = previousRelease();
  const worktree = join(scratch, "release");
  const root = join(scratch, "previous");
  checkOut(release, worktree);
  try {
    const env = { CKG_LOG_LEVEL: "warn", CKG_SCAN_CRON: "off", CKG_INGEST_CRON: "off", CKG_FIRST_SCAN: "false" };
    let t0 = performance.now();
    runRelease(worktree, ["build", "--data-dir", root, "--scale", values.scale!], env);
    console.log(`ckg ${release.version} (${release.commit}) built a data directory at scale ${values.scale} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    t0 = performance.now();
    runRelease(worktree, ["scan", "--data-dir", root], env);
    console.log(`... scanned it in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const server = await startServer(releaseCkg(worktree, "serve", "--data-dir", root, "--port", "0"), { ...env, CKG_LOG_LEVEL: "info" }, { cwd: worktree });
    await server.waitReady(600_000);
    await server.stop();
  } finally {
    removeCheckout(worktree);
  }
  return root;
}

const source = dataDir(values["data-dir"] ?? (await writtenByPreviousRelease()));
if (existsSync(source.formats)) throw new Error(`${source.formats} exists: this directory was already opened by a ckg that records formats, so there is nothing to upgrade`);

/** A working copy with the source's state database copied in; the time that copy took. */
function copyOf(): { root: string; dir: DataDir; copyMs: number } {
  const { root, dir } = workingCopy(source, "ckg-bench-migration-copy-");
  const t0 = performance.now();
  copyFileSync(source.stateDb, dir.stateDb);
  if (existsSync(`${source.stateDb}-wal`)) copyFileSync(`${source.stateDb}-wal`, `${dir.stateDb}-wal`); // left by a server that did not close it
  return { root, dir, copyMs: performance.now() - t0 };
}

/** What this ckg does to a data directory before serving it (main.ts, Services.open). */
async function open(dir: DataDir): Promise<number> {
  const t0 = performance.now();
  refuseNewerDataDir(dir);
  const state = openSqliteState(dir.stateDb);
  recordFormats(dir);
  await state.close();
  return performance.now() - t0;
}

/** The last state step undone: what a ckg that knew one step less left (the step only makes tables and their indexes). */
function undoLastStateStep(path: string): void {
  const step = MIGRATIONS.at(-1)!;
  const statements = step.split(";").map((s) => s.trim()).filter(Boolean);
  if (!statements.every((s) => /^CREATE (TABLE|INDEX) /.test(s))) throw new Error("the last state step does more than make tables and indexes; undo it by hand");
  const db = new Database(path);
  for (const [, table] of step.matchAll(/CREATE TABLE (\w+)/g)) db.exec(`DROP TABLE ${table}`);
  db.exec(`PRAGMA user_version = ${MIGRATIONS.length - 1}`);
  db.close();
}

const samples: Record<string, number[]> = { upgrade: [], none: [], step: [], copy: [] };
for (let run = 0; run < runs; run++) {
  const upgraded = copyOf();
  samples.copy!.push(upgraded.copyMs);
  samples.upgrade!.push(await open(upgraded.dir));
  samples.none!.push(await open(upgraded.dir));
  rmSync(upgraded.root, { recursive: true, force: true });

  const behind = copyOf();
  undoLastStateStep(behind.dir.stateDb);
  samples.step!.push(await open(behind.dir));
  if (!existsSync(`${behind.dir.stateDb}.v${MIGRATIONS.length - 1}`)) throw new Error("the state step ran without keeping a copy");
  rmSync(behind.root, { recursive: true, force: true });
}

const mb = (path: string) => `${(statSync(path).size / 1e6).toFixed(1)} MB`;
const p50 = (name: string) => percentile(samples[name]!, 50);
const ms = (name: string) => `p50 ${p50(name).toFixed(1)} ms (min ${Math.min(...samples[name]!).toFixed(1)}, max ${Math.max(...samples[name]!).toFixed(1)})`;
const scale = readManifest(snapshotPath(source, liveSnapshotId(source))).build.scale;
printTable(`Migration of a data directory of scale ${scale} (${source.root}; state.sqlite ${mb(source.stateDb)}), ${runs} runs`, [
  ["baseline: open with nothing to migrate", ms("none")],
  ["baseline: plain copy of state.sqlite", ms("copy")],
  ["upgrade from the previous release", `${ms("upgrade")}; ${(p50("upgrade") / p50("none")).toFixed(2)}x nothing to migrate`],
  ["a state step to run (copy kept + step)", `${ms("step")}; ${(p50("step") / p50("copy")).toFixed(2)}x a plain copy, ${(p50("step") / p50("none")).toFixed(1)}x nothing to migrate`],
]);
rmSync(scratch, { recursive: true, force: true });
