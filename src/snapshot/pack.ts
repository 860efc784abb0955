/**
 * @module snapshot/pack
 * `ckg snapshot pack`: one snapshot as one signed file that travels offline (a USB stick, an object
 * store, any HTTP server). It is a plain tar (tar-stream; `tar tf` lists it) whose first entry is the
 * pack manifest (snapshot/pack-manifest.ts: the snapshot, every file with its size and SHA-256), the
 * second the Ed25519 signature over that entry's exact bytes, then the files as `<id>/<path>`. A
 * reader checks the signature before it reads a byte of the files, and each file as it streams by.
 *
 *   ckg-pack.json        the pack manifest (the bytes that are signed)
 *   ckg-pack.sig         {"format": 1, "algorithm": "ed25519", "public_key": "ckg-ed25519:...", "signature": "<base64>"}
 *   <id>/manifest.json   the snapshot's files, in the pack manifest's order
 *   <id>/...
 */
import type { KeyObject } from "node:crypto";
import { createReadStream, createWriteStream, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { type Pack, pack as tarPack } from "tar-stream";
import { readManifest } from "../store/manifest.ts";
import { signBytes } from "./keys.ts";
import { type PackManifest, describeSnapshot } from "./pack-manifest.ts";
import { packBytes } from "./signature.ts";

/** The first two entries of every pack. */
export const PACK_MANIFEST_ENTRY = "ckg-pack.json";
export const PACK_SIGNATURE_ENTRY = "ckg-pack.sig";

export interface PackResult {
  file: string;
  bytes: number;
  manifest: PackManifest;
  publicKey: string;
}

/**
 * Writes the snapshot in `folder` to `out` (beside it first, renamed into place once complete, so an
 * interrupted pack leaves no file that looks whole). Its files are read twice: hashed for the pack
 * manifest, which must come first, then copied; a file that changed size in between fails the pack.
 */
export async function writePack(folder: string, id: string, out: string, key: KeyObject): Promise<PackResult> {
  const manifest = await describeSnapshot(folder, id, readManifest(folder));
  const bytes = packBytes(manifest);
  const signature = signBytes(bytes, key);
  const partial = `${out}.partial-${process.pid}`;
  const tar = tarPack();
  const written = pipeline(tar, createWriteStream(partial, { flags: "wx" }));
  written.catch(() => undefined); // awaited below; a failure while entries are added must not go unhandled meanwhile
  try {
    const mtime = new Date(manifest.packed_at);
    await entry(tar, { name: PACK_MANIFEST_ENTRY, size: bytes.length, mtime }, bytes);
    const sig = Buffer.from(`${JSON.stringify(signature)}\n`);
    await entry(tar, { name: PACK_SIGNATURE_ENTRY, size: sig.length, mtime }, sig);
    for (const file of manifest.files) {
      await entry(tar, { name: `${id}/${file.path}`, size: file.size, mtime }, join(folder, file.path));
    }
    tar.finalize();
    await written;
    renameSync(partial, out);
  } catch (error) {
    tar.destroy();
    await written.catch(() => undefined);
    rmSync(partial, { force: true });
    throw error;
  }
  return { file: out, bytes: statSync(out).size, manifest, publicKey: signature.public_key };
}

/** Adds one entry: bytes, or a file streamed in (tar-stream fails the entry if the file's size is not the header's). */
async function entry(tar: Pack, header: { name: string; size: number; mtime: Date }, content: Buffer | string): Promise<void> {
  const full = { ...header, mode: 0o644, type: "file" as const };
  if (typeof content !== "string") {
    await new Promise<void>((resolve, reject) => tar.entry(full, content, (error) => (error ? reject(error) : resolve())));
    return;
  }
  await new Promise<void>((resolve, reject) => {
    const sink = tar.entry(full, (error) => (error ? reject(error) : resolve()));
    pipeline(createReadStream(content, { highWaterMark: 1 << 20 }), sink).catch(reject);
  });
}
