/**
 * @module search/vector-index
 * Nearest neighbours (cosine) with one index per entity type, so a type filter applies before the
 * top-k cut: asking for 10 pools returns 10 pools whenever 10 exist. Large types get a usearch HNSW
 * index, built with the snapshot, saved in it and memory-mapped at start; small ones (chains,
 * exchanges, protocols: a few thousand vectors) are searched exactly, by usearch's SIMD brute force
 * over their vectors held in memory, which is as fast there and never misses. Small types are also
 * where near-duplicate vectors crowd (a thousand EVM chains described alike), which HNSW handles worst.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import usearch from "usearch";
import type { EntityType } from "../graph/vocabulary.ts";
import { readFloats } from "./lsa.ts";

const { Index, MetricKind, ScalarKind, exactSearch } = usearch;

/** Types with fewer vectors are searched exactly (at 50,000 x 128 dims, about a millisecond). */
export const EXACT_BELOW = 50_000;
/**
 * HNSW shape: 16 links per node and wide beams while building and searching. On the full data
 * (scripts/bench/search.ts) a type takes 1-2 ms a query; recall@10 against exact search is 0.94 for
 * tokens but 0.76-0.81 for people and pools, whose vectors crowd (queries far from all of them, such
 * as a token's name asked of people, are the misses). Wider settings bought little recall for much
 * latency (32 links, beams 400/1024: people 0.93 at 2 ms). A single-type question uses a beam of
 * 1024 (tokens 0.96, pools 0.87, people 0.83; all answers 0.95 against exact, p50 about 10 ms).
 */
const CONNECTIVITY = 16;
const EXPANSION_ADD = 200;
const EXPANSION_SEARCH = 512;
/**
 * A question about one large type (entity_types: ["Person"]) searches one index, so it can afford a
 * wider beam: two views of the same memory-mapped file, differing only in the beam.
 */
const WIDE_EXPANSION_SEARCH = 1024;

export interface TypeVectors {
  ids: string[];
  /** ids.length x dims, row-major, unit length. */
  vectors: Float32Array;
}

export interface Hit {
  id: string;
  type: EntityType;
  similarity: number;
}

function newIndex(dims: number, expansionSearch = EXPANSION_SEARCH) {
  return new Index({
    dimensions: dims,
    metric: MetricKind.Cos,
    // Half precision halves memory and index size; recall stays above the target.
    quantization: ScalarKind.F16,
    connectivity: CONNECTIVITY,
    expansion_add: EXPANSION_ADD,
    expansion_search: expansionSearch,
    multi: false,
  });
}

export const indexFile = (type: EntityType) => `${type.toLowerCase()}.usearch`;
export const idsFile = (type: EntityType) => `${type.toLowerCase()}.ids.json`;
export const vectorsFile = (type: EntityType) => `${type.toLowerCase()}.vectors.f32`;

/** Saves one type's id list and vectors, and for a large type builds and saves its HNSW index. */
export function buildTypeIndex(dir: string, type: EntityType, data: TypeVectors, dims: number): void {
  writeFileSync(join(dir, idsFile(type)), JSON.stringify(data.ids));
  writeFileSync(join(dir, vectorsFile(type)), data.vectors);
  if (data.ids.length < EXACT_BELOW) return;
  const index = newIndex(dims);
  const keys = new BigUint64Array(data.ids.length);
  for (let i = 0; i < keys.length; i++) keys[i] = BigInt(i);
  index.add(keys, data.vectors, 0);
  index.save(join(dir, indexFile(type)));
}

/**
 * A type's index for a snapshot that differs from `baseDir`'s in a few entities: the base HNSW
 * index is loaded and only the vectors of `changed` rows are removed and added again. The caller
 * keeps the base's row of every entity the base had (its key) and appends new entities.
 */
export function extendTypeIndex(dir: string, baseDir: string, type: EntityType, data: TypeVectors, dims: number, changed: number[]): void {
  writeFileSync(join(dir, idsFile(type)), JSON.stringify(data.ids));
  writeFileSync(join(dir, vectorsFile(type)), data.vectors);
  if (data.ids.length < EXACT_BELOW) return;
  const index = newIndex(dims);
  index.load(join(baseDir, indexFile(type)));
  if (changed.length > 0) {
    const keys = BigUint64Array.from(changed, (row) => BigInt(row));
    const present = keys.filter((k) => index.contains(k) === true);
    if (present.length > 0) index.remove(present);
    const vectors = new Float32Array(changed.length * dims);
    changed.forEach((row, i) => vectors.set(data.vectors.subarray(row * dims, (row + 1) * dims), i * dims));
    index.add(keys, vectors, 0);
  }
  index.save(join(dir, indexFile(type)));
}

/** How one type is searched: its HNSW index, or exactly over its vectors. */
type TypeSearch = { ids: string[] } & ({ index: InstanceType<typeof Index>; wide: InstanceType<typeof Index> } | { vectors: Float32Array; dims: number });

export class VectorIndexes {
  private constructor(private readonly byType: Map<EntityType, TypeSearch>) {}

  /** `exact` searches every type exactly (the benchmark's reference for the HNSW indexes). */
  static open(dir: string, types: readonly EntityType[], dims: number, options: { exact?: boolean } = {}): VectorIndexes {
    const byType = new Map<EntityType, TypeSearch>();
    for (const type of types) {
      const ids = JSON.parse(readFileSync(join(dir, idsFile(type)), "utf8")) as string[];
      if (ids.length < EXACT_BELOW || options.exact) {
        byType.set(type, { ids, vectors: readFloats(join(dir, vectorsFile(type))), dims });
        continue;
      }
      // Memory-mapped, not read: start-up does not wait for the whole index.
      const index = newIndex(dims);
      index.view(join(dir, indexFile(type)));
      const wide = newIndex(dims, WIDE_EXPANSION_SEARCH);
      wide.view(join(dir, indexFile(type)));
      byType.set(type, { ids, index, wide });
    }
    return new VectorIndexes(byType);
  }

  /** The k nearest entities of each requested type, merged by similarity. */
  search(vector: Float32Array, k: number, types: readonly EntityType[]): Hit[] {
    const hits: Hit[] = [];
    const approximate = types.filter((type) => {
      const entry = this.byType.get(type);
      return entry !== undefined && "index" in entry;
    });
    const beam = approximate.length <= 1 ? "wide" : "index";
    for (const type of types) {
      const entry = this.byType.get(type);
      if (!entry || entry.ids.length === 0) continue;
      const count = Math.min(k, entry.ids.length);
      const found =
        "index" in entry
          ? entry[beam].search(vector, count, 0)
          : (exactSearch(entry.vectors, vector, entry.dims, count, MetricKind.Cos, 1) as { keys: BigUint64Array; distances: Float32Array });
      for (let i = 0; i < found.keys.length; i++) {
        // usearch reports cosine distance (1 - cosine).
        hits.push({ id: entry.ids[Number(found.keys[i])]!, type, similarity: Math.max(0, Math.min(1, 1 - found.distances[i]!)) });
      }
    }
    return hits.sort((a, b) => b.similarity - a.similarity);
  }
}
