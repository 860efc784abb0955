/**
 * @module snapshot/install
 * `ckg snapshot install` and `ckg snapshot pull`: a signed pack into a data directory, published as
 * a build publishes (store/data-dir.ts publishSnapshot), so a running server switches to it. The
 * pack's files go to `tmp/<id>` as they stream in, each checked (snapshot/unpack.ts); only a pack
 * that passed every check is renamed into `snapshots/<id>` and made live. On any failure the staging
 * folder goes, and so do the folders this install created: the data directory is as it was.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, rmdirSync, writeFileSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import {
  type DataDir,
  currentSnapshotId,
  ensureDataDir,
  pendingCurrentPath,
  publishSnapshot,
  recordFormats,
  snapshotPath,
  stagingPath,
} from "../store/data-dir.ts";
import { readManifest } from "../store/manifest.ts";
import { acquireBuildLock } from "./build.ts";
import { SIGNATURE_FILE, checkFolder } from "./pack-manifest.ts";
import { signatureFileText, writeSignatureFile } from "./signature.ts";
import { type FileSink, type OpenedPack, readPack } from "./unpack.ts";

export interface Installed {
  pack: OpenedPack;
  path: string;
  /** `installed`: unpacked and published; `present`: the same snapshot was already there (made live if it was not). */
  outcome: "installed" | "present";
}

export async function installPack(source: Readable, where: string, dir: DataDir, trusted: readonly string[]): Promise<Installed> {
  const created = [dir.root, dir.snapshots, dir.runtime, dir.tmp].filter((path) => !existsSync(path));
  let release: (() => void) | undefined;
  let staging: string | undefined;
  let present = false;
  try {
    const pack = await readPack(source, where, trusted, async (opened) => {
      // Nothing in the data directory is touched before the signature and formats are checked.
      const id = opened.manifest.snapshot.id;
      ensureDataDir(dir);
      release = acquireBuildLock(dir); // a build clears tmp/ when it starts: not while this stages there
      if (existsSync(snapshotPath(dir, id))) {
        await sameSnapshot(dir, opened);
        present = true;
        return "stop";
      }
      rmSync(join(dir.tmp, id), { recursive: true, force: true }); // an interrupted install's leftovers
      const folder = stagingPath(dir, id);
      staging = folder;
      return async (file) => fileSink(join(folder, file.path));
    });
    const id = pack.manifest.snapshot.id;
    if (present) {
      makeLive(dir, id);
      return { pack, path: snapshotPath(dir, id), outcome: "present" };
    }
    readManifest(staging!); // what the server reads first: its schema holds, or nothing is published
    writeSignatureFile(staging!, staging!, pack.packText, pack.signature);
    const path = publishSnapshot(dir, id);
    staging = undefined;
    return { pack, path, outcome: "installed" };
  } catch (error) {
    if (staging) rmSync(staging, { recursive: true, force: true });
    release?.();
    release = undefined;
    for (const path of created.reverse()) removeIfEmpty(path);
    throw error;
  } finally {
    release?.();
  }
}

/**
 * A snapshot of that id is already there: the same files (it was installed or built before), or an
 * error. The pack's signature is put beside them when theirs is not the same (none, or another
 * key's), so a server trusting this key serves it.
 */
async function sameSnapshot(dir: DataDir, pack: OpenedPack): Promise<void> {
  const id = pack.manifest.snapshot.id;
  const folder = snapshotPath(dir, id);
  try {
    await checkFolder(folder, pack.manifest.files);
  } catch (error) {
    throw new Error(`a different snapshot ${id} is already in ${dir.snapshots} (${(error as Error).message}); nothing was changed. Remove that folder first to replace it.`);
  }
  const path = join(folder, SIGNATURE_FILE);
  if (!existsSync(path) || readFileSync(path, "utf8") !== signatureFileText(pack.packText, pack.signature)) writeSignatureFile(folder, dir.tmp, pack.packText, pack.signature);
}

/** Points CURRENT at a snapshot already in place, as publishSnapshot does: written in tmp/, renamed over. */
function makeLive(dir: DataDir, id: string): void {
  if (currentSnapshotId(dir) === id) return;
  const pointer = pendingCurrentPath(dir);
  writeFileSync(pointer, `${id}\n`);
  renameSync(pointer, dir.current);
  recordFormats(dir);
}

/** A new file in the staging folder ('wx': never one that exists, never through a link). */
async function fileSink(path: string): Promise<FileSink> {
  mkdirSync(dirname(path), { recursive: true });
  const handle: FileHandle = await open(path, "wx", 0o644);
  return {
    async write(chunk) {
      await handle.write(chunk);
    },
    close: () => handle.close(),
  };
}

function removeIfEmpty(path: string): void {
  try {
    rmdirSync(path);
  } catch {
    // not empty (something else is there now) or already gone: left as it is
  }
}
