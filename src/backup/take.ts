/**
 * @module backup/take
 * `ckg backup`: one consistent copy of the live snapshot and the state, taken while `ckg serve`
 * runs and writes. The snapshot is immutable, so its files are copied as they are; the state is
 * copied at one instant: SQLite by `VACUUM INTO` (one read transaction: every write committed
 * before it, none after, while writers go on in WAL mode), PostgreSQL as rows read in one
 * REPEATABLE READ transaction (backup/state-postgres.ts). Everything is written into
 * `<dest>.partial-<pid>` beside the destination, and renamed to it only once whole, with
 * backup.json (each file's SHA-256 read back from the copy) written last: a backup that exists is
 * complete, and a failure (a full disk midway) leaves nothing behind.
 */
import { Database } from "bun:sqlite";
import { copyFileSync, cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { type DataDir, liveSnapshotId, snapshotPath } from "../store/data-dir.ts";
import { NewerFormatError } from "../store/formats.ts";
import { MIGRATIONS } from "../store/migrations-sqlite.ts";
import { openSqliteState } from "../store/state-sqlite.ts";
import { VERSION } from "../version.ts";
import { hashFiles } from "../store/file-hashes.ts";
import { BACKUP_FILE, BACKUP_FORMAT, BackupError, type BackupManifest } from "./manifest.ts";

export interface TakenBackup {
  path: string;
  manifest: BackupManifest;
  bytes: number;
  ms: number;
}

/** Takes a backup of `dir` into `dest` (which must not exist). `stateUrl`: the PostgreSQL state, when the data directory's state lives there. */
export async function takeBackup(dir: DataDir, dest: string, stateUrl?: string): Promise<TakenBackup> {
  const started = performance.now();
  const target = resolve(dest);
  if (existsSync(target)) throw new BackupError(`${target} already exists: a backup goes to a new path (nothing was written)`);
  mkdirSync(dirname(target), { recursive: true });
  const staging = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  try {
    mkdirSync(staging);
    // The state first: the snapshot it goes with is the one live after it was read (a scan's signals
    // refer to entities of the snapshot it scanned, which is never older than the live one then).
    const state = stateUrl ? await (await import("./state-postgres.ts")).dumpPostgresState(stateUrl, staging) : await copySqliteState(dir.stateDb, join(staging, "state.sqlite"));
    const snapshot = copyLiveSnapshot(dir, staging);
    writeFileSync(join(staging, "CURRENT"), `${snapshot}\n`);
    if (existsSync(dir.formats)) copyFileSync(dir.formats, join(staging, "format.json"));
    const files = await hashFiles(staging);
    const manifest: BackupManifest = {
      kind: "ckg-backup",
      format: BACKUP_FORMAT,
      ckg_version: VERSION,
      created_at: new Date().toISOString(),
      source: dir.root,
      snapshot,
      state,
      files,
    };
    writeFileSync(join(staging, BACKUP_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    renameSync(staging, target);
    return { path: target, manifest, bytes: files.reduce((sum, f) => sum + f.size, 0), ms: performance.now() - started };
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw asBackupError(error, target);
  }
}

/**
 * The live snapshot's files into `<staging>/snapshots/<id>/`. An ingest may publish a newer
 * snapshot and prune this one while it is copied: then the newer one is copied instead (once).
 */
function copyLiveSnapshot(dir: DataDir, staging: string): string {
  for (let attempt = 0; ; attempt++) {
    const id = liveSnapshotId(dir);
    const into = join(staging, "snapshots", id);
    try {
      cpSync(snapshotPath(dir, id), into, { recursive: true });
      return id;
    } catch (error) {
      rmSync(join(staging, "snapshots"), { recursive: true, force: true });
      const replaced = (error as NodeJS.ErrnoException).code === "ENOENT" && liveSnapshotId(dir) !== id;
      if (!replaced || attempt > 0) throw error;
    }
  }
}

/**
 * The SQLite state at one instant, by `VACUUM INTO` on a read-only connection (the server's
 * writers go on meanwhile). A data directory that was never served has no state: an empty one,
 * at this ckg's schema, goes into the backup, so a restore always has one.
 */
async function copySqliteState(from: string, to: string): Promise<BackupManifest["state"]> {
  if (existsSync(from)) {
    const db = new Database(from, { readonly: true });
    try {
      db.exec("PRAGMA busy_timeout = 5000");
      const version = db.query<{ user_version: number }, []>("PRAGMA user_version").get()!.user_version;
      if (version > MIGRATIONS.length) throw new NewerFormatError({ part: `the state database ${from}`, found: version, supported: MIGRATIONS.length });
      db.query("VACUUM INTO ?").run(to);
    } finally {
      db.close();
    }
  } else {
    await openSqliteState(to).close();
  }
  return sqliteStateSummary(to);
}

/** The engine, schema version and row count of each table of a SQLite state file. */
export function sqliteStateSummary(path: string): BackupManifest["state"] {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all();
    const counts = Object.fromEntries(tables.map(({ name }) => [name, db.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${name}"`).get()!.n]));
    return { engine: "sqlite", schema_version: db.query<{ user_version: number }, []>("PRAGMA user_version").get()!.user_version, tables: counts };
  } finally {
    db.close();
  }
}

function asBackupError(error: unknown, target: string): unknown {
  if (error instanceof BackupError || error instanceof NewerFormatError || (error as Error).name === "NoSnapshotError") return error;
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === "ENOSPC" || code === "SQLITE_FULL"
      ? "the disk is full"
      : code === "EACCES" || code === "EPERM"
        ? "permission denied"
        : (error as Error).message;
  return new BackupError(`the backup to ${target} failed: ${why} (${(error as Error).message}); nothing was left at ${target}`, { cause: error });
}
