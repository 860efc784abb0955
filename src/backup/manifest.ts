/**
 * @module backup/manifest
 * What a backup is. A backup is a directory that is itself a data directory (CURRENT, format.json,
 * snapshots/<live id>/, state.sqlite) plus `backup.json`: when and by which ckg it was taken, the
 * state's engine and the row count of each of its tables, and every file's size and SHA-256. The
 * hashes are what `ckg restore` checks before anything is copied, and what `--verify` checks on the
 * copy it restores; the row counts are what the restored state must hold.
 *
 * A PostgreSQL state is kept as rows (state/<table>.jsonl, read in one REPEATABLE READ transaction)
 * instead of state.sqlite, with the schema's version beside them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { differences } from "../store/file-hashes.ts";
import { refuseNewer } from "../store/formats.ts";

/** The layout of a backup (this file, and where the state is kept). */
export const BACKUP_FORMAT = 1;
export const BACKUP_FILE = "backup.json";
/** Where a PostgreSQL state's rows are kept in a backup, one JSON Lines file per table. */
export const STATE_ROWS_DIR = "state";

const fileSchema = z.object({ path: z.string().min(1), size: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) });
export type BackupFile = z.infer<typeof fileSchema>;

export const backupManifestSchema = z.object({
  kind: z.literal("ckg-backup"),
  format: z.number().int().min(1),
  ckg_version: z.string(),
  created_at: z.string(),
  /** The data directory it was taken from (as that machine named it). */
  source: z.string(),
  snapshot: z.string(),
  state: z.object({
    engine: z.enum(["sqlite", "postgresql"]),
    /** The state store's schema: the steps of its migrations that had run. */
    schema_version: z.number().int().min(0),
    tables: z.record(z.string(), z.number().int().min(0)),
  }),
  files: z.array(fileSchema),
});
export type BackupManifest = z.infer<typeof backupManifestSchema>;

/** Why a backup could not be taken or restored, in words a person can act on; nothing was left half-written. */
export class BackupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "BackupError";
  }
}

/** A backup that cannot be used as it is: corrupt, incomplete, or not a backup. Nothing was changed. */
export class BadBackupError extends Error {
  constructor(
    readonly path: string,
    readonly problems: string[],
  ) {
    super(`${path} is not a usable backup (nothing was changed): ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? `; and ${problems.length - 5} more` : ""}`);
    this.name = "BadBackupError";
  }
}

/** The manifest of the backup at `path`; a backup from a newer ckg is refused (NewerFormatError) before its shape is read. */
export function readBackupManifest(path: string): BackupManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(path, BACKUP_FILE), "utf8"));
  } catch (error) {
    throw new BadBackupError(path, [`its ${BACKUP_FILE} cannot be read: ${(error as Error).message}`]);
  }
  const by = (raw as { ckg_version?: unknown })?.ckg_version;
  refuseNewer(`the backup ${path} (${BACKUP_FILE})`, (raw as { format?: unknown })?.format, BACKUP_FORMAT, typeof by === "string" ? by : undefined);
  const parsed = backupManifestSchema.safeParse(raw);
  if (!parsed.success) throw new BadBackupError(path, parsed.error.issues.map((i) => `${BACKUP_FILE} ${i.path.join(".")}: ${i.message}`));
  return parsed.data;
}

/** The files of `root` that are not as the manifest says (missing, another size or hash, or not listed), in words. */
export async function checkFiles(root: string, files: readonly BackupFile[], skip: readonly string[] = [BACKUP_FILE]): Promise<string[]> {
  return (await differences(root, files, skip)).map((d) => {
    if (d.kind === "missing") return `${d.path} is missing`;
    if (d.kind === "unlisted") return `${d.path} is not in ${BACKUP_FILE}`;
    return d.size !== d.expected.size ? `${d.path} is ${d.size} bytes, not the ${d.expected.size} recorded` : `${d.path} does not match its recorded SHA-256`;
  });
}
