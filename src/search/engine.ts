/**
 * @module search/engine
 * The live snapshot's search: its name index, its vector indexes (scan workers) and the embedder
 * its vectors were made with. The embedder opens in the background at activation; when it cannot
 * (a configured model directory is gone, an embeddings API is down), search answers a clear error
 * and tries again on a later request, while every other route keeps serving. Answers to repeated
 * questions come from a cache of the snapshot's recent answers (search_cache_entries): a snapshot
 * never changes, so an answer stays right for as long as its snapshot is live.
 */
import type { DuckDBInstance } from "@duckdb/node-api";
import { join } from "node:path";
import { LRUCache } from "lru-cache";
import type { Config } from "../config/config.ts";
import { CkgError, isCkgError } from "../errors.ts";
import { ENTITY_TYPES } from "../entities/vocabulary.ts";
import type { Logger } from "../log.ts";
import type { SnapshotManifest } from "../store/manifest.ts";
import { sqlString, streamColumns, withConnection } from "../store/duckdb.ts";
import type { Embedder } from "./embedder.ts";
import { ScopeFacts } from "./scope.ts";
import { DescriptionIndex } from "./description-index.ts";
import { type EmbedderSettings, snapshotEmbedder } from "./embedders.ts";
import type { NameIndex } from "../entities/name-index.ts";
import { type SearchAnswer, type SearchInput, search } from "./search.ts";
import { VectorIndexes } from "./vector-index.ts";
import { VectorRows } from "./vector-rows.ts";

/** After a failed attempt to open the embedder, requests wait this long before the next one. */
const RETRY_AFTER_MS = 10_000;

export type SearchSettings = EmbedderSettings & Pick<Config, "search_cache_entries">;

/** What search reads from a snapshot beside its vectors. */
export interface SearchLookups {
  names: NameIndex;
  scopes: ScopeFacts;
  descriptions: DescriptionIndex;
  /** By name-index position: 1 where the entity is generated demo data. */
  demo: Uint8Array;
}

export async function searchLookups(duck: DuckDBInstance, snapshotDir: string, manifest: SnapshotManifest, names: NameIndex): Promise<SearchLookups> {
  const facts = join(snapshotDir, manifest.files.facts);
  const synthetic = manifest.sources.filter((s) => s.synthetic).map((s) => s.id);
  const [scopes, descriptions, demoIds] = await Promise.all([
    ScopeFacts.fromParquet(duck, facts, names),
    DescriptionIndex.fromParquet(duck, facts, names),
    synthetic.length === 0
      ? Promise.resolve([] as string[])
      : withConnection(duck, async (c) =>
          (await streamColumns(c, `SELECT id FROM read_parquet(${sqlString(join(snapshotDir, manifest.files.entities))}) WHERE source IN (${synthetic.map(sqlString).join(", ")})`)).id as string[],
        ),
  ]);
  const demo = new Uint8Array(names.size);
  for (const id of demoIds) {
    const position = names.positionOf(id);
    if (position !== undefined) demo[position] = 1;
  }
  return { names, scopes, descriptions, demo };
}

export class SearchEngine {
  private embedder: Embedder | undefined;
  private readonly answers: LRUCache<string, SearchAnswer> | undefined;
  private opening: Promise<Embedder> | undefined;
  private failure: { error: unknown; at: number } | undefined;

  private constructor(
    private readonly names: NameIndex,
    private readonly vectors: VectorIndexes,
    private readonly rows: VectorRows,
    private readonly scopes: ScopeFacts,
    private readonly descriptions: DescriptionIndex,
    private readonly demo: Uint8Array,
    private readonly open: () => Promise<Embedder>,
    private readonly log: Logger,
    cacheEntries: number,
  ) {
    this.answers = cacheEntries > 0 ? new LRUCache({ max: cacheEntries }) : undefined;
  }

  /** Resolves once the vector index has loaded (a snapshot whose index cannot load is refused). */
  static async open(
    snapshotDir: string,
    manifest: SnapshotManifest,
    lookups: SearchLookups,
    settings: SearchSettings,
    log: Logger,
  ): Promise<SearchEngine> {
    const dir = join(snapshotDir, manifest.search.dir);
    const vectors = await VectorIndexes.open(dir, ENTITY_TYPES, manifest.search.dims);
    const engine = new SearchEngine(lookups.names, vectors, VectorRows.open(dir, manifest.search.dims, lookups.names), lookups.scopes, lookups.descriptions, lookups.demo, () => snapshotEmbedder(dir, manifest.search, settings), log, settings.search_cache_entries);
    if (settings.embedder !== manifest.search.embedder) {
      log.warn(
        { configured: settings.embedder, snapshot: manifest.search.embedder },
        "the embedder setting differs from the one this snapshot was indexed with; queries use the snapshot's until a new build",
      );
    }
    engine.embedderReady().catch(() => undefined); // warm up; a failure is reported on use
    return engine;
  }

  /** Answers are shared between callers from the cache: they are serialized, never changed. */
  async search(input: SearchInput): Promise<SearchAnswer> {
    const key = this.answers && JSON.stringify([input.query, input.limit, input.entity_types ?? null]);
    const cached = key === undefined ? undefined : this.answers!.get(key);
    if (cached) return cached;
    const { names, vectors, rows, scopes, descriptions, demo } = this;
    const answer = await search({ names, vectors, rows, scopes, descriptions, demo, embedder: await this.embedderReady() }, input);
    if (key !== undefined) this.answers!.set(key, answer);
    return answer;
  }

  /** Stops the vector index's workers (a retired snapshot). */
  close(): void {
    this.vectors.close();
  }

  private async embedderReady(): Promise<Embedder> {
    if (this.embedder) return this.embedder;
    if (this.failure && Date.now() - this.failure.at < RETRY_AFTER_MS) throw unavailable(this.failure.error);
    this.opening ??= this.open()
      .then((embedder) => {
        this.embedder = embedder;
        this.failure = undefined;
        this.log.info({ embedder: embedder.spec, dims: embedder.dims }, "search embedder ready");
        return embedder;
      })
      .catch((error: unknown) => {
        this.failure = { error, at: Date.now() };
        this.log.error({ err: (error as Error).message }, "search embedder failed to open");
        throw error;
      })
      .finally(() => (this.opening = undefined));
    try {
      return await this.opening;
    } catch (error) {
      throw unavailable(error);
    }
  }
}

/** An embeddings API that failed stays a 502; any other cause means search is not usable yet: 503. */
function unavailable(error: unknown): CkgError {
  if (isCkgError(error) && error.code === "upstream_unavailable") return error;
  return new CkgError("not_ready", `Search is unavailable: its embedder could not be opened (${(error as Error).message}).`, {
    retryAfterSeconds: RETRY_AFTER_MS / 1000,
    details: { component: "search" },
    cause: error,
  });
}
