/**
 * @module search/counted-corpus
 * Every document of a corpus, made once: each document's features as numbers (numbered as first
 * met) with their counts, rows in the corpus's order (compressed sparse rows). Learning the LSA
 * model counts document frequencies on it and the build embeds from it, instead of making each of
 * 600,000 documents twice.
 */
import { TimeSlices, collectEvery } from "../runtime.ts";
import type { Corpus } from "./corpus.ts";

export interface CountedCorpus {
  /** The feature of each number; emptied once the model's features are numbered (lsa.ts trainLsa). */
  features: string[];
  /** Row r (the corpus's r-th id) holds entries indptr[r] to indptr[r + 1], in its bag's order. */
  indptr: Int32Array;
  /** Each entry's feature number (after trainLsa: the model's feature, or -1 for one it dropped). */
  feature: Int32Array;
  /**
   * Each entry's count in its document, as its place in `counts`. A count is a bag's value, a sum
   * of field weights: a few hundred distinct values among 15 M entries at full scale, so two bytes
   * an entry instead of eight.
   */
  count: Uint16Array | Uint32Array;
  counts: number[];
}

/** A pass over the corpus collects the garbage of its feature bags every this many documents (runtime.ts collectEvery). */
export const DOCUMENTS_PER_COLLECTION = 20_000;

/** Documents made or embedded between two looks at the clock (tens of microseconds each at full scale). */
export const DOCUMENTS_PER_SLICE = 256;

/** About 26 features a document at full scale: room for 28 first, grown by half when full. */
const FIRST_ROOM = 28;

/** Counts every document, in time slices (runtime.ts TimeSlices): a build runs this beside the series. */
export async function countCorpus(corpus: Corpus): Promise<CountedCorpus> {
  const numbers = new Map<string, number>();
  const features: string[] = [];
  const places = new Map<number, number>();
  const counts: number[] = [];
  const indptr = new Int32Array(corpus.ids.length + 1);
  let feature = new Int32Array(FIRST_ROOM * corpus.ids.length);
  let count: Uint16Array | Uint32Array = new Uint16Array(feature.length);
  let entries = 0;
  const collect = collectEvery(DOCUMENTS_PER_COLLECTION);
  const slices = new TimeSlices();
  for (let row = 0; row < corpus.ids.length; row++) {
    const bag = corpus.document(corpus.ids[row]!);
    if (entries + bag.size > feature.length) {
      const room = Math.ceil((entries + bag.size) * 1.5);
      feature = grown(feature, new Int32Array(room));
      count = grown(count, count instanceof Uint16Array ? new Uint16Array(room) : new Uint32Array(room));
    }
    for (const [name, n] of bag) {
      let number = numbers.get(name);
      if (number === undefined) {
        number = features.length;
        numbers.set(name, number);
        features.push(name);
      }
      let place = places.get(n);
      if (place === undefined) {
        place = counts.length;
        places.set(n, place);
        counts.push(n);
        if (place === 0x10000 && count instanceof Uint16Array) count = grown(count, new Uint32Array(count.length));
      }
      feature[entries] = number;
      count[entries++] = place;
    }
    indptr[row + 1] = entries;
    collect();
    if (row % DOCUMENTS_PER_SLICE === 0) await slices.yieldIfDue();
  }
  // Views, not copies: a copy of 15 M entries would stand beside the original at the peak.
  return { features, indptr, feature: feature.subarray(0, entries), count: count.subarray(0, entries), counts };
}

function grown<T extends Int32Array | Uint16Array | Uint32Array>(from: Int32Array | Uint16Array | Uint32Array, into: T): T {
  into.set(from);
  return into;
}
