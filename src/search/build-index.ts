/**
 * @module search/build-index
 * The search index of a snapshot (its search/ folder): the embedder's model when it is learned
 * here (LSA), and per entity type the entity ids, their vectors and the int8 codes the index scans.
 */
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Rng } from "../rng.ts";
import type { World } from "../model/world.ts";
import { ENTITY_TYPES } from "../entities/vocabulary.ts";
import type { Logger } from "../log.ts";
import { Corpus } from "./corpus.ts";
import { type Embedder, LsaEmbedder } from "./embedder.ts";
import { type CountedCorpus, countCorpus } from "./counted-corpus.ts";
import { DEFAULT_TRAINING, type LsaModel, embedCounted, readFloats, saveLsa, trainLsa } from "./lsa.ts";
import { readIds, vectorsFile } from "./vector-files.ts";
import { buildTypeIndex } from "./vector-index.ts";

const SEARCH_DIR = "search";

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
  // Learned here, the model embeds the documents it counted: each is made once.
  let learned: { model: LsaModel; counted: CountedCorpus } | undefined;
  if (!embedder) {
    const types = new Map(corpus.ids.map((id) => [id, world.entities.get(id)!.type as string]));
    const counted = await countCorpus(corpus);
    const model = await trainLsa(corpus, counted, types, options.rng, DEFAULT_TRAINING);
    saveLsa(model, dir);
    embedder = new LsaEmbedder(model);
    learned = { model, counted };
    log.info({ features: model.features.length, dims: model.dims, ms: Math.round(performance.now() - started) }, "search model learned");
  }
  const counts: Record<string, number> = {};
  for (const type of ENTITY_TYPES) {
    const t = performance.now();
    const rows = corpus.rowsOfType(type);
    const ids = rows.map((row) => corpus.ids[row]!);
    const vectors = learned ? await embedCounted(learned.model, learned.counted, rows) : await embedder.embedEntities(corpus, ids);
    await buildTypeIndex(dir, type, { ids, vectors }, embedder.dims);
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

/**
 * The search index of a snapshot built on top of `base` (an ingest): the base's model and vectors
 * are kept and only the entities in `dirty` (changed, or linked to something that changed: a
 * document names its neighbours) and new ones are embedded again, with the embedder the base was
 * indexed with (the codes are made afresh: that is a pass over the vectors). `model` is the base's
 * learned model with new words folded in (search/lsa-fold), saved in place of the base's.
 */
export async function updateSearchIndex(
  world: World,
  snapshotDir: string,
  base: { dir: string; info: SearchIndexInfo },
  dirty: Set<string>,
  embedder: Embedder,
  log: Logger,
  model?: LsaModel,
): Promise<SearchIndexInfo> {
  const started = performance.now();
  const dir = join(snapshotDir, SEARCH_DIR);
  const baseDir = join(base.dir, base.info.dir);
  mkdirSync(dir, { recursive: true });
  if (model) saveLsa(model, dir);
  else for (const file of readdirSync(baseDir).filter((f) => f.startsWith("lsa-"))) copyFileSync(join(baseDir, file), join(dir, file));
  const corpus = new Corpus(world);
  const dims = base.info.dims;
  const counts: Record<string, number> = {};
  let embedded = 0;
  for (const type of ENTITY_TYPES) {
    const baseIds = readIds(baseDir, type);
    const inBase = new Set(baseIds);
    const baseVectors = readFloats(join(baseDir, vectorsFile(type)));
    const current = new Set(corpus.idsOfType(type));
    // Base rows first (their vectors are reused), then what is new; an entity is never removed by an ingest.
    if (baseIds.some((id) => !current.has(id))) throw new Error(`search index of ${type}: entities went missing since the base snapshot`);
    const ids = [...baseIds, ...[...current].filter((id) => !inBase.has(id))];
    // Shared, so the k-means helpers (ivf.ts) read the rows without a copy.
    const vectors = new Float32Array(new SharedArrayBuffer(ids.length * dims * 4));
    vectors.set(baseVectors.subarray(0, baseIds.length * dims));
    const changed: number[] = [];
    ids.forEach((id, row) => {
      if (row >= baseIds.length || dirty.has(id)) changed.push(row);
    });
    const fresh = await embedder.embedEntities(corpus, changed.map((row) => ids[row]!));
    changed.forEach((row, i) => vectors.set(fresh.subarray(i * dims, (i + 1) * dims), row * dims));
    embedded += changed.length;
    await buildTypeIndex(dir, type, { ids, vectors }, dims);
    counts[type] = ids.length;
  }
  log.info({ embedded, ms: Math.round(performance.now() - started) }, "search index updated");
  return { ...base.info, counts, build_ms: Math.round(performance.now() - started) };
}
