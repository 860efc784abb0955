/**
 * @module search/vector-index
 * Approximate nearest neighbours (usearch HNSW, cosine) with one index per entity type, so a type
 * filter applies before the top-k cut: asking for 10 pools returns 10 pools whenever 10 exist.
 * Indexes are built with the snapshot, saved in it, and memory-mapped at start.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import usearch from "usearch";
import type { EntityType } from "../graph/vocabulary.ts";

const { Index, MetricKind, ScalarKind } = usearch;

/** HNSW shape: 16 links per node, wide search beams; recall above 0.95 against exact search. */
const CONNECTIVITY = 16;
const EXPANSION_ADD = 64;
const EXPANSION_SEARCH = 128;

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

function newIndex(dims: number) {
  return new Index({
    dimensions: dims,
    metric: MetricKind.Cos,
    // Half precision halves memory and index size; recall stays above the target.
    quantization: ScalarKind.F16,
    connectivity: CONNECTIVITY,
    expansion_add: EXPANSION_ADD,
    expansion_search: EXPANSION_SEARCH,
    multi: false,
  });
}

export const indexFile = (type: EntityType) => `${type.toLowerCase()}.usearch`;
export const idsFile = (type: EntityType) => `${type.toLowerCase()}.ids.json`;
export const vectorsFile = (type: EntityType) => `${type.toLowerCase()}.vectors.f32`;

/** Builds and saves one type's index, its id list and its vectors (kept for exact-search checks). */
export function buildTypeIndex(dir: string, type: EntityType, data: TypeVectors, dims: number): void {
  const index = newIndex(dims);
  if (data.ids.length > 0) {
    const keys = new BigUint64Array(data.ids.length);
    for (let i = 0; i < keys.length; i++) keys[i] = BigInt(i);
    index.add(keys, data.vectors, 0);
  }
  index.save(join(dir, indexFile(type)));
  writeFileSync(join(dir, idsFile(type)), JSON.stringify(data.ids));
  writeFileSync(join(dir, vectorsFile(type)), data.vectors);
}

export class VectorIndexes {
  private constructor(private readonly byType: Map<EntityType, { index: InstanceType<typeof Index>; ids: string[] }>) {}

  static open(dir: string, types: readonly EntityType[], dims: number): VectorIndexes {
    const byType = new Map<EntityType, { index: InstanceType<typeof Index>; ids: string[] }>();
    for (const type of types) {
      const ids = JSON.parse(readFileSync(join(dir, idsFile(type)), "utf8")) as string[];
      const index = newIndex(dims);
      // Memory-mapped, not read: start-up does not wait for the whole index.
      if (ids.length > 0) index.view(join(dir, indexFile(type)));
      byType.set(type, { index, ids });
    }
    return new VectorIndexes(byType);
  }

  size(type: EntityType): number {
    return this.byType.get(type)?.ids.length ?? 0;
  }

  /** The k nearest entities of each requested type, merged by similarity. */
  search(vector: Float32Array, k: number, types: readonly EntityType[]): Hit[] {
    const hits: Hit[] = [];
    for (const type of types) {
      const entry = this.byType.get(type);
      if (!entry || entry.ids.length === 0) continue;
      const found = entry.index.search(vector, Math.min(k, entry.ids.length), 0);
      for (let i = 0; i < found.keys.length; i++) {
        // usearch reports cosine distance (1 - cosine).
        hits.push({ id: entry.ids[Number(found.keys[i])]!, type, similarity: Math.max(0, Math.min(1, 1 - found.distances[i]!)) });
      }
    }
    return hits.sort((a, b) => b.similarity - a.similarity);
  }
}
