import { describe, expect, test } from "bun:test";
import { Matrix, SingularValueDecomposition } from "ml-matrix";
import { Rng } from "../../src/rng.ts";
import { type SparseRows, randomizedSvd } from "../../src/search/svd.ts";

/** A sparse matrix with a decaying spectrum: a few strong latent topics plus noise, as a TF-IDF corpus has. */
function topicMatrix(rows: number, cols: number, topics: number, rng: Rng): { sparse: SparseRows; dense: Matrix } {
  const dense = Matrix.zeros(rows, cols);
  const topicWords = Array.from({ length: topics }, () => Array.from({ length: 12 }, () => Math.floor(rng.next() * cols)));
  for (let r = 0; r < rows; r++) {
    const topic = r % topics;
    for (const w of topicWords[topic]!) dense.set(r, w, dense.get(r, w) + 1 + rng.next() / (topic + 1));
    for (let n = 0; n < 3; n++) dense.set(r, Math.floor(rng.next() * cols), 0.1 * rng.next());
  }
  const indptr = [0];
  const indices: number[] = [];
  const values: number[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const v = dense.get(r, c);
      if (v !== 0) {
        indices.push(c);
        values.push(v);
      }
    }
    indptr.push(indices.length);
  }
  return { sparse: { rows, cols, indptr: Int32Array.from(indptr), indices: Int32Array.from(indices), values: Float32Array.from(values) }, dense };
}

describe("randomized truncated SVD", () => {
  test("matches ml-matrix's exact SVD: singular values and the subspace of the top vectors", async () => {
    const rng = new Rng(3);
    const { sparse, dense } = topicMatrix(300, 200, 8, rng);
    const k = 8;
    const approx = await randomizedSvd(sparse, k, rng, { powerIterations: 2, passes: 2 });
    const exact = new SingularValueDecomposition(dense, { autoTranspose: true });
    for (let i = 0; i < k; i++) expect(approx.values[i]!).toBeCloseTo(exact.diagonal[i]!, 2);
    // Each approximate right vector lies in the span of the exact top-k right vectors.
    const v = exact.rightSingularVectors;
    for (let c = 0; c < k; c++) {
      let captured = 0;
      for (let e = 0; e < k; e++) {
        let dot = 0;
        for (let f = 0; f < sparse.cols; f++) dot += approx.vectors[f * k + c]! * v.get(f, e);
        captured += dot * dot;
      }
      expect(captured).toBeGreaterThan(0.99);
    }
  });
});
