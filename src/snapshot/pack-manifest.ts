/**
 * @module snapshot/pack-manifest
 * The pack manifest: the small JSON a snapshot's signature covers. It names the snapshot (id,
 * formats) and every file of its folder with its size and SHA-256, so checking the signature and
 * then each file's bytes checks everything. The same manifest travels first in a pack
 * (snapshot/pack.ts) and stays beside an installed or signed snapshot in signature.json
 * (snapshot/signature.ts), where a server checks it before serving the snapshot.
 */
import { join } from "node:path";
import { z } from "zod";
import { NotAFileError, differences, hashFiles } from "../store/file-hashes.ts";
import { SEARCH_FORMAT, SNAPSHOT_FORMAT, refuseNewer } from "../store/formats.ts";
import { MANIFEST_FILE, type SnapshotManifest } from "../store/manifest.ts";
import { SNAPSHOT_ID } from "../store/data-dir.ts";
import { VERSION } from "../version.ts";
import { SignatureError } from "./keys.ts";

/** The pack's own format: its entries, the pack manifest and the signature. A newer one is refused (exit code 4). */
const PACK_FORMAT = 1;
/** Beside an installed or signed snapshot's files: its pack manifest and signature. Not itself listed. */
export const SIGNATURE_FILE = "signature.json";

const packedFileSchema = z.object({
  path: z.string(),
  size: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type PackedFile = z.infer<typeof packedFileSchema>;

export const packManifestSchema = z.object({
  format: z.literal(PACK_FORMAT),
  kind: z.literal("ckg-snapshot-pack"),
  snapshot: z.object({
    id: z.string().regex(SNAPSHOT_ID, "a snapshot id (20260101T000000Z-abcdef)"),
    format: z.number().int(),
    search_format: z.number().int(),
    created_at: z.string(),
    as_of: z.string(),
    synthetic: z.boolean(),
  }),
  ckg_version: z.string(),
  packed_at: z.string(),
  files: z.array(packedFileSchema).min(1).max(100_000),
});
export type PackManifest = z.infer<typeof packManifestSchema>;

/** The pack manifest of a snapshot folder: every regular file in it (signature.json aside), sorted, with its size and SHA-256. */
export async function describeSnapshot(folder: string, id: string, manifest: SnapshotManifest): Promise<PackManifest> {
  const files = await hashFiles(folder, [SIGNATURE_FILE]).catch(notAFile);
  return {
    format: PACK_FORMAT,
    kind: "ckg-snapshot-pack",
    snapshot: { id, format: manifest.format, search_format: manifest.search.format, created_at: manifest.created_at, as_of: manifest.as_of, synthetic: manifest.synthetic },
    ckg_version: VERSION,
    packed_at: new Date().toISOString(),
    files,
  };
}

/**
 * A pack manifest from its signed bytes: formats first (a newer pack or snapshot is NewerFormatError,
 * exit code 4, before its shape is judged), then its shape, then every path: relative, inside the
 * snapshot, listed once, manifest.json among them.
 */
export function readPackManifest(bytes: Uint8Array, where: string): PackManifest {
  let raw: { format?: unknown; ckg_version?: unknown; snapshot?: { format?: unknown; search_format?: unknown } };
  try {
    raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as typeof raw;
  } catch {
    throw new SignatureError(`${where}: its pack manifest is not JSON`);
  }
  const by = typeof raw?.ckg_version === "string" ? raw.ckg_version : undefined;
  refuseNewer(`the snapshot pack ${where}`, raw?.format, PACK_FORMAT, by);
  refuseNewer(`the snapshot in the pack ${where}`, raw?.snapshot?.format, SNAPSHOT_FORMAT, by);
  refuseNewer(`the search index in the pack ${where}`, raw?.snapshot?.search_format, SEARCH_FORMAT, by);
  const parsed = packManifestSchema.safeParse(raw);
  if (!parsed.success) throw new SignatureError(`${where}: its pack manifest is malformed (${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")})`);
  const seen = new Set<string>();
  for (const { path } of parsed.data.files) {
    if (!safePath(path)) throw new SignatureError(`${where}: its pack manifest lists '${path}', which is not a plain relative path inside the snapshot`);
    if (seen.has(path)) throw new SignatureError(`${where}: its pack manifest lists '${path}' twice`);
    seen.add(path);
  }
  if (!seen.has(MANIFEST_FILE)) throw new SignatureError(`${where}: its pack manifest lists no ${MANIFEST_FILE}`);
  return parsed.data;
}

/** A path a snapshot may hold: relative, forward slashes, no empty, `.` or `..` part, not signature.json. */
function safePath(path: string): boolean {
  if (path.length === 0 || path.length > 255 || path === SIGNATURE_FILE || /[\\\0]/.test(path)) return false;
  return path.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}

/**
 * Checks a snapshot folder against its pack manifest: the same files, no more, no fewer, each of its
 * size and SHA-256. The first difference is the error, naming the file.
 */
export async function checkFolder(folder: string, files: readonly PackedFile[]): Promise<void> {
  const [first] = await differences(folder, files, [SIGNATURE_FILE]).catch(notAFile);
  if (!first) return;
  const path = join(folder, first.path);
  if (first.kind === "unlisted") throw new SignatureError(`${path} is not among the signed files`);
  if (first.kind === "missing") throw new SignatureError(`${path} is signed but missing`);
  throw new SignatureError(`${path} differs from what was signed (${first.size} bytes, SHA-256 ${first.sha256}; signed: ${first.expected.size} bytes, ${first.expected.sha256})`);
}

/** A link or a device in a snapshot folder, said as a refusal of the snapshot. */
function notAFile(error: unknown): never {
  throw error instanceof NotAFileError ? new SignatureError(`${error.path} is neither a file nor a folder (a link?); a snapshot holds only files`) : error;
}
