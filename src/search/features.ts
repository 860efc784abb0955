/**
 * @module search/features
 * Text to weighted features, the same way for the corpus and for queries: word stems (lower-case,
 * accents folded, stop words dropped, Porter-stemmed) and the character trigrams of each word (with boundary
 * marks), so "uniswp" shares most of its features with "uniswap". Fields carry weights: a name
 * counts more than a word deep in a description.
 */
import { stemmer } from "stemmer";

const STOP_WORDS = new Set(
  "a an and are as at be by for from has have in into is it its of on or that the their this to was were where which with who will can also any all than then them these those over under via per our your".split(
    " ",
  ),
);

/** Trigrams count less than whole words: they rescue typos without drowning meaning. */
const TRIGRAM_WEIGHT = 0.35;
/** In a query of several words the words carry the meaning; their trigrams only whisper. */
const QUERY_PHRASE_TRIGRAM_WEIGHT = 0.08;

function words(text: string): string[] {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0 && !STOP_WORDS.has(w));
}

/** The stems of a text's words, as its features name them (repeats kept). */
export function stems(text: string): string[] {
  return words(text).map((word) => stemmer(word));
}

function trigrams(word: string): string[] {
  const padded = `<${word}>`;
  const out: string[] = [];
  for (let i = 0; i + 3 <= padded.length; i++) out.push(`#${padded.slice(i, i + 3)}`);
  return out;
}

export type FeatureBag = Map<string, number>;

/** Adds a field's words (and, for name-like fields, their trigrams) to a bag with a weight. */
export function addField(bag: FeatureBag, text: string | undefined, weight: number, withTrigrams: boolean, trigramWeight = TRIGRAM_WEIGHT): void {
  if (!text) return;
  for (const word of words(text)) addWord(bag, word, weight, withTrigrams ? trigramWeight : 0);
}

function addWord(bag: FeatureBag, word: string, weight: number, trigramWeight: number): void {
  // The word by its stem ("lend", "lending", "lender" are one feature); trigrams keep the spelling.
  const stem = stemmer(word);
  bag.set(stem, (bag.get(stem) ?? 0) + weight);
  if (trigramWeight > 0 && word.length >= 3 && !/^\d+$/.test(word)) {
    for (const gram of trigrams(word)) bag.set(gram, (bag.get(gram) ?? 0) + weight * trigramWeight);
  }
}

/**
 * A proper name: its words with trigrams, except words that end many names without saying what
 * the thing is ("X Protocol", "Y Token"), which keep a trace of weight and no trigrams.
 */
export function addName(bag: FeatureBag, name: string, weight: number): void {
  for (const word of words(name)) {
    if (GENERIC_NAME_WORDS.has(word)) addWord(bag, word, weight * 0.1, 0);
    else addWord(bag, word, weight, TRIGRAM_WEIGHT);
  }
}

const GENERIC_NAME_WORDS = new Set(["protocol", "token", "coin", "finance", "network", "labs", "chain", "mainnet", "technologies", "group", "systems", "inc"]);

/** Features of a search query: its words, and their trigrams (strong for a lone, maybe misspelt, name). */
export function queryFeatures(query: string): FeatureBag {
  const bag: FeatureBag = new Map();
  const phrase = words(query).length > 2;
  addField(bag, query, 1, true, phrase ? QUERY_PHRASE_TRIGRAM_WEIGHT : TRIGRAM_WEIGHT);
  return bag;
}
