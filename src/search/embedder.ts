/**
 * @module search/embedder
 * Embedders turn text into unit vectors. Three kinds, named by a spec string:
 *   lsa                      learned from the snapshot's own corpus (default; offline)
 *   onnx:<model dir>         a local sentence-embedding model (model.onnx + tokenizer.json)
 *   openai:<base url>        an OpenAI-compatible /embeddings endpoint (model and key from config)
 * A snapshot is indexed with one embedder, recorded in its manifest; queries use the same one.
 */
import type { Corpus } from "./corpus.ts";
import { queryFeatures } from "./features.ts";
import { TimeSlices, collectEvery } from "../runtime.ts";
import { DOCUMENTS_PER_COLLECTION, DOCUMENTS_PER_SLICE } from "./counted-corpus.ts";
import { type LsaModel, embedBag } from "./lsa.ts";

export interface Embedder {
  /** The spec string, as recorded in the manifest. */
  readonly spec: string;
  readonly dims: number;
  embedQuery(text: string): Promise<Float32Array>;
  /** Vectors of the given entities, ids.length x dims, row-major. */
  embedEntities(corpus: Corpus, ids: string[]): Promise<Float32Array>;
}

export class LsaEmbedder implements Embedder {
  readonly spec = "lsa";
  readonly dims: number;

  constructor(private readonly model: LsaModel) {
    this.dims = model.dims;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return embedBag(this.model, queryFeatures(text));
  }

  async embedEntities(corpus: Corpus, ids: string[]): Promise<Float32Array> {
    const out = new Float32Array(ids.length * this.dims);
    const collect = collectEvery(DOCUMENTS_PER_COLLECTION);
    await new TimeSlices().forEach(ids.length, DOCUMENTS_PER_SLICE, (from, to) => {
      for (let i = from; i < to; i++) {
        embedBag(this.model, corpus.document(ids[i]!), out.subarray(i * this.dims, (i + 1) * this.dims));
        collect();
      }
    });
    return out;
  }
}

/** Scales a vector to unit length in place (a zero vector stays zero). */
export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const v of vector) norm += v * v;
  if (norm > 0) {
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < vector.length; i++) vector[i]! *= inv;
  }
  return vector;
}

/** Runs text embedding in batches for the entity documents of external embedders. */
export async function embedTexts(
  ids: string[],
  text: (id: string) => string,
  dims: number,
  batch: number,
  embed: (texts: string[]) => Promise<Float32Array[]>,
): Promise<Float32Array> {
  const out = new Float32Array(ids.length * dims);
  for (let start = 0; start < ids.length; start += batch) {
    const slice = ids.slice(start, start + batch);
    const vectors = await embed(slice.map(text));
    vectors.forEach((v, i) => out.set(normalize(v), (start + i) * dims));
  }
  return out;
}
