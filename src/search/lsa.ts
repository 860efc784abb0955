/**
 * @module search/lsa
 * The default embedder, learned from our own corpus when a snapshot is built: latent semantic
 * analysis over TF-IDF features (words and name trigrams). Words that occur in the same kinds of
 * descriptions ("lending", "money market", "borrow") land close together, so a query finds
 * entities that describe its meaning in other words. Nothing is downloaded.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Rng } from "../rng.ts";
import type { Corpus } from "./corpus.ts";
import { TimeSlices, collectEvery } from "../runtime.ts";
import { type CountedCorpus, DOCUMENTS_PER_COLLECTION, DOCUMENTS_PER_SLICE } from "./counted-corpus.ts";
import type { FeatureBag } from "./features.ts";
import { type SparseRows, randomizedSvd } from "./svd.ts";

export interface LsaModel {
  features: string[];
  index: Map<string, number>;
  idf: Float32Array;
  /** features x dims, row-major. */
  vectors: Float32Array;
  dims: number;
}

export interface TrainOptions {
  dims: number;
  /** Documents the SVD learns from (all of them in small worlds). */
  sample: number;
  maxFeatures: number;
}

export const DEFAULT_TRAINING: TrainOptions = { dims: 128, sample: 60_000, maxFeatures: 120_000 };

/** Entity types whose documents carry real text; the SVD sample takes all of them first. */
const RICH = new Set(["Protocol", "Organization", "Chain", "Exchange"]);

/**
 * Learns the model from a counted corpus (counted-corpus.ts) and numbers its entries by the
 * model's features in place (-1 for a feature it dropped), releasing the feature names: from then
 * on `embedCounted` reads the documents.
 */
export async function trainLsa(
  corpus: Corpus,
  counted: CountedCorpus,
  types: Map<string, string>,
  rng: Rng,
  options: TrainOptions = DEFAULT_TRAINING,
): Promise<LsaModel> {
  const all = counted.features;
  const df = new Int32Array(all.length);
  for (const f of counted.feature) df[f]!++;
  // A feature seen once says nothing about co-occurrence; trigrams need a little more support.
  const kept = [...df.keys()]
    .filter((f) => df[f]! >= (all[f]!.startsWith("#") ? 3 : 2))
    .sort((a, b) => df[b]! - df[a]! || (all[a]! < all[b]! ? -1 : 1))
    .slice(0, options.maxFeatures);
  const features = kept.map((f) => all[f]!);
  const index = new Map(features.map((f, i) => [f, i]));
  const total = corpus.ids.length;
  const idf = new Float32Array(kept.map((f) => Math.log(total / df[f]!) + 1));
  const renumber = new Int32Array(all.length).fill(-1);
  kept.forEach((f, i) => (renumber[f] = i));
  counted.feature.forEach((f, p) => (counted.feature[p] = renumber[f]!));
  counted.features = [];

  // Documents with real text: the rich types, and anything described (a token with its provider's description).
  const isRich = (row: number) => RICH.has(types.get(corpus.ids[row]!)!) || corpus.described(corpus.ids[row]!);
  const rows = corpus.ids.map((_, row) => row);
  const rich = rows.filter(isRich);
  const rest = rows.filter((row) => !isRich(row));
  const sample = [...rich.slice(0, options.sample), ...rng.sample(rest, Math.max(0, options.sample - rich.length))];
  const x = sparseRows(sample.map((row) => weighCounted(counted, row, idf)), features.length);
  const svd = await randomizedSvd(x, options.dims, rng);
  return { features, index, idf, vectors: svd.vectors, dims: svd.k };
}

/** TF-IDF weights of a bag's known features, L2-normalised: [feature index, weight][]. */
function weigh(bag: FeatureBag, index: Map<string, number>, idf: Float32Array): [number, number][] {
  const out: [number, number][] = [];
  let norm = 0;
  for (const [feature, tf] of bag) {
    const f = index.get(feature);
    if (f === undefined) continue;
    const w = Math.log1p(tf) * idf[f]!;
    out.push([f, w]);
    norm += w * w;
  }
  return normalized(out, norm);
}

/** `weigh` of a counted document whose entries trainLsa numbered by the model's features. */
function weighCounted(counted: CountedCorpus, row: number, idf: Float32Array): [number, number][] {
  const out: [number, number][] = [];
  let norm = 0;
  for (let p = counted.indptr[row]!; p < counted.indptr[row + 1]!; p++) {
    const f = counted.feature[p]!;
    if (f < 0) continue;
    const w = Math.log1p(counted.counts[counted.count[p]!]!) * idf[f]!;
    out.push([f, w]);
    norm += w * w;
  }
  return normalized(out, norm);
}

function normalized(weights: [number, number][], squares: number): [number, number][] {
  const norm = Math.sqrt(squares) || 1;
  for (const entry of weights) entry[1] /= norm;
  return weights.sort((a, b) => a[0] - b[0]);
}

function sparseRows(rows: [number, number][][], cols: number): SparseRows {
  const nnz = rows.reduce((n, r) => n + r.length, 0);
  const indptr = new Int32Array(rows.length + 1);
  const indices = new Int32Array(nnz);
  const values = new Float32Array(nnz);
  let p = 0;
  rows.forEach((row, r) => {
    for (const [f, w] of row) {
      indices[p] = f;
      values[p++] = w;
    }
    indptr[r + 1] = p;
  });
  return { rows: rows.length, cols, indptr, indices, values };
}

/** A bag as a unit vector in the latent space; all zeros when none of its features is known. */
export function embedBag(model: LsaModel, bag: FeatureBag, out = new Float32Array(model.dims)): Float32Array {
  return embedWeights(model, weigh(bag, model.index, model.idf), out);
}

/**
 * The vectors of the given rows of a counted corpus that trained `model`, rows x dims: each as
 * `embedBag` makes it. In time slices (runtime.ts TimeSlices): a build embeds beside the series.
 */
export async function embedCounted(model: LsaModel, counted: CountedCorpus, rows: readonly number[]): Promise<Float32Array> {
  const d = model.dims;
  // Shared, so the k-means helpers (ivf.ts) read the rows without a copy.
  const out = new Float32Array(new SharedArrayBuffer(rows.length * d * 4));
  const collect = collectEvery(DOCUMENTS_PER_COLLECTION);
  await new TimeSlices().forEach(rows.length, DOCUMENTS_PER_SLICE, (from, to) => {
    for (let i = from; i < to; i++) {
      embedWeights(model, weighCounted(counted, rows[i]!, model.idf), out.subarray(i * d, (i + 1) * d));
      collect();
    }
  });
  return out;
}

function embedWeights(model: LsaModel, weights: [number, number][], out: Float32Array): Float32Array {
  out.fill(0);
  const d = model.dims;
  for (const [f, w] of weights) {
    const base = f * d;
    for (let j = 0; j < d; j++) out[j]! += w * model.vectors[base + j]!;
  }
  let norm = 0;
  for (let j = 0; j < d; j++) norm += out[j]! * out[j]!;
  if (norm > 0) {
    const inv = 1 / Math.sqrt(norm);
    for (let j = 0; j < d; j++) out[j]! *= inv;
  }
  return out;
}

const LSA_FILES = { features: "lsa-features.json", idf: "lsa-idf.f32", vectors: "lsa-vectors.f32" } as const;

export function saveLsa(model: LsaModel, dir: string): void {
  writeFileSync(join(dir, LSA_FILES.features), JSON.stringify({ dims: model.dims, features: model.features }));
  writeFileSync(join(dir, LSA_FILES.idf), model.idf);
  writeFileSync(join(dir, LSA_FILES.vectors), model.vectors);
}

export function loadLsa(dir: string): LsaModel {
  const { dims, features } = JSON.parse(readFileSync(join(dir, LSA_FILES.features), "utf8")) as { dims: number; features: string[] };
  const floats = (file: string) => readFloats(join(dir, file));
  return { features, index: new Map(features.map((f, i) => [f, i])), idf: floats(LSA_FILES.idf), vectors: floats(LSA_FILES.vectors), dims };
}

/** A file of float32 values (copied when the read buffer is not 4-byte aligned). */
export function readFloats(path: string): Float32Array {
  const bytes = readFileSync(path);
  // usearch's exactSearch reads a typed array from the start of its buffer, ignoring byteOffset:
  // only a buffer of its own is safe to hand it.
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return new Float32Array(bytes.buffer, 0, bytes.byteLength / 4);
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}
