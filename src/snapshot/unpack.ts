/**
 * @module snapshot/unpack
 * Reads a pack (snapshot/pack.ts) as it streams in, from a file or over HTTP, and refuses it at the
 * first thing wrong, before a byte of its files goes anywhere it could be used:
 *
 *   1. the pack manifest and the signature, the first two entries; the signature is checked against
 *      the trusted keys, then the formats (a newer pack or snapshot: NewerFormatError, exit code 4);
 *   2. every further entry must be a plain file the pack manifest lists, once, of its size; its
 *      SHA-256 is taken as it streams (links, folders, devices, `..`, unlisted or repeated entries
 *      are refused);
 *   3. at the end every listed file must have come: a pack cut short is refused, also when it was
 *      cut between two entries.
 *
 * What happens to a file's bytes is the caller's (verify drops them, install writes them to a
 * staging folder it removes on any failure).
 */
import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { extract as tarExtract } from "tar-stream";
import { type Signature, SignatureError, trustedSigner } from "./keys.ts";
import { type PackManifest, type PackedFile, readPackManifest } from "./pack-manifest.ts";
import { PACK_MANIFEST_ENTRY, PACK_SIGNATURE_ENTRY } from "./pack.ts";
import { readSignature } from "./signature.ts";

/** A pack manifest is about 100 bytes a file; 16 MiB is far past any snapshot's. */
const MAX_MANIFEST_BYTES = 16 << 20;
const MAX_SIGNATURE_BYTES = 64 << 10;

/** A pack whose signature was checked. */
export interface OpenedPack {
  manifest: PackManifest;
  /** The pack manifest's exact bytes, as signed. */
  packText: string;
  signature: Signature;
  /** The trusted key that signed it. */
  signer: string;
}

/** Where one file's bytes go while they are checked. */
export interface FileSink {
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/**
 * What the caller does once the signature is checked: a sink for each file, or "stop" when it needs
 * none of them (the snapshot is already there).
 */
export type OnVerified = (pack: OpenedPack) => Promise<((file: PackedFile) => Promise<FileSink>) | "stop">;

type Entries = AsyncIterator<Readable & { header: { name: string; type: string; size: number } }>;

/** Reads and checks a pack from `source`; `where` names it in every refusal (its file or URL). */
export async function readPack(source: Readable, where: string, trusted: readonly string[], onVerified: OnVerified): Promise<OpenedPack> {
  const extract = tarExtract();
  source.on("error", (error) => extract.destroy(error));
  source.pipe(extract);
  const entries = extract[Symbol.asyncIterator]() as Entries;
  const refused = (why: string) => new SignatureError(`${where} is refused: ${why}`);
  try {
    const packBytes = await smallEntry(entries, PACK_MANIFEST_ENTRY, MAX_MANIFEST_BYTES, where);
    const signature = readSignature((await smallEntry(entries, PACK_SIGNATURE_ENTRY, MAX_SIGNATURE_BYTES, where)).toString("utf8"), where);
    let signer: string;
    try {
      signer = trustedSigner(packBytes, signature, trusted);
    } catch (error) {
      throw refused((error as Error).message);
    }
    const manifest = readPackManifest(packBytes, where);
    const pack: OpenedPack = { manifest, packText: packBytes.toString("utf8"), signature, signer };
    const sinkFor = await onVerified(pack);
    if (sinkFor === "stop") return pack;
    const id = manifest.snapshot.id;
    const listed = new Map(manifest.files.map((file) => [`${id}/${file.path}`, file]));
    const seen = new Set<string>();
    for (let next = await entries.next(); !next.done; next = await entries.next()) {
      const { name, type, size } = next.value.header;
      const file = listed.get(name);
      if (type !== "file") throw refused(`its entry '${name}' is a ${type}; a pack holds only files`);
      if (!file) throw refused(`its entry '${name}' is not among the signed files`);
      if (seen.has(name)) throw refused(`its entry '${name}' appears twice`);
      seen.add(name);
      if (size !== file.size) throw refused(`'${file.path}' is ${size} bytes, and ${file.size} were signed`);
      const hash = createHash("sha256");
      let bytes = 0;
      const sink = await sinkFor(file);
      try {
        for await (const chunk of next.value as AsyncIterable<Uint8Array>) {
          hash.update(chunk);
          bytes += chunk.length;
          await sink.write(chunk);
        }
      } finally {
        await sink.close();
      }
      const sha256 = hash.digest("hex");
      if (bytes !== file.size || sha256 !== file.sha256) throw refused(`'${file.path}' differs from what was signed (SHA-256 ${sha256}, signed ${file.sha256}): it was changed after signing`);
    }
    const missing = manifest.files.filter((file) => !seen.has(`${id}/${file.path}`));
    if (missing.length > 0) throw refused(`it ends before ${missing.length} of its ${manifest.files.length} signed files (the first: '${missing[0]!.path}'): it was cut short`);
    return pack;
  } catch (error) {
    throw truncation(error, where);
  } finally {
    source.unpipe(extract);
    source.destroy();
    extract.destroy();
  }
}

/** Checks a pack through to its last byte without keeping anything. */
export function verifyPack(source: Readable, where: string, trusted: readonly string[]): Promise<OpenedPack> {
  const drop: FileSink = { write: async () => undefined, close: async () => undefined };
  return readPack(source, where, trusted, async () => async () => drop);
}

/** One of the first two entries, whole: it must be there, be that entry and be small. */
async function smallEntry(entries: Entries, name: string, max: number, where: string): Promise<Buffer> {
  const next = await entries.next();
  if (next.done) throw new SignatureError(`${where} is refused: it ends before its ${name} (not a ckg snapshot pack, or cut short)`);
  const { header } = next.value;
  if (header.name !== name || header.type !== "file") throw new SignatureError(`${where} is refused: its entry is '${header.name}' where ${name} comes first (not a ckg snapshot pack)`);
  if (header.size > max) throw new SignatureError(`${where} is refused: its ${name} is ${header.size} bytes (at most ${max})`);
  const chunks: Buffer[] = [];
  for await (const chunk of next.value as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** tar-stream's words for a pack cut short or not a tar at all, said as a refusal of the pack. */
function truncation(error: unknown, where: string): unknown {
  const message = (error as Error)?.message ?? "";
  if (/Unexpected end of data/.test(message)) return new SignatureError(`${where} is refused: it ends in the middle of an entry: it was cut short`);
  if (/Invalid tar header/.test(message)) return new SignatureError(`${where} is refused: it is not a tar file, or is damaged (${message.split(".")[0]})`);
  return error;
}
