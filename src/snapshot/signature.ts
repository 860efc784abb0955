/**
 * @module snapshot/signature
 * A snapshot's signature at rest: `signature.json` beside its files holds the pack manifest's exact
 * bytes (as a string) and the Ed25519 signature over them. `ckg snapshot install` leaves the pack's
 * one there; `ckg build`, `ckg ingest` and `ckg import` write one when they have a signing key, in
 * the staging folder, so a snapshot is signed before it is published. A server with trusted keys
 * checks it (signature, id, every file's size and SHA-256) before it serves the snapshot.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KeyObject } from "node:crypto";
import { z } from "zod";
import { refuseNewer } from "../store/formats.ts";
import { readManifest } from "../store/manifest.ts";
import { type Signature, SignatureError, readSigningKey, signBytes, trustedSigner } from "./keys.ts";
import { type PackManifest, SIGNATURE_FILE, checkFolder, describeSnapshot, readPackManifest } from "./pack-manifest.ts";

const signatureSchema = z.object({
  format: z.literal(1),
  algorithm: z.literal("ed25519"),
  public_key: z.string(),
  signature: z.string(),
});

const signatureFileSchema = z.object({ format: z.literal(1), pack: z.string(), signature: signatureSchema });

/** A signature envelope from its JSON; a newer envelope format is NewerFormatError. */
export function readSignature(text: string, where: string): Signature {
  let raw: { format?: unknown };
  try {
    raw = JSON.parse(text) as { format?: unknown };
  } catch {
    throw new SignatureError(`${where}: its signature is not JSON`);
  }
  refuseNewer(`the signature of ${where}`, raw?.format, 1);
  const parsed = signatureSchema.safeParse(raw);
  if (!parsed.success) throw new SignatureError(`${where}: its signature is malformed (${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")})`);
  return parsed.data as Signature;
}

/** The pack manifest's bytes, as they are signed: compact JSON. */
export function packBytes(pack: PackManifest): Buffer {
  return Buffer.from(JSON.stringify(pack));
}

/** The text of signature.json. */
export function signatureFileText(packText: string, signature: Signature): string {
  return `${JSON.stringify({ format: 1, pack: packText, signature }, null, 2)}\n`;
}

/**
 * Writes signature.json into a snapshot folder: beside it first (in `scratch`, a folder on the same
 * file system), then renamed into place, so a reader never meets half of it.
 */
export function writeSignatureFile(folder: string, scratch: string, packText: string, signature: Signature): void {
  const temp = join(scratch, `${SIGNATURE_FILE}.${process.pid}`);
  try {
    writeFileSync(temp, signatureFileText(packText, signature));
    renameSync(temp, join(folder, SIGNATURE_FILE));
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Signs a snapshot in its staging folder before it is published; the signing public key. */
export type SnapshotSigner = (folder: string, id: string) => Promise<string>;

/**
 * The signer of a signing key file (the snapshot_signing_key setting), or none when it is unset. The
 * key is read now, so a bad file stops a build before it starts, not after.
 */
export function snapshotSigner(keyFile: string | undefined): SnapshotSigner | undefined {
  if (!keyFile) return undefined;
  const key = readSigningKey(keyFile);
  return (folder, id) => signSnapshotFolder(folder, id, key);
}

/** Signs a snapshot folder before it is published (it is in tmp/, so signature.json is written straight in); the signing public key. */
export async function signSnapshotFolder(folder: string, id: string, key: KeyObject): Promise<string> {
  const pack = await describeSnapshot(folder, id, readManifest(folder));
  const bytes = packBytes(pack);
  const signature = signBytes(bytes, key);
  writeSignatureFile(folder, folder, bytes.toString("utf8"), signature);
  return signature.public_key;
}

/**
 * Checks a published snapshot's signature.json against the trusted keys and its files against what
 * was signed; SignatureError saying why not (unsigned, an untrusted key, a changed file, a signature
 * made for another snapshot). The trusted key that signed it.
 */
export async function checkSignedFolder(folder: string, id: string, trusted: readonly string[]): Promise<string> {
  const path = join(folder, SIGNATURE_FILE);
  if (!existsSync(path)) throw new SignatureError(`snapshot ${id} is not signed (no ${SIGNATURE_FILE}), and only snapshots signed by a trusted key are served (snapshot_trusted_keys)`);
  let file: z.infer<typeof signatureFileSchema>;
  try {
    const raw = JSON.parse(readFileSync(path, "utf8")) as { format?: unknown };
    refuseNewer(`the signature file ${path}`, raw?.format, 1);
    file = signatureFileSchema.parse(raw);
  } catch (error) {
    if (error instanceof SignatureError || (error as Error).name === "NewerFormatError") throw error;
    throw new SignatureError(`snapshot ${id}: ${path} is unreadable (${(error as Error).message.split("\n")[0]})`);
  }
  const bytes = Buffer.from(file.pack, "utf8");
  let signer: string;
  try {
    signer = trustedSigner(bytes, file.signature as Signature, trusted);
  } catch (error) {
    throw new SignatureError(`snapshot ${id} is refused: ${(error as Error).message}`);
  }
  const pack = readPackManifest(bytes, `snapshot ${id}`);
  if (pack.snapshot.id !== id) throw new SignatureError(`snapshot ${id} is refused: its signature was made for snapshot ${pack.snapshot.id}`);
  await checkFolder(folder, pack.files).catch((error: Error) => {
    throw new SignatureError(`snapshot ${id} is refused: ${error.message}`);
  });
  return signer;
}
