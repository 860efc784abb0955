/**
 * @module store/data-dir
 * The layout of the one data directory. It can be copied to another machine and served there.
 *
 *   <data_dir>/
 *     CURRENT                 id of the live snapshot (replaced atomically by rename)
 *     snapshots/<id>/         immutable snapshots (manifest.json, Parquet tables, graph.nq, ...)
 *     state.sqlite            state that changes between snapshots (change log, later signals, payments)
 *     runtime/                native libraries unpacked by the single executable
 *     tmp/                    snapshots being built, and the next CURRENT while one is published; never read by the server
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync, rmSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";

export interface DataDir {
  root: string;
  snapshots: string;
  current: string;
  stateDb: string;
  runtime: string;
  tmp: string;
}

export function dataDir(root: string): DataDir {
  const abs = resolve(root);
  return {
    root: abs,
    snapshots: join(abs, "snapshots"),
    current: join(abs, "CURRENT"),
    stateDb: join(abs, "state.sqlite"),
    runtime: join(abs, "runtime"),
    tmp: join(abs, "tmp"),
  };
}

export function ensureDataDir(dir: DataDir): void {
  for (const path of [dir.root, dir.snapshots, dir.runtime, dir.tmp]) mkdirSync(path, { recursive: true });
}

const SNAPSHOT_ID = /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}$/;

export function currentSnapshotId(dir: DataDir): string | null {
  if (!existsSync(dir.current)) return null;
  const id = readFileSync(dir.current, "utf8").trim();
  if (!SNAPSHOT_ID.test(id) || !existsSync(snapshotPath(dir, id))) return null;
  return id;
}

/** A command that needs a live snapshot, run on a data directory without one: said one way everywhere, and its own exit code (exit-codes.ts). */
export class NoSnapshotError extends Error {
  constructor(root: string) {
    super(`${root} holds no snapshot yet; run 'ckg build' (or 'ckg ingest', 'ckg import <dir>', 'ckg serve') first.`);
    this.name = "NoSnapshotError";
  }
}

/** The live snapshot's id; NoSnapshotError when there is none. */
export function liveSnapshotId(dir: DataDir): string {
  const id = currentSnapshotId(dir);
  if (!id) throw new NoSnapshotError(dir.root);
  return id;
}

export function snapshotPath(dir: DataDir, id: string): string {
  return join(dir.snapshots, id);
}

export function newSnapshotId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  const random = crypto.getRandomValues(new Uint8Array(3));
  return `${stamp}-${Buffer.from(random).toString("hex")}`;
}

/** A fresh folder under tmp/ to build a snapshot in; `publishSnapshot` moves it into place. */
export function stagingPath(dir: DataDir, id: string): string {
  const path = join(dir.tmp, id);
  mkdirSync(path, { recursive: true });
  return path;
}

/** Where a publishing process writes the next CURRENT before renaming it into place: in tmp/, so a build clears it if that process died. */
export function pendingCurrentPath(dir: DataDir, pid = process.pid): string {
  return join(dir.tmp, `CURRENT.${pid}`);
}

/**
 * Moves a finished snapshot from tmp/ into snapshots/ and points CURRENT at it. The new pointer is
 * written first (the one step that needs disk space: a full disk fails it before anything moved),
 * then both steps are renames on one file system, so a crash leaves either the old snapshot or the
 * new one live, never a half-written one. A crash between the two renames leaves a complete
 * snapshot that never went live in snapshots/, and the pointer in tmp/, which the next build clears.
 */
export function publishSnapshot(dir: DataDir, id: string): string {
  const target = snapshotPath(dir, id);
  const pointer = pendingCurrentPath(dir);
  try {
    writeFileSync(pointer, `${id}\n`);
  } catch (error) {
    rmSync(pointer, { force: true });
    throw error;
  }
  renameSync(join(dir.tmp, id), target);
  renameSync(pointer, dir.current);
  return target;
}

/** Removes leftovers of builds that crashed; called before a new build starts. */
export function clearStaleStaging(dir: DataDir, keep: string[] = []): void {
  if (!existsSync(dir.tmp)) return;
  for (const name of readdirSync(dir.tmp)) {
    if (!keep.includes(name)) rmSync(join(dir.tmp, name), { recursive: true, force: true });
  }
}
