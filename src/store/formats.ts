/**
 * @module store/formats
 * The formats this ckg reads and writes, and the one refusal of data written by a newer ckg. Each
 * part of a data directory records its own format: a snapshot's manifest.json (`format`, and
 * `search.format` for its search index), the state store (SQLite's user_version, PostgreSQL's
 * ckg.schema_version: the steps run), and `<data_dir>/format.json` the directory's layout with the
 * formats and release of the newest ckg that wrote into it (store/data-dir.ts). An older ckg meeting
 * a newer record stops before it changes anything, with NewerFormatError (its own exit code), instead
 * of misreading the data. CHANGELOG.md names every change to these numbers.
 */
import { MIGRATIONS as POSTGRES_STEPS } from "./migrations-postgres.ts";
import { MIGRATIONS as SQLITE_STEPS } from "./migrations-sqlite.ts";
import { VERSION } from "../version.ts";

/** The layout of the data directory (CURRENT, snapshots/, state.sqlite, runtime/, tmp/, format.json). */
export const DATA_DIR_FORMAT = 1;
/** A snapshot's files and manifest.json. */
export const SNAPSHOT_FORMAT = 1;
/** The search index's files (search/<type>.ids.json, .vectors.f32, .sq8, .ivf, the LSA model). */
export const SEARCH_FORMAT = 1;
/** The state store's schema: how many steps of each engine's migrations this ckg knows. */
export const STATE_FORMATS = { sqlite: SQLITE_STEPS.length, postgresql: POSTGRES_STEPS.length } as const;

export interface NewerFormat {
  /** What holds the newer format, in words: "the snapshot 2026... (manifest.json)", "the state database ...". */
  part: string;
  found: number;
  supported: number;
  /** The release that wrote it, when recorded (format.json's written_by). */
  writtenBy?: string;
}

/** Data written by a newer ckg: nothing was read past the record, nothing was changed. */
export class NewerFormatError extends Error {
  readonly newer: NewerFormat;
  constructor(newer: NewerFormat) {
    const by = newer.writtenBy ? ` (ckg ${newer.writtenBy})` : "";
    super(
      `${newer.part} was written by a newer ckg${by}: its format is ${newer.found}, and this ckg (${VERSION}) reads formats up to ${newer.supported}. ` +
        "Nothing was changed. Run a ckg at least as new as the one that wrote it (see CHANGELOG.md), or restore the copy an upgrade kept (state.sqlite.v<N>).",
    );
    this.name = "NewerFormatError";
    this.newer = newer;
  }
}

/** Throws NewerFormatError when `found` is past what this ckg reads; an absent record reads as format 1. */
export function refuseNewer(part: string, found: unknown, supported: number, writtenBy?: string): void {
  const value = found === undefined || found === null ? 1 : found;
  if (typeof value === "number" && value > supported) throw new NewerFormatError({ part, found: value, supported, writtenBy });
}

/**
 * A manifest's formats, checked on its raw JSON before its schema is applied: a newer snapshot says so
 * instead of failing the schema on fields this ckg never heard of. `search.format` is absent in
 * snapshots written before ckg 0.2.0; they are search format 1.
 */
export function refuseNewerSnapshot(raw: unknown, where: string): void {
  const manifest = (raw ?? {}) as { format?: unknown; search?: { format?: unknown }; build?: { ckg_version?: unknown } };
  const by = typeof manifest.build?.ckg_version === "string" ? manifest.build.ckg_version : undefined;
  refuseNewer(`the snapshot ${where}`, manifest.format, SNAPSHOT_FORMAT, by);
  refuseNewer(`the search index of the snapshot ${where}`, manifest.search?.format, SEARCH_FORMAT, by);
}
