/**
 * @module store/file-hashes
 * A folder's files with their sizes and SHA-256, and how a folder differs from such a list: what a
 * backup records and restore checks (backup/), and what a snapshot's signature covers (snapshot/).
 */
import { createReadStream, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

export interface HashedFile {
  /** Relative to the folder, with `/` separators. */
  path: string;
  size: number;
  sha256: string;
}

/** A folder that holds something other than files and folders (a link, a device). */
export class NotAFileError extends Error {
  constructor(readonly path: string) {
    super(`${path} is neither a file nor a folder (a link?); only files are kept here`);
    this.name = "NotAFileError";
  }
}

/** Every regular file under `root`, relative and sorted, `skip` (relative paths) left out; a link or a device is NotAFileError. */
export function listFiles(root: string, skip: readonly string[] = [], under = ""): string[] {
  const found: string[] = [];
  for (const name of readdirSync(join(root, under))) {
    const path = under ? `${under}/${name}` : name;
    if (skip.includes(path)) continue;
    const stat = lstatSync(join(root, path));
    if (stat.isDirectory()) found.push(...listFiles(root, skip, path));
    else if (stat.isFile()) found.push(path);
    else throw new NotAFileError(join(root, path));
  }
  return found.sort();
}

/** Size and SHA-256 of a file, read in 1 MiB pieces (a full snapshot's query database is 5 GB). */
async function hashFile(path: string): Promise<{ size: number; sha256: string }> {
  const hasher = new Bun.CryptoHasher("sha256");
  let size = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    hasher.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hasher.digest("hex") };
}

/** Every file of `root` (`skip` aside) with its size and SHA-256. */
export async function hashFiles(root: string, skip: readonly string[] = []): Promise<HashedFile[]> {
  const files: HashedFile[] = [];
  for (const path of listFiles(root, skip)) files.push({ path, ...(await hashFile(join(root, path))) });
  return files;
}

/** How a folder's file differs from the list: missing, not listed, or another size or hash (what it is). */
export type FileDifference =
  | { path: string; kind: "missing" }
  | { path: string; kind: "unlisted" }
  | { path: string; kind: "changed"; size: number; sha256: string; expected: HashedFile };

/**
 * The differences of `root` (`skip` aside) from `files`: files not listed first (known before any
 * file is read), then the list's in its order; none when the folder holds exactly them.
 */
export async function differences(root: string, files: readonly HashedFile[], skip: readonly string[] = []): Promise<FileDifference[]> {
  const present = new Set(listFiles(root, skip));
  const listed = new Set(files.map((f) => f.path));
  const out: FileDifference[] = [...present].filter((path) => !listed.has(path)).map((path) => ({ path, kind: "unlisted" as const }));
  for (const file of files) {
    if (!present.has(file.path)) {
      out.push({ path: file.path, kind: "missing" });
      continue;
    }
    const found = await hashFile(join(root, file.path));
    if (found.size !== file.size || found.sha256 !== file.sha256) out.push({ path: file.path, kind: "changed", ...found, expected: file });
  }
  return out;
}
