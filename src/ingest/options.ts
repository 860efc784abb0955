/**
 * @module ingest/options
 * What an ingest is asked to do: where the provider data comes from (fetched now, or imported from
 * saved answers), the day it speaks for, the embedder, progress; what its stages start from; and
 * IngestError, the failure that publishes nothing.
 */
import type { Embedder } from "../search/embedder.ts";
import type { DataDir } from "../store/data-dir.ts";
import type { Logger } from "../log.ts";
import type { HttpOptions } from "./http.ts";
import type { ProviderConfig } from "./providers/index.ts";
import type { ProviderId } from "./records.ts";

export type IngestSource =
  | { kind: "fetch"; providers: Map<ProviderId, ProviderConfig>; detailLimit: number; http?: Partial<Omit<HttpOptions, "log">> }
  | { kind: "import"; from: string; providers: ProviderId[] };

/** One step of one provider done (`done` of `total` requests or answers). */
export interface IngestProgress {
  provider: ProviderId;
  step: "fetch" | "parse";
  done: number;
  total: number;
}

export interface IngestOptions {
  dir: DataDir;
  source: IngestSource;
  log: Logger;
  /** The day the run speaks for; defaults to today (UTC). */
  today?: string;
  embedder?: Embedder;
  embedderModel?: string | null;
  /** Leave the generated demo data out of the new snapshot: real data only. */
  withoutDemo?: boolean;
  onProgress?: (event: IngestProgress) => void;
  /** Signs the new snapshot in its staging folder, before it is published (snapshot/signature.ts snapshotSigner). */
  sign?: (folder: string, id: string) => Promise<unknown>;
}

/** What an ingest's stages (ingest/ingest.ts) start from: its options, the day it speaks for, the snapshot it builds on. */
export interface IngestRun {
  options: IngestOptions;
  today: string;
  baseId: string;
  /** performance.now() when it started. */
  started: number;
}

export class IngestError extends Error {}
