/**
 * @module ingest/ingest-data-dir
 * The entry point of ingests: provider data, fetched now or imported from saved answers, published
 * as a new snapshot of a data directory (ingest/ingest.ts). The run is recorded in the ingests
 * table while it runs (store/runs.ts): a run whose process dies stays visible as interrupted, and a
 * server redoes it at its next start. Into a data directory with no snapshot yet the base world is
 * built first (the reference entities and the demo fill, which `withoutDemo` then leaves out), so
 * a first real-data step is one command. `ckg ingest` and `ckg import` run it, by hand and in the
 * child process the server starts for each of its ingests (supervisor/scheduler.ts); it is all a
 * command needs of ingest/ to ingest.
 */
import type { Config } from "../config/config.ts";
import type { Logger } from "../log.ts";
import { buildSettings, buildSnapshot } from "../snapshot/build.ts";
import { type DataDir, currentSnapshotId, dataDir, ensureDataDir } from "../store/data-dir.ts";
import { openState } from "../store/open-state.ts";
import { finishIngest, startIngest } from "../store/runs.ts";
import { type IngestReport, ingest } from "./ingest.ts";
import { type IngestOptions, type IngestSource, IngestError } from "./options.ts";
import { providerConfig } from "./providers/index.ts";
import { RawStore } from "./raw-store.ts";
import type { ProviderId } from "./records.ts";

export type { IngestReport } from "./ingest.ts";

export interface IngestRequest {
  /** Fetch these providers now, or import their answers saved under `from` (the layout of ingest/run/raw). */
  source: { kind: "fetch"; providers: ProviderId[] } | { kind: "import"; from: string; providers: ProviderId[] };
  /** Leave the generated demo data out of the new snapshot: real data only. */
  withoutDemo: boolean;
  /** Why it runs, recorded with it. */
  trigger: string;
}

export interface IngestHooks {
  log: Logger;
  /** The data directory had no snapshot: the base world was built first. */
  onBaseBuilt?: (base: { id: string; durationMs: number }) => void;
  onProgress?: IngestOptions["onProgress"];
}

/** Published, or refused as a whole (IngestError: nothing to publish, or a world that does not hold together); the live snapshot is then unchanged. */
export type IngestOutcome = { published: true; report: IngestReport } | { published: false; error: IngestError };

/** The provider folders under `folder`, a folder of saved answers (`ckg import`'s default). */
export function providersSavedIn(folder: string): string[] {
  return new RawStore(folder).providers();
}

/** Runs one ingest (or import) of the data directory, recorded while it runs; any other error than IngestError is thrown, recorded too. */
export async function ingestDataDir(config: Config, request: IngestRequest, hooks: IngestHooks): Promise<IngestOutcome> {
  const source: IngestSource =
    request.source.kind === "fetch"
      ? { kind: "fetch", providers: new Map(request.source.providers.map((p) => [p, providerConfig(config, p)])), detailLimit: config.ingest_detail_limit }
      : request.source;
  const dir = dataDir(config.data_dir);
  ensureDataDir(dir);
  const state = await openState(config, dir.stateDb);
  const id = await startIngest(state, request.trigger);
  try {
    const outcome = await ingestAndBuild(config, dir, { source, withoutDemo: request.withoutDemo }, hooks);
    await finishIngest(state, id, outcome.published ? { status: "ok", snapshotId: outcome.report.snapshot_id } : { status: "failed", error: "see the ingest's log" });
    return outcome;
  } catch (error) {
    await finishIngest(state, id, { status: "failed", error: (error as Error).message });
    throw error;
  } finally {
    await state.close();
  }
}

/** The ingest, on the base world built first when there is no snapshot yet. */
async function ingestAndBuild(config: Config, dir: DataDir, request: { source: IngestSource; withoutDemo: boolean }, hooks: IngestHooks): Promise<IngestOutcome> {
  const { log } = hooks;
  // One embedder for the base world and the ingest: an onnx one loads its model once.
  const settings = await buildSettings(config);
  if (!currentSnapshotId(dir)) {
    log.info({ data_dir: dir.root }, "no snapshot yet: building the base world first");
    const base = await buildSnapshot({ dir, ...settings, log });
    hooks.onBaseBuilt?.({ id: base.id, durationMs: base.manifest.build.duration_ms });
  }
  try {
    const { embedder, embedderModel, sign } = settings;
    const report = await ingest({ dir, source: request.source, log, embedder, embedderModel, withoutDemo: request.withoutDemo, sign, onProgress: hooks.onProgress });
    return { published: true, report };
  } catch (error) {
    if (error instanceof IngestError) return { published: false, error };
    throw error;
  }
}
