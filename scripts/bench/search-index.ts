/**
 * The search bench's index steps (scripts/bench/search.ts): rebuild a working copy's vector index
 * from its saved vectors with this checkout's code (so a snapshot built by an older version is
 * measured with the current index, and the index's own build time is measured alone), and recall
 * by type against exact search (ckg's index, pgvector's HNSW) on the same question vectors; and the
 * meaning questions the search benches ask (search.ts, search-spans.ts, search-threads.ts).
 */
import { mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SQL } from "bun";
import { ENTITY_TYPES, type EntityType } from "../../src/entities/vocabulary.ts";
import { readFloats } from "../../src/search/lsa.ts";
import { readIds, vectorsFile } from "../../src/search/vector-files.ts";
import { buildTypeIndex } from "../../src/search/vector-index.ts";
import { labelledQueries } from "../../test/search/labelled-set.ts";
import { realNameQueries } from "../../test/search/real-names.ts";

/**
 * The 73 meaning questions: the real-name set's questions and the labelled set's meaning queries,
 * as /api/search bodies (no limit: the default 10).
 */
export function meaningQuestions(): { query: string; entity_types?: EntityType[] }[] {
  return [...realNameQueries().filter((q) => q.kind === "question"), ...labelledQueries().filter((q) => q.kind === "meaning")].map((q) => ({
    query: q.query,
    entity_types: q.entity_types,
  }));
}

/** Index files (not the LSA model): what buildTypeIndex writes. */
const indexFile = (name: string) => !name.startsWith("lsa-");

/**
 * Builds every type's index from the working copy's vectors into a fresh folder, then swaps the
 * files in: the working copy's own files are hard links to the source snapshot, so they are
 * unlinked, never written. Returns the build time (ms) per type.
 */
export async function reindex(searchDir: string, dims: number): Promise<Map<EntityType, number>> {
  const fresh = mkdtempSync(join(tmpdir(), "ckg-reindex-"));
  const times = new Map<EntityType, number>();
  try {
    for (const type of ENTITY_TYPES) {
      const ids = readIds(searchDir, type);
      const vectors = readFloats(join(searchDir, vectorsFile(type)));
      const started = performance.now();
      await buildTypeIndex(fresh, type, { ids, vectors }, dims);
      times.set(type, performance.now() - started);
    }
    for (const name of readdirSync(searchDir).filter(indexFile)) rmSync(join(searchDir, name));
    for (const name of readdirSync(fresh)) renameSync(join(fresh, name), join(searchDir, name));
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
  return times;
}

/**
 * Recall@10 per type of `find` (the rows it returns for a query and a type) against exact search
 * over the same vectors, tie-aware: a hit is any returned row whose exact cosine reaches the exact
 * tenth (many entities share a vector).
 */
export async function recallByType(
  searchDir: string,
  dims: number,
  queries: Float32Array[],
  find: (query: Float32Array, type: EntityType, ids: string[]) => Promise<number[]>,
): Promise<Map<EntityType, number>> {
  const out = new Map<EntityType, number>();
  for (const type of ENTITY_TYPES) {
    const ids = readIds(searchDir, type);
    if (ids.length === 0) continue;
    const all = readFloats(join(searchDir, vectorsFile(type)));
    let hits = 0;
    let total = 0;
    for (const query of queries) {
      const scores = new Float32Array(ids.length);
      for (let row = 0; row < ids.length; row++) {
        let dot = 0;
        for (let j = 0; j < dims; j++) dot += query[j]! * all[row * dims + j]!;
        scores[row] = dot;
      }
      const tenth = scores.slice().sort()[Math.max(0, ids.length - 10)]! - 1e-6;
      hits += (await find(query, type, ids)).slice(0, 10).filter((row) => row >= 0 && scores[row]! >= tenth).length;
      total += Math.min(10, ids.length);
    }
    out.set(type, hits / total);
  }
  return out;
}

/** pgvector's answer for `recallByType`: its HNSW index of the type, as pgSearch asks it. */
export function pgvectorRows(db: SQL): (query: Float32Array, type: EntityType, ids: string[]) => Promise<number[]> {
  const rowsOf = new Map<EntityType, Map<string, number>>();
  return async (query, type, ids) => {
    let rowOf = rowsOf.get(type);
    if (!rowOf) rowsOf.set(type, (rowOf = new Map(ids.map((id, row) => [id, row]))));
    const found = (await db.unsafe(`SELECT id FROM entity_vector WHERE type = '${type}' ORDER BY embedding <=> $1::vector LIMIT 10`, [
      `[${Array.from(query).join(",")}]`,
    ])) as { id: string }[];
    return found.map((r) => rowOf.get(r.id) ?? -1);
  };
}
