/**
 * @module search/build-index
 * The search index of a snapshot (its search/ folder): the embedder's model when it is learned
 * here (LSA), and per entity type the entity ids, their vectors and an HNSW index over them.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Rng } from "../dataset/rng.ts";
import type { World } from "../dataset/world.ts";
import { ENTITY_TYPES } from "../graph/vocabulary.ts";
import type { Logger } from "../log.ts";
import { Corpus } from "./corpus.ts";
import { type Embedder, LsaEmbedder } from "./embedder.ts";
import { DEFAULT_TRAINING, saveLsa, trainLsa } from "./lsa.ts";
import { buildTypeIndex } from "./vector-index.ts";

export const SEARCH_DIR = "search";

export interface SearchIndexInfo {
  dir: string;
  embedder: string;
  model: string | null;
  dims: number;
  counts: Record<string, number>;
  build_ms: number;
}

export async function buildSearchIndex(
  world: World,
  snapshotDir: string,
  /** `embedder` comes from outside (onnx, openai; `model` names the API model); without it, LSA is learned here. */
  options: { rng: Rng; embedder?: Embedder; model?: string | null },
  log: Logger,
): Promise<SearchIndexInfo> {
  const started = performance.now();
  const dir = join(snapshotDir, SEARCH_DIR);
  mkdirSync(dir, { recursive: true });
  const corpus = new Corpus(world);
  let embedder = options.embedder;
  if (!embedder) {
    const types = new Map(corpus.ids.map((id) => [id, world.entities.get(id)!.type as string]));
    const model = trainLsa(corpus, types, options.rng, DEFAULT_TRAINING);
    saveLsa(model, dir);
    embedder = new LsaEmbedder(model);
    log.info({ features: model.features.length, dims: model.dims, ms: Math.round(performance.now() - started) }, "search model learned");
  }
  const counts: Record<string, number> = {};
  for (const type of ENTITY_TYPES) {
    const t = performance.now();
    const ids = corpus.idsOfType(type);
    const vectors = await embedder.embedEntities(corpus, ids);
    buildTypeIndex(dir, type, { ids, vectors }, embedder.dims);
    counts[type] = ids.length;
    log.debug({ type, entities: ids.length, ms: Math.round(performance.now() - t) }, "search index built");
  }
  return {
    dir: SEARCH_DIR,
    embedder: embedder.spec,
    model: options.model ?? null,
    dims: embedder.dims,
    counts,
    build_ms: Math.round(performance.now() - started),
  };
}
