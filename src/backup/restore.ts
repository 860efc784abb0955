/**
 * @module backup/restore
 * `ckg restore`: a backup (backup/take.ts) back into a data directory that holds no data. Every
 * file is checked against backup.json before anything is copied (a corrupt or incomplete backup
 * restores nothing), a backup from a newer ckg is refused (NewerFormatError, exit code 4), the
 * files are copied beside the data directory and checked again there, and only then renamed into
 * place. A PostgreSQL state's rows go into the configured database, which must hold none.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { type DataDir, dataDir, refuseNewerDataDir } from "../store/data-dir.ts";
import { STATE_FORMATS, refuseNewer } from "../store/formats.ts";
import { BackupError, type BackupManifest, BadBackupError, STATE_ROWS_DIR, checkFiles, readBackupManifest } from "./manifest.ts";

export interface Restored {
  manifest: BackupManifest;
  bytes: number;
  ms: number;
}

/** What makes a data directory hold data: a restore never mixes a backup into one. */
const DATA = ["CURRENT", "snapshots", "state.sqlite"];

/** Checks the backup at `from` whole (its manifest, format and every file) without changing anything. */
export async function checkBackup(from: string): Promise<BackupManifest> {
  const path = resolve(from);
  if (!existsSync(path)) throw new BadBackupError(path, ["it does not exist"]);
  const manifest = readBackupManifest(path);
  refuseNewerDataDir(dataDir(path));
  refuseNewer(`the backup ${path} (its ${manifest.state.engine} state)`, manifest.state.schema_version, STATE_FORMATS[manifest.state.engine], manifest.ckg_version);
  const problems = await checkFiles(path, manifest.files);
  if (problems.length > 0) throw new BadBackupError(path, problems);
  return manifest;
}

/** Restores the backup at `from` into `dir`, or, with `stateUrl`, its state's rows into that PostgreSQL database. */
export async function restoreBackup(from: string, dir: DataDir, stateUrl?: string): Promise<Restored> {
  const started = performance.now();
  const source = resolve(from);
  const manifest = await checkBackup(source);
  const held = existsSync(dir.root) ? readdirSync(dir.root).filter((name) => DATA.includes(name) && !emptyDir(join(dir.root, name))) : [];
  if (held.length > 0) throw new BackupError(`${dir.root} already holds data (${held.join(", ")}): restore into a new or empty data directory (nothing was changed)`);
  if (manifest.state.engine === "postgresql" && !stateUrl) {
    throw new BackupError("the backup's state is a PostgreSQL database's: give the database to restore it into (CKG_STATE_URL); nothing was changed");
  }
  mkdirSync(dirname(dir.root), { recursive: true });
  const staging = join(dirname(dir.root), `.${basename(dir.root)}.restoring-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  try {
    // The snapshot and the SQLite state; a PostgreSQL state's rows go to the database instead.
    const files = manifest.files.filter((f) => !f.path.startsWith(`${STATE_ROWS_DIR}/`));
    for (const file of files) {
      mkdirSync(dirname(join(staging, file.path)), { recursive: true });
      copyFileSync(join(source, file.path), join(staging, file.path));
    }
    // Read back: what was written is what the backup holds (a disk that lies fails here, not later).
    const problems = await checkFiles(staging, files);
    if (problems.length > 0) throw new BackupError(`the copy in ${staging} does not match the backup: ${problems.slice(0, 3).join("; ")}`);
    if (manifest.state.engine === "postgresql") await (await import("./state-postgres.ts")).loadPostgresState(stateUrl!, source, manifest);
    moveInto(staging, dir.root);
    return { manifest, bytes: files.reduce((sum, f) => sum + f.size, 0), ms: performance.now() - started };
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (error instanceof BackupError || error instanceof BadBackupError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOSPC" ? "the disk is full" : (error as Error).message;
    throw new BackupError(`the restore into ${dir.root} failed: ${why}; nothing was changed`, { cause: error });
  }
}

/**
 * The staged directory becomes the data directory: one rename when there is none (or an empty
 * one); else its entries are moved in, CURRENT last, so the directory is a data directory only once
 * everything it names is there.
 */
function moveInto(staging: string, root: string): void {
  if (existsSync(root) && readdirSync(root).length === 0) rmdirSync(root);
  if (!existsSync(root)) return renameSync(staging, root);
  const names = readdirSync(staging).sort((a, b) => Number(a === "CURRENT") - Number(b === "CURRENT"));
  for (const name of names) {
    if (existsSync(join(root, name))) rmSync(join(root, name), { recursive: true, force: true }); // an empty leftover (checked above)
    renameSync(join(staging, name), join(root, name));
  }
  rmdirSync(staging);
}

function emptyDir(path: string): boolean {
  try {
    return readdirSync(path).length === 0;
  } catch {
    return false; // a file
  }
}

