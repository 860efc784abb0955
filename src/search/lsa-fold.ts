/**
 * @module search/lsa-fold
 * New words into a learned model without learning it again (LSA "folding-in" of terms): a word the
 * model does not know, found in documents an ingest changed ("paxos" in a stablecoin's new
 * description), gets the vector of the documents that use it, each embedded with the words the
 * model knows and weighted by how often it uses the word, scaled to a known word's usual length;
 * its idf comes from how many documents use it. A query with the word then lands among those
 * documents, and the documents themselves, embedded again with it, move no further than their
 * known words already put them. The latent space is the base's: vectors of untouched entities stay
 * valid, which a relearned model would not allow.
 */
import type { Corpus } from "./corpus.ts";
import { type LsaModel, embedBag } from "./lsa.ts";

export function foldInWords(model: LsaModel, corpus: Corpus, ids: Iterable<string>): { model: LsaModel; added: string[] } {
  const d = model.dims;
  const sums = new Map<string, Float32Array>();
  const documents = new Map<string, number>();
  const embedded = new Float32Array(d);
  for (const id of ids) {
    const bag = corpus.document(id);
    const unknown = [...bag].filter(([feature]) => !feature.startsWith("#") && !model.index.has(feature));
    if (unknown.length === 0) continue;
    embedBag(model, bag, embedded);
    if (!embedded.some((x) => x !== 0)) continue;
    for (const [word, tf] of unknown) {
      let sum = sums.get(word);
      if (!sum) sums.set(word, (sum = new Float32Array(d)));
      const w = Math.log1p(tf);
      for (let j = 0; j < d; j++) sum[j]! += w * embedded[j]!;
      documents.set(word, (documents.get(word) ?? 0) + 1);
    }
  }
  if (sums.size === 0) return { model, added: [] };
  const length = typicalWordLength(model);
  const added = [...sums.keys()].sort();
  const vectors = new Float32Array((model.features.length + added.length) * d);
  vectors.set(model.vectors);
  const idf = new Float32Array(model.features.length + added.length);
  idf.set(model.idf);
  const total = Math.max(1, corpus.ids.length);
  added.forEach((word, i) => {
    const sum = sums.get(word)!;
    let norm = 0;
    for (let j = 0; j < d; j++) norm += sum[j]! * sum[j]!;
    const scale = norm > 0 ? length / Math.sqrt(norm) : 0;
    const row = (model.features.length + i) * d;
    for (let j = 0; j < d; j++) vectors[row + j] = sum[j]! * scale;
    idf[model.features.length + i] = Math.log(total / documents.get(word)!) + 1;
  });
  const features = [...model.features, ...added];
  return { model: { features, index: new Map(features.map((f, i) => [f, i])), idf, vectors, dims: d }, added };
}

/** The median length of the model's word vectors (trigrams left out): what a folded word is scaled to. */
function typicalWordLength(model: LsaModel): number {
  const d = model.dims;
  const lengths: number[] = [];
  model.features.forEach((feature, f) => {
    if (feature.startsWith("#")) return;
    let norm = 0;
    for (let j = 0; j < d; j++) norm += model.vectors[f * d + j]! ** 2;
    lengths.push(Math.sqrt(norm));
  });
  lengths.sort((a, b) => a - b);
  return lengths[Math.floor(lengths.length / 2)] ?? 1;
}
