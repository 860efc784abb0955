/**
 * @module ingest/ingest
 * `ckg ingest` and `ckg import`: provider data into a new snapshot beside the live one. A run is a
 * list of named stages (pipeline.ts), each a function of what the stages before it gave:
 *
 *   fetch    each provider's answers into ingest/run/raw (skipping answers a killed run saved)
 *   parse    the saved answers into claims and series rows (the same parsers for an import)
 *   base     the live snapshot read back into a World
 *   resolve  claims onto that world: one entity per real thing
 *   diff     the changes they make, recorded; the world checked whole
 *   series   series tables (merged with the stored history) and the query database in tmp/<id>
 *   search   the search index, updated for what changed
 *   write    graph dump, the world's tables and the manifest
 *   publish  the report, the signature, then renamed into snapshots/ with CURRENT pointed at it:
 *            the running server picks it up
 *
 * (read-providers.ts, update-world.ts, new-snapshot.ts and publish.ts hold them.) Nothing touches
 * the live snapshot: a failure or a kill at any stage leaves it serving, and the next run resumes
 * from the saved answers. One refusal never stops a run: a request a provider refuses (after its
 * retries) is skipped and listed in the report (`skipped`), and the run publishes what the others
 * gave; only a run that got nothing at all from any provider publishes nothing. Cursors (the last
 * day stored per history) advance only from rows that were published, so a skipped history is
 * asked again from the same day next time.
 */
import { Pipeline } from "../pipeline.ts";
import { acquireBuildLock } from "../snapshot/build.ts";
import { clearStaleStaging, liveSnapshotId } from "../store/data-dir.ts";
import { buildSeries, updateSearch, writeFiles } from "./new-snapshot.ts";
import type { IngestOptions, IngestRun } from "./options.ts";
import { type IngestReport, publish } from "./publish.ts";
import { fetchProviders, parseProviders } from "./read-providers.ts";
import { readBase, recordChanges, resolveClaims } from "./update-world.ts";

export type { IngestReport } from "./publish.ts";

const INGEST = Pipeline.of<IngestRun>("ingest")
  .stage("fetch", fetchProviders)
  .stage("parse", parseProviders)
  .stage("base", readBase)
  .stage("resolve", resolveClaims)
  .stage("diff", recordChanges)
  .stage("series", buildSeries)
  .stage("search", updateSearch)
  .stage("write", writeFiles)
  .stage("publish", publish);

/** One ingest, under the data directory's build lock; IngestError (ingest/options.ts) when it publishes nothing. */
export async function ingest(options: IngestOptions): Promise<IngestReport> {
  const started = performance.now();
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const baseId = liveSnapshotId(options.dir);
  const release = acquireBuildLock(options.dir);
  try {
    clearStaleStaging(options.dir);
    return (await INGEST.run({ options, today, baseId, started }, options.log)).report;
  } finally {
    release();
  }
}
