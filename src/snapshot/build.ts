/**
 * @module snapshot/build
 * `ckg build`: generate the default world and publish it as the live snapshot. The snapshot is
 * written under tmp/ and moved into place only when complete, so an interrupted build leaves the
 * previous snapshot serving.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/config.ts";
import type { Scale } from "../config/settings.ts";
import { generateWorld } from "../demo/generate.ts";
import { generateSeries } from "../demo/series/index.ts";
import { buildTimeseriesDb, publishedTables } from "../timeseries/database.ts";
import { buildSearchIndex } from "../search/build-index.ts";
import type { Embedder } from "../search/embedder.ts";
import { type EmbedderSettings, configuredEmbedder, embedderModel } from "../search/embedders.ts";
import { namespaces } from "../entities/vocabulary.ts";
import type { Logger } from "../log.ts";
import { isAlive } from "../runtime.ts";
import { type DataDir, clearStaleStaging, ensureDataDir, newSnapshotId, publishSnapshot, stagingPath } from "../store/data-dir.ts";
import type { SnapshotManifest } from "../store/manifest.ts";
import { type SnapshotSigner, snapshotSigner } from "./signature.ts";
import { sideBySide, stage } from "./stage.ts";
import { writeSnapshot } from "./write.ts";

export interface BuildOptions {
  dir: DataDir;
  scale: Scale;
  seed: number;
  ontologyNs: string;
  /** Defaults to now. */
  asOf?: Date;
  /** Plant the demo anomalies (default true); false builds the clean world. */
  plants?: boolean;
  /** Makes the search vectors (default: LSA learned from this snapshot's corpus); `embedderModel` is the API model it calls. */
  embedder?: Embedder;
  embedderModel?: string | null;
  /** Signs the finished snapshot in its staging folder, before it is published (snapshot/signature.ts snapshotSigner). */
  sign?: SnapshotSigner;
  log: Logger;
}

export interface BuiltSnapshot {
  id: string;
  path: string;
  manifest: SnapshotManifest;
}

/**
 * What a build takes from the settings: the world's scale, seed and namespace, the embedder of its
 * search vectors and the model name it records, and the signer when a signing key is set. `ckg
 * build` and `ckg ingest`'s base world and ingest alike.
 */
export async function buildSettings(
  config: EmbedderSettings & Pick<Config, "scale" | "seed" | "ontology_ns" | "snapshot_signing_key">,
): Promise<Pick<BuildOptions, "scale" | "seed" | "ontologyNs" | "embedder" | "embedderModel" | "sign">> {
  return {
    scale: config.scale,
    seed: config.seed,
    ontologyNs: config.ontology_ns,
    embedder: await configuredEmbedder(config),
    embedderModel: embedderModel(config),
    sign: snapshotSigner(config.snapshot_signing_key),
  };
}

export async function buildSnapshot(options: BuildOptions): Promise<BuiltSnapshot> {
  const { dir, log } = options;
  ensureDataDir(dir);
  const release = acquireBuildLock(dir);
  try {
    clearStaleStaging(dir);
    const startedAt = performance.now();
    const asOf = options.asOf ?? new Date(Math.floor(Date.now() / 1000) * 1000);
    const id = newSnapshotId(asOf);
    const staging = stagingPath(dir, id);
    log.info({ snapshot: id, scale: String(options.scale), seed: options.seed }, "building snapshot");
    try {
      const { world, series, search } = await generate(options, asOf, staging, log, startedAt);
      // After both (beside the search index it took a full build past 4 GiB), and beside the
      // world's own files, which writeSnapshot writes while this runs.
      const timeseriesDb = stage(log, "query database", () => buildTimeseriesDb(staging, publishedTables(series.tables)));
      const manifest = await writeSnapshot(world, {
        id,
        series,
        timeseriesDb,
        search,
        dir: staging,
        ns: namespaces(options.ontologyNs),
        asOf,
        scale: String(options.scale),
        seed: options.seed,
        startedAt,
        log,
      });
      if (options.sign) await stage(log, "signature", () => options.sign!(staging, id));
      const path = publishSnapshot(dir, id);
      log.info(
        { snapshot: id, entities: manifest.counts.entities, quads: manifest.counts.quads, ms: manifest.build.duration_ms },
        "snapshot published",
      );
      return { id, path, manifest };
    } catch (error) {
      // Nothing half-built stays behind; the live snapshot was never touched.
      rmSync(staging, { recursive: true, force: true });
      throw buildError(error as NodeJS.ErrnoException, dir, id);
    }
  } finally {
    release();
  }
}

/**
 * The world, then its series and its search index side by side: the series are DuckDB's work and
 * leave this thread idle while each statement runs, which the search index fills. The index gives
 * the thread back every few milliseconds (runtime.ts TimeSlices), or the series' next statement
 * waits for it: unsliced, it held the thread for 69 of its 72 s, and the series stage took 257 s
 * at 1.70 cores; sliced, 213 s at 1.84 (full scale, peak 3.47 GiB). Only the world outlives this: the
 * generator's own tables (records by type, schedules, wallets) go with the context once the series
 * are written. Both random streams are forked before either starts, in the order they always were.
 */
async function generate(options: BuildOptions, asOf: Date, staging: string, log: Logger, startedAt: number) {
  const ctx = await stage(log, "world", () => generateWorld({ scale: options.scale, seed: options.seed, asOf }, log));
  log.info({ entities: ctx.world.entities.size, facts: ctx.world.factCount, ms: Math.round(performance.now() - startedAt) }, "world generated");
  const seriesRng = ctx.rng.fork("series");
  const searchRng = ctx.rng.fork("search");
  const [series, search] = await sideBySide([
    stage(log, "series", () => generateSeries(ctx, staging, { plants: options.plants ?? true, rng: seriesRng }, log)),
    stage(log, "search index", () => buildSearchIndex(ctx.world, staging, { rng: searchRng, embedder: options.embedder, model: options.embedderModel }, log)),
  ]);
  return { world: ctx.world, series, search };
}

/** A failed build says what a person can do; a full disk is said as such (DuckDB reports it in its own words). */
function buildError(error: NodeJS.ErrnoException, dir: DataDir, id: string): Error {
  const full = error.code === "ENOSPC" || /No space left on device|ENOSPC/i.test(error.message);
  if (!full) return error;
  return new Error(`the disk holding ${dir.root} is full: snapshot ${id} could not be written (${error.message.split("\n")[0]}); the live snapshot is unchanged and the partial build was removed. Free space and build again.`, { cause: error });
}

/** One build at a time per data directory; a lock left by a dead process is taken over. */
export function acquireBuildLock(dir: DataDir): () => void {
  const path = join(dir.root, "build.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(path, "utf8").trim());
      if (holder && isAlive(holder)) throw new Error(`another build (pid ${holder}) is running in ${dir.root}`);
      rmSync(path, { force: true });
    }
  }
  throw new Error(`cannot take the build lock ${path}`);
}
