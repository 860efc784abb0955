import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "../../src/dataset/rng.ts";
import { EXACT_BELOW, VectorIndexes, buildTypeIndex, indexFile } from "../../src/search/vector-index.ts";

const DIMS = 32;
const dir = mkdtempSync(join(tmpdir(), "ckg-vectors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Unit vectors around a few hundred centres, as entity vectors cluster by kind. */
function clustered(count: number, rng: Rng): Float32Array {
  const centres = Array.from({ length: 300 }, () => Array.from({ length: DIMS }, () => rng.normal()));
  const out = new Float32Array(count * DIMS);
  for (let i = 0; i < count; i++) {
    const centre = centres[i % centres.length]!;
    let norm = 0;
    for (let j = 0; j < DIMS; j++) {
      const v = centre[j]! + 0.4 * rng.normal();
      out[i * DIMS + j] = v;
      norm += v * v;
    }
    for (let j = 0; j < DIMS; j++) out[i * DIMS + j]! /= Math.sqrt(norm);
  }
  return out;
}

/** Exact top-10 scores by brute force, for a tie-aware recall: a hit scores at least the 10th best. */
function tenthBest(all: Float32Array, query: Float32Array): { scores: Float32Array; tenth: number } {
  const count = all.length / DIMS;
  const scores = new Float32Array(count);
  for (let r = 0; r < count; r++) {
    let dot = 0;
    for (let j = 0; j < DIMS; j++) dot += query[j]! * all[r * DIMS + j]!;
    scores[r] = dot;
  }
  return { scores, tenth: Float32Array.from(scores).sort().reverse()[9]! };
}

describe("per-type vector indexes", () => {
  const rng = new Rng(5);
  const large = clustered(EXACT_BELOW + 5_000, rng);
  const largeIds = Array.from({ length: large.length / DIMS }, (_, i) => `pool/${i}`);
  const small = clustered(2_000, rng);
  const smallIds = Array.from({ length: small.length / DIMS }, (_, i) => `chain/${i}`);
  buildTypeIndex(dir, "Pool", { ids: largeIds, vectors: large }, DIMS);
  buildTypeIndex(dir, "Chain", { ids: smallIds, vectors: small }, DIMS);
  buildTypeIndex(dir, "Exchange", { ids: [], vectors: new Float32Array(0) }, DIMS);
  const indexes = VectorIndexes.open(dir, ["Pool", "Chain", "Exchange"], DIMS);
  const rowOf = (vectors: Float32Array, row: number) => vectors.slice(row * DIMS, (row + 1) * DIMS);
  // Half the queries come from the large type's own vectors, half from elsewhere.
  const queries = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? rowOf(large, i * 37) : rowOf(small, i * 13)));

  test("a large type gets an HNSW index with recall@10 of at least 0.95 against brute force", () => {
    expect(existsSync(join(dir, indexFile("Pool")))).toBe(true);
    let hits = 0;
    for (const query of queries) {
      const { scores, tenth } = tenthBest(large, query);
      const found = indexes.search(query, 10, ["Pool"]);
      expect(found).toHaveLength(10);
      hits += found.filter((h) => scores[Number(h.id.slice("pool/".length))]! >= tenth - 1e-6).length;
    }
    expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });

  test("a small type is searched exactly: the same ten as brute force, with their cosine", () => {
    expect(existsSync(join(dir, indexFile("Chain")))).toBe(false);
    for (const query of queries.slice(0, 20)) {
      const { scores, tenth } = tenthBest(small, query);
      const found = indexes.search(query, 10, ["Chain"]);
      for (const hit of found) {
        const score = scores[Number(hit.id.slice("chain/".length))]!;
        expect(score).toBeGreaterThanOrEqual(tenth - 1e-5);
        expect(hit.similarity).toBeCloseTo(Math.max(0, score), 4);
      }
    }
  });

  test("hits of several types merge by similarity; an empty type adds nothing", () => {
    const found = indexes.search(queries[0]!, 15, ["Pool", "Chain", "Exchange"]);
    expect(found).toHaveLength(30);
    expect(new Set(found.map((h) => h.type))).toEqual(new Set(["Pool", "Chain"]));
    const similarities = found.map((h) => h.similarity);
    expect(similarities).toEqual([...similarities].sort((a, b) => b - a));
    expect(indexes.search(queries[0]!, 10, ["Exchange"])).toEqual([]);
  });
});
