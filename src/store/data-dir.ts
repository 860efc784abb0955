/**
 * @module store/data-dir
 * The layout of the one data directory. It can be copied to another machine and served there.
 *
 *   <data_dir>/
 *     CURRENT                 id of the live snapshot (replaced atomically by rename)
 *     snapshots/<id>/         immutable snapshots (manifest.json, Parquet tables, graph.nq, ...)
 *     state.sqlite            state that changes between snapshots (change log, later signals, payments)
 *     runtime/                native libraries unpacked by the single executable
 *     format.json             the layout's format, and the formats and release of the newest ckg that wrote here (store/formats.ts)
 *     tmp/                    snapshots being built, and the next CURRENT while one is published; never read by the server
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync, rmSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { DATA_DIR_FORMAT, SEARCH_FORMAT, SNAPSHOT_FORMAT, STATE_FORMATS, refuseNewer, refuseNewerSnapshot } from "./formats.ts";
import { MANIFEST_FILE } from "./manifest.ts";
import { VERSION } from "../version.ts";

export interface DataDir {
  root: string;
  snapshots: string;
  current: string;
  stateDb: string;
  runtime: string;
  tmp: string;
  formats: string;
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
    formats: join(abs, "format.json"),
  };
}

export function ensureDataDir(dir: DataDir): void {
  for (const path of [dir.root, dir.snapshots, dir.runtime, dir.tmp]) mkdirSync(path, { recursive: true });
}

/** What a snapshot id looks like (newSnapshotId): CURRENT naming anything else names no snapshot. */
export const SNAPSHOT_ID = /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}$/;

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
 * Moves a finished snapshot from tmp/ into snapshots/ and points CURRENT at it. The new pointer and
 * format record are written first (the one step that needs disk space: a full disk fails it before
 * anything moved), then every step is a rename on one file system, so a crash leaves either the old
 * snapshot or the new one live, never a half-written one. A crash between the renames leaves a
 * complete snapshot that never went live in snapshots/, or the previous format record (the manifest
 * records the snapshot's own formats), and the pointer in tmp/, which the next build clears.
 */
export function publishSnapshot(dir: DataDir, id: string): string {
  const target = snapshotPath(dir, id);
  const pointer = pendingCurrentPath(dir);
  let record: () => void;
  try {
    writeFileSync(pointer, `${id}\n`);
    record = stageFormatRecord(dir);
  } catch (error) {
    rmSync(pointer, { force: true });
    throw error;
  }
  renameSync(join(dir.tmp, id), target);
  renameSync(pointer, dir.current);
  record();
  return target;
}

/** Removes leftovers of builds that crashed; called before a new build starts. */
export function clearStaleStaging(dir: DataDir, keep: string[] = []): void {
  if (!existsSync(dir.tmp)) return;
  for (const name of readdirSync(dir.tmp)) {
    if (!keep.includes(name)) rmSync(join(dir.tmp, name), { recursive: true, force: true });
  }
}

/** format.json: what the newest ckg that wrote into the directory wrote. */
export interface FormatRecord {
  data_dir: number;
  snapshot: number;
  search: number;
  state: { sqlite: number; postgresql: number };
  written_by: string;
}

/**
 * The record as found, unchecked: `data_dir` is read first, and a record whose shape a newer ckg
 * changed has a newer `data_dir`, so this ckg never needs to understand the rest of it.
 */
export function readFormatRecord(dir: DataDir): Partial<FormatRecord> | null {
  if (!existsSync(dir.formats)) return null;
  return JSON.parse(readFileSync(dir.formats, "utf8")) as Partial<FormatRecord>;
}

/**
 * Refuses a data directory written by a newer ckg (NewerFormatError), reading only format.json and
 * the live snapshot's manifest: every command runs it before it opens the directory (main.ts), so
 * even the commands that only read stop with the reason. The state store checks its own version
 * when it opens (state-sqlite.ts, state-postgres.ts). A directory with no record is older than
 * format.json (ckg 0.1.0): its parts are format 1, and the next write records them.
 */
export function refuseNewerDataDir(dir: DataDir): void {
  const record = readFormatRecord(dir);
  if (record) {
    const where = (part: string) => `the data directory ${dir.root} (${part} in format.json)`;
    const by = record.written_by;
    refuseNewer(where("its layout"), record.data_dir, DATA_DIR_FORMAT, by);
    refuseNewer(where("its snapshots"), record.snapshot, SNAPSHOT_FORMAT, by);
    refuseNewer(where("its search index"), record.search, SEARCH_FORMAT, by);
    refuseNewer(where("its SQLite state store"), record.state?.sqlite, STATE_FORMATS.sqlite, by);
    refuseNewer(where("its PostgreSQL state store"), record.state?.postgresql, STATE_FORMATS.postgresql, by);
  }
  const id = currentSnapshotId(dir);
  if (id) refuseNewerSnapshot(JSON.parse(readFileSync(join(snapshotPath(dir, id), MANIFEST_FILE), "utf8")), snapshotPath(dir, id));
}

/**
 * Records this ckg's formats in format.json once it has written into the directory (a published
 * snapshot, a state store brought up to date): an older ckg then refuses the directory, since parts
 * of it may be in formats it cannot read. Written beside and renamed into place, so a reader sees the
 * old record or the new one; a directory written by an older ckg gets its first record this way.
 */
export function recordFormats(dir: DataDir): void {
  stageFormatRecord(dir)();
}

/** Writes the record beside format.json (in tmp/); the function returned renames it into place. */
function stageFormatRecord(dir: DataDir): () => void {
  const record: FormatRecord = { data_dir: DATA_DIR_FORMAT, snapshot: SNAPSHOT_FORMAT, search: SEARCH_FORMAT, state: { ...STATE_FORMATS }, written_by: VERSION };
  const text = `${JSON.stringify(record, null, 2)}\n`;
  if (existsSync(dir.formats) && readFileSync(dir.formats, "utf8") === text) return () => undefined;
  mkdirSync(dir.tmp, { recursive: true });
  const next = join(dir.tmp, `format.json.${process.pid}`);
  try {
    writeFileSync(next, text);
  } catch (error) {
    rmSync(next, { force: true });
    throw error;
  }
  return () => renameSync(next, dir.formats);
}
