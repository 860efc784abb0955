import { describe, expect, test } from "bun:test";
import { generateWorld } from "../../src/demo/generate.ts";
import { silentLogger } from "../../src/log.ts";
import { Corpus } from "../../src/search/corpus.ts";
import { countCorpus } from "../../src/search/counted-corpus.ts";
import { embedBag, embedCounted, trainLsa } from "../../src/search/lsa.ts";

describe("a counted corpus", async () => {
  const { world, rng } = await generateWorld({ scale: 3_000, seed: 7, asOf: new Date("2026-11-27T00:00:00Z") }, silentLogger);
  const corpus = new Corpus(world);
  const counted = await countCorpus(corpus);
  const entries = counted.feature.length;
  const distinct = new Set(counted.features).size;
  const model = await trainLsa(corpus, counted, new Map(corpus.ids.map((id) => [id, world.entities.get(id)!.type as string])), rng.fork("search"), {
    dims: 32,
    sample: 2_000,
    maxFeatures: 5_000,
  });

  test("holds every document's features once, numbered as first met", () => {
    expect(counted.indptr[corpus.ids.length]).toBe(entries);
    expect(distinct).toBeGreaterThan(model.features.length);
    // trainLsa numbered the entries by the model's features and let the names go.
    expect(counted.features).toEqual([]);
    expect(Math.max(...counted.feature)).toBe(model.features.length - 1);
    expect(Math.min(...counted.feature)).toBe(-1);
  });

  test("embeds every document exactly as its bag embeds, bit for bit", async () => {
    const rows = corpus.ids.map((_, row) => row);
    const vectors = await embedCounted(model, counted, rows);
    expect(vectors.buffer).toBeInstanceOf(SharedArrayBuffer);
    corpus.ids.forEach((id, row) => {
      const own = embedBag(model, corpus.document(id));
      expect(vectors.subarray(row * model.dims, (row + 1) * model.dims)).toEqual(own);
    });
  });
});
