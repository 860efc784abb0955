/**
 * @module search/svd
 * Truncated SVD of a large sparse matrix by randomized range finding (Halko, Martinsson and Tropp,
 * 2011): only products of the sparse matrix with thin dense blocks, and one small eigenproblem
 * (ml-matrix). Returns the top right singular vectors: the feature-space directions LSA embeds in.
 * Each pass over rows runs in time slices (runtime.ts TimeSlices): a build learns this beside the series.
 */
import { EigenvalueDecomposition, Matrix } from "ml-matrix";
import type { Rng } from "../rng.ts";
import { TimeSlices } from "../runtime.ts";

/** Compressed sparse rows. */
export interface SparseRows {
  rows: number;
  cols: number;
  indptr: Int32Array;
  indices: Int32Array;
  values: Float32Array;
}

/** Rows of a pass between two looks at the clock: a few thousand multiply-adds each at full scale. */
const ROWS_PER_SLICE = 64;

/** A dense row-major block of `rows` x `width`. */
interface Block {
  rows: number;
  width: number;
  data: Float64Array;
}

function block(rows: number, width: number): Block {
  return { rows, width, data: new Float64Array(rows * width) };
}

/** X (rows x cols, sparse) times D (cols x w). */
async function multiply(x: SparseRows, d: Block, slices: TimeSlices): Promise<Block> {
  const out = block(x.rows, d.width);
  const w = d.width;
  await slices.forEach(x.rows, ROWS_PER_SLICE, (from, to) => {
    for (let r = from; r < to; r++) {
      const base = r * w;
      for (let p = x.indptr[r]!; p < x.indptr[r + 1]!; p++) {
        const v = x.values[p]!;
        const source = x.indices[p]! * w;
        for (let j = 0; j < w; j++) out.data[base + j]! += v * d.data[source + j]!;
      }
    }
  });
  return out;
}

/** X transposed (cols x rows) times D (rows x w). */
async function multiplyTransposed(x: SparseRows, d: Block, slices: TimeSlices): Promise<Block> {
  const out = block(x.cols, d.width);
  const w = d.width;
  await slices.forEach(x.rows, ROWS_PER_SLICE, (from, to) => {
    for (let r = from; r < to; r++) {
      const source = r * w;
      for (let p = x.indptr[r]!; p < x.indptr[r + 1]!; p++) {
        const v = x.values[p]!;
        const target = x.indices[p]! * w;
        for (let j = 0; j < w; j++) out.data[target + j]! += v * d.data[source + j]!;
      }
    }
  });
  return out;
}

/** Gram matrix AᵀA (w x w) of a tall block. */
async function gram(a: Block, slices: TimeSlices): Promise<Matrix> {
  const w = a.width;
  const g = new Float64Array(w * w);
  await slices.forEach(a.rows, ROWS_PER_SLICE, (from, to) => {
    for (let r = from; r < to; r++) {
      const base = r * w;
      for (let i = 0; i < w; i++) {
        const ai = a.data[base + i]!;
        if (ai === 0) continue;
        for (let j = i; j < w; j++) g[i * w + j]! += ai * a.data[base + j]!;
      }
    }
  });
  const m = new Matrix(w, w);
  for (let i = 0; i < w; i++) for (let j = i; j < w; j++) m.set(i, j, g[i * w + j]!).set(j, i, g[i * w + j]!);
  return m;
}

/** Orthonormal columns spanning a tall block, by eigen-whitening its Gram matrix. */
async function orthonormalize(a: Block, passes: number, slices: TimeSlices): Promise<Block> {
  let current = a;
  for (let pass = 0; pass < passes; pass++) {
    const eig = new EigenvalueDecomposition(await gram(current, slices), { assumeSymmetric: true });
    const values = eig.realEigenvalues;
    const vectors = eig.eigenvectorMatrix;
    const w = current.width;
    // W = V diag(1/sqrt(lambda)), dropping directions the block does not really span.
    const top = Math.max(...values);
    const whiten = new Float64Array(w * w);
    for (let j = 0; j < w; j++) {
      const scale = values[j]! > top * 1e-12 ? 1 / Math.sqrt(values[j]!) : 0;
      for (let i = 0; i < w; i++) whiten[i * w + j] = vectors.get(i, j) * scale;
    }
    const out = block(current.rows, w);
    const source = current;
    await slices.forEach(source.rows, ROWS_PER_SLICE, (from, to) => {
      for (let r = from; r < to; r++) {
        const base = r * w;
        for (let i = 0; i < w; i++) {
          const v = source.data[base + i]!;
          if (v === 0) continue;
          for (let j = 0; j < w; j++) out.data[base + j]! += v * whiten[i * w + j]!;
        }
      }
    });
    current = out;
  }
  return current;
}

export interface TruncatedSvd {
  /** Right singular vectors, cols x k, row-major (one row per feature). */
  vectors: Float32Array;
  values: Float64Array;
  k: number;
}

/**
 * `powerIterations` sharpens the spectrum for slowly decaying singular values at the cost of two
 * more passes over the matrix each; `passes` repeats the orthonormalisation for accuracy.
 */
export async function randomizedSvd(
  x: SparseRows,
  k: number,
  rng: Rng,
  options: { oversample?: number; powerIterations?: number; passes?: number } = {},
): Promise<TruncatedSvd> {
  const slices = new TimeSlices();
  const width = Math.min(k + (options.oversample ?? 10), x.cols, x.rows);
  const passes = options.passes ?? 1;
  const omega = block(x.cols, width);
  for (let i = 0; i < omega.data.length; i++) omega.data[i] = rng.normal();
  let y = await orthonormalize(await multiply(x, omega, slices), passes, slices);
  for (let q = 0; q < (options.powerIterations ?? 0); q++) {
    const z = await orthonormalize(await multiplyTransposed(x, y, slices), passes, slices);
    y = await orthonormalize(await multiply(x, z, slices), passes, slices);
  }
  // B = QᵀX; its SVD comes from the small eigenproblem of BBᵀ.
  const bt = await multiplyTransposed(x, y, slices); // cols x width = Bᵀ
  const eig = new EigenvalueDecomposition(await gram(bt, slices), { assumeSymmetric: true });
  const order = eig.realEigenvalues.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0]);
  const kept = Math.min(k, width);
  const values = new Float64Array(kept);
  const vectors = new Float32Array(x.cols * kept);
  // V = Bᵀ W diag(1/sigma), with W's kept columns copied out of ml-matrix once (no per-element calls).
  const w = new Float64Array(width * kept);
  for (let c = 0; c < kept; c++) {
    const [lambda, index] = order[c]!;
    const sigma = Math.sqrt(Math.max(lambda, 0));
    values[c] = sigma;
    for (let j = 0; j < width; j++) w[j * kept + c] = sigma > 0 ? eig.eigenvectorMatrix.get(j, index) / sigma : 0;
  }
  await slices.forEach(x.cols, ROWS_PER_SLICE, (from, to) => {
    for (let f = from; f < to; f++) {
      const row = f * width;
      const target = f * kept;
      for (let j = 0; j < width; j++) {
        const b = bt.data[row + j]!;
        if (b === 0) continue;
        const base = j * kept;
        for (let c = 0; c < kept; c++) vectors[target + c]! += b * w[base + c]!;
      }
    }
  });
  return { vectors, values, k: kept };
}
