/**
 * @module entities/word-expansions
 * The vocabulary words one query word of a name matches (word-index.ts), with the quality of each
 * match: the word itself, the words it starts ("arbi" -> arbitrum), and close spellings
 * ("arbitrm": close-spellings.ts). Close spellings are looked for apart, since their walk of the
 * vocabulary costs more than the rest: the word index asks for them only when they can matter.
 */
import { lowerBound } from "../sorted.ts";
import { closeSpellings } from "./close-spellings.ts";

/** A query word of 3+ letters also matches the words it starts (the last word, or either of two). */
const MIN_PREFIX = 3;
/** A short prefix ("tra") starts thousands of words: the most used ones are kept. */
const MAX_PREFIX_EXPANSIONS = 256;

/** Match quality of one query word against one name word, 0..1. */
export const EXACT = 1;
const prefixQuality = (queryLength: number, wordLength: number) => 0.7 + 0.25 * (queryLength / wordLength);
const spellingQuality = (distance: number) => 0.85 - 0.1 * (distance - 1);
export const allowedEdits = (length: number) => (length >= 7 ? 2 : length >= 4 ? 1 : 0);

export interface Expansion {
  /** The matched word's place in the vocabulary. */
  word: number;
  quality: number;
  /** Only the start of the word was typed ("arbi"). */
  prefix: boolean;
}

/**
 * The vocabulary words (sorted; `start` bounds each word's postings, so their count is its use) a
 * query word matches as itself or as a prefix, best first.
 */
export function expand(vocab: readonly string[], start: Int32Array, word: string, withPrefixes: boolean): Expansion[] {
  const frequency = (i: number) => start[i + 1]! - start[i]!;
  const out: Expansion[] = [];
  const at = lowerBound(vocab, word);
  if (vocab[at] === word) out.push({ word: at, quality: EXACT, prefix: false });
  if (withPrefixes && word.length >= MIN_PREFIX) {
    const end = lowerBound(vocab, `${word}\uffff`);
    let prefixed: number[] = [];
    for (let i = vocab[at] === word ? at + 1 : at; i < end; i++) prefixed.push(i);
    if (prefixed.length > MAX_PREFIX_EXPANSIONS) prefixed = prefixed.sort((a, b) => frequency(b) - frequency(a)).slice(0, MAX_PREFIX_EXPANSIONS);
    for (const i of prefixed) out.push({ word: i, quality: prefixQuality(word.length, vocab[i]!.length), prefix: true });
  }
  return out.sort((a, b) => b.quality - a.quality);
}

/** A word's expansions with its close spellings (up to `edits`) added, best first. */
export function withMisspellings(vocab: readonly string[], word: string, edits: number, expansions: Expansion[]): Expansion[] {
  const out = [...expansions];
  const seen = new Set(out.map((e) => e.word));
  closeSpellings(vocab, word, edits, (i, distance) => {
    if (!seen.has(i)) out.push({ word: i, quality: spellingQuality(distance), prefix: false });
  });
  return out.sort((a, b) => b.quality - a.quality);
}
