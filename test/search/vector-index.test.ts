import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Rng } from "../../src/rng.ts";
import { IVF_MIN_ROWS, ivfFile, readLists, trainLists } from "../../src/search/ivf.ts";
import { codesFile } from "../../src/search/vector-files.ts";
import { VectorIndexes, buildTypeIndex } from "../../src/search/vector-index.ts";
import { tempDir } from "../support/temp-dirs.ts";

const DIMS = 32;
const dir = tempDir("ckg-vectors-");

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

describe("per-type vector indexes", async () => {
  const rng = new Rng(5);
  const large = clustered(IVF_MIN_ROWS, rng);
  const largeIds = Array.from({ length: large.length / DIMS }, (_, i) => `pool/${i}`);
  const small = clustered(2_000, rng);
  const smallIds = Array.from({ length: small.length / DIMS }, (_, i) => `chain/${i}`);
  await buildTypeIndex(dir, "Pool", { ids: largeIds, vectors: large }, DIMS);
  await buildTypeIndex(dir, "Chain", { ids: smallIds, vectors: small }, DIMS);
  await buildTypeIndex(dir, "Exchange", { ids: [], vectors: new Float32Array(0) }, DIMS);
  const types = ["Pool", "Chain", "Exchange"] as const;
  // Two workers, each holding every row: a question goes to the least busy one.
  const indexes = await VectorIndexes.open(dir, types, DIMS, { workers: 2 });
  const exact = await VectorIndexes.open(dir, types, DIMS, { workers: 2, exact: true });
  afterAll(() => {
    indexes.close();
    exact.close();
  });
  const rowOf = (vectors: Float32Array, row: number) => vectors.slice(row * DIMS, (row + 1) * DIMS);
  // Half the queries come from the large type's own vectors, half from elsewhere; each is nudged
  // off its source so that queries fall between vectors, as text queries do.
  const queries = Array.from({ length: 100 }, (_, i) => {
    const q = i % 2 === 0 ? rowOf(large, i * 37) : rowOf(small, i * 13);
    return q.map((v) => v + 0.2 * rng.normal());
  });
  const unit = (q: Float32Array) => {
    const norm = Math.sqrt(q.reduce((s, v) => s + v * v, 0));
    return q.map((v) => v / norm);
  };

  test("a large type gets inverted lists (about 8 sqrt(n), every row in one) and a small type none", () => {
    const lists = readLists(dir, "Pool", DIMS)!;
    expect(lists.lists).toBe(Math.round(8 * Math.sqrt(IVF_MIN_ROWS)));
    expect(lists.assignment).toHaveLength(IVF_MIN_ROWS);
    expect(Math.max(...lists.assignment)).toBeLessThan(lists.lists);
    expect(new Set(lists.assignment).size).toBeGreaterThan(lists.lists * 0.9);
    expect(readLists(dir, "Chain", DIMS)).toBeUndefined();
  });

  test("k-means assigns every row the same list on one thread or on helper threads too", async () => {
    const alone = await trainLists(large, DIMS, 1);
    const shared = await trainLists(large, DIMS, 3);
    expect(shared.lists).toBe(alone.lists);
    expect(shared.centroids).toEqual(alone.centroids);
    expect(shared.assignment).toEqual(alone.assignment);
    // What the build wrote (one helper per core beside it) is the same lists.
    expect(readLists(dir, "Pool", DIMS)!.assignment).toEqual(alone.assignment);
  });

  test("without inverted lists (a snapshot indexed before them) the flat scan answers with the same recall", async () => {
    const flatDir = tempDir("ckg-vectors-flat-");
    cpSync(dir, flatDir, { recursive: true });
    rmSync(join(flatDir, ivfFile("Pool")));
    const flat = await VectorIndexes.open(flatDir, ["Pool"], DIMS, { workers: 2 });
    let hits = 0;
    for (const query of queries) {
      const { scores, tenth } = tenthBest(large, unit(query));
      hits += (await flat.search(query, 10, ["Pool"])).filter((h) => scores[h.row]! >= tenth - 1e-6).length;
    }
    flat.close();
    expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.99);
  });

  test("recall@10 of the probed lists' quantized scan against brute force is at least 0.93, with exact cosines", async () => {
    let hits = 0;
    for (const query of queries) {
      const { scores, tenth } = tenthBest(large, unit(query));
      const found = await indexes.search(query, 10, ["Pool"]);
      expect(found).toHaveLength(10);
      for (const hit of found) {
        const score = scores[hit.row]!;
        expect(hit.similarity).toBeCloseTo(Math.max(0, score), 4);
        if (score >= tenth - 1e-6) hits++;
      }
    }
    expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.93);
  });

  test("questions in flight together spread over the workers and get the answers they get alone", async () => {
    const alone = [];
    for (const query of queries.slice(0, 16)) alone.push(await indexes.search(query, 10, types));
    const together = await Promise.all(queries.slice(0, 16).map((query) => indexes.search(query, 10, types)));
    expect(together).toEqual(alone);
  });

  test("exact mode returns the brute-force ten", async () => {
    for (const query of queries.slice(0, 20)) {
      const { scores, tenth } = tenthBest(small, unit(query));
      const found = await exact.search(query, 10, ["Chain"]);
      expect(found).toHaveLength(10);
      for (const hit of found) {
        const score = scores[hit.row]!;
        expect(score).toBeGreaterThanOrEqual(tenth - 1e-5);
        expect(hit.similarity).toBeCloseTo(Math.max(0, score), 4);
      }
    }
  });

  test("hits of several types merge by similarity; an empty type adds nothing; k past a type's size returns all of it", async () => {
    const found = await indexes.search(queries[0]!, 15, types);
    expect(found).toHaveLength(30);
    expect(new Set(found.map((h) => h.type))).toEqual(new Set(["Pool", "Chain"]));
    const similarities = found.map((h) => h.similarity);
    expect(similarities).toEqual([...similarities].sort((a, b) => b - a));
    expect(await indexes.search(queries[0]!, 10, ["Exchange"])).toEqual([]);
    expect(await indexes.search(new Float32Array(DIMS), 10, ["Pool"])).toEqual([]);
    const few = tempDir("ckg-vectors-few-");
    await buildTypeIndex(few, "Chain", { ids: ["a", "b", "c"], vectors: small.slice(0, 3 * DIMS) }, DIMS);
    const tiny = await VectorIndexes.open(few, ["Chain"], DIMS, { workers: 2 });
    expect((await tiny.search(queries[1]!, 10, ["Chain"])).map((h) => h.row).sort()).toEqual([0, 1, 2]);
    tiny.close();
  });

  test("a snapshot indexed before codes were saved is quantized at load, with the same answers", async () => {
    const older = tempDir("ckg-vectors-old-");
    cpSync(dir, older, { recursive: true });
    rmSync(join(older, codesFile("Pool")));
    const reopened = await VectorIndexes.open(older, ["Pool"], DIMS, { workers: 2 });
    for (const query of queries.slice(0, 10)) {
      const a = (await reopened.search(query, 10, ["Pool"])).map((h) => h.similarity);
      const b = (await indexes.search(query, 10, ["Pool"])).map((h) => h.similarity);
      expect(a).toEqual(b);
    }
    reopened.close();
  });

  test("a closed index refuses scans; a missing index fails to open", async () => {
    const closing = await VectorIndexes.open(dir, ["Chain"], DIMS, { workers: 1 });
    closing.close();
    await expect(closing.search(queries[0]!, 10, ["Chain"])).rejects.toThrow("closed");
    await expect(VectorIndexes.open(join(dir, "missing"), ["Chain"], DIMS)).rejects.toThrow();
  });
});
