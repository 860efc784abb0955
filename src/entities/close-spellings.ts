/**
 * @module entities/close-spellings
 * Close spellings of a word in a sorted vocabulary, for the word index's typo matching ("arbitrm",
 * "coinbsae"). The sorted vocabulary is walked as an implicit trie with one edit-distance row per
 * depth (Damerau, optimal string alignment: swapping two neighbouring letters is one edit), pruned
 * as soon as a row's minimum passes the allowed distance: a lookup visits a few thousand prefixes,
 * not the whole vocabulary. One edit, the only one a question's words are allowed (word-index.ts),
 * takes a shorter road: each single edit of the word is looked up (oneEdit).
 */
import { lowerBound } from "../sorted.ts";

/**
 * Calls back every word of `vocab` (sorted) within `edits` (OSA distance, at least 1) of the word
 * that starts with the same letter: typos rarely hit the first letter, and fixing it makes the walk
 * about twenty times shorter. On the full data's 430,000 words, 0.14 ms a word for one edit and
 * 0.7 ms for two (`bun scripts/bench/search-spans.ts` times it within a question).
 */
export function closeSpellings(vocab: readonly string[], word: string, edits: number, found: (index: number, distance: number) => void): void {
  if (edits === 1) {
    for (const index of oneEdit(vocab, word)) found(index, 1);
    return;
  }
  const n = word.length;
  const codes = Array.from(word, (_, i) => word.charCodeAt(i));
  // rows[d][i]: distance between word[0..i) and the walked prefix of length d.
  const rows: Int32Array[] = [Int32Array.from({ length: n + 1 }, (_, i) => i)];
  rows[1] = Int32Array.from({ length: n + 1 }, (_, i) => Math.max(0, i - 1));
  rows[1][0] = 1;
  const prefix: number[] = [codes[0]!];
  const { letters, starts } = packed(vocab);
  const walk = (depth: number, lo: number, hi: number): void => {
    const row = rows[depth]!;
    if (starts[lo + 1]! - starts[lo]! === depth) {
      if (row[n]! <= edits && row[n]! > 0) found(lo, row[n]!);
      lo++;
    }
    // Every word left in [lo, hi) is longer than `depth`: its letter there is letters[starts + depth].
    while (lo < hi) {
      const c = letters[starts[lo]! + depth]!;
      // The words with this letter at this depth are contiguous: find where they end.
      let a = lo + 1;
      let b = hi;
      while (a < b) {
        const mid = (a + b) >> 1;
        if (letters[starts[mid]! + depth]! > c) b = mid;
        else a = mid + 1;
      }
      const next = (rows[depth + 1] ??= new Int32Array(n + 1));
      next[0] = depth + 1;
      let best = next[0];
      for (let i = 1; i <= n; i++) {
        const cost = codes[i - 1] === c ? 0 : 1;
        let d = Math.min(row[i]! + 1, next[i - 1]! + 1, row[i - 1]! + cost);
        if (i > 1 && codes[i - 1] === prefix[depth - 1] && codes[i - 2] === c) d = Math.min(d, rows[depth - 1]![i - 2]! + 1);
        next[i] = d;
        if (d < best) best = d;
      }
      if (best <= edits) {
        prefix[depth] = c;
        walk(depth + 1, lo, a);
      }
      lo = a;
    }
  };
  const first = word[0]!;
  const lo = lowerBound(vocab, first);
  const hi = lowerBound(vocab, `${first}\uffff`);
  if (lo < hi) walk(1, lo, hi);
}

/**
 * A vocabulary's letters end to end in one array (UTF-16 code units, in its sorted order), and where
 * each word starts (one more: the end). The walk reads a letter of a word at every step; from
 * strings scattered on the heap that is a cache miss each time, here neighbouring words are
 * neighbouring memory (two edits over 430,000 words: 1.6 ms a word from the strings, 0.7 packed).
 */
interface PackedVocabulary {
  letters: Uint16Array;
  starts: Uint32Array;
}

/** Packed once per vocabulary (a word index's, for its life). */
const packedVocabularies = new WeakMap<readonly string[], PackedVocabulary>();

function packed(vocab: readonly string[]): PackedVocabulary {
  let out = packedVocabularies.get(vocab);
  if (!out) {
    const starts = new Uint32Array(vocab.length + 1);
    for (let i = 0; i < vocab.length; i++) starts[i + 1] = starts[i]! + vocab[i]!.length;
    const letters = new Uint16Array(starts[vocab.length]!);
    vocab.forEach((word, i) => {
      for (let j = 0; j < word.length; j++) letters[starts[i]! + j] = word.charCodeAt(j);
    });
    out = { letters, starts };
    packedVocabularies.set(vocab, out);
  }
  return out;
}

/**
 * The vocabulary words one edit (OSA) from `word` that start with its first letter, ascending: each
 * deletion, transposition, substitution and insertion after the first letter, looked up by binary
 * search in the range of words sharing the prefix before the edit (a few comparisons once the prefix
 * has three letters). The letters tried at a place are those the vocabulary has there after that
 * prefix. It visits no prefix that is not a word's: 0.14 ms a word where the walk took 0.33.
 */
function oneEdit(vocab: readonly string[], word: string): number[] {
  const n = word.length;
  // [from[i], to[i]): the words that start with word[0..i).
  const from = new Int32Array(n + 1);
  const to = new Int32Array(n + 1).fill(vocab.length);
  for (let i = 1; i <= n; i++) {
    const prefix = word.slice(0, i);
    from[i] = lowerBound(vocab, prefix, from[i - 1]!, to[i - 1]!);
    to[i] = lowerBound(vocab, `${prefix}\uffff`, from[i]!, to[i - 1]!);
  }
  const hits = new Set<number>();
  const look = (candidate: string, i: number) => {
    const at = lowerBound(vocab, candidate, from[i]!, to[i]!);
    if (at < to[i]! && vocab[at] === candidate && candidate !== word) hits.add(at);
  };
  for (let i = 1; i <= n; i++) {
    const prefix = word.slice(0, i);
    if (from[i]! >= to[i]!) break; // no word starts with the prefix: no edit after it can be one
    if (i < n) look(prefix + word.slice(i + 1), i); // deletion of word[i]
    if (i < n - 1 && word[i] !== word[i + 1]) look(prefix + word[i + 1] + word[i] + word.slice(i + 2), i); // transposition
    // Substitution of word[i] and insertion before it: every letter the vocabulary has after the prefix.
    let at = from[i]!;
    if (at < to[i]! && vocab[at]!.length === i) at++; // the prefix itself is a word
    while (at < to[i]!) {
      const c = vocab[at]!.charCodeAt(i);
      const letter = String.fromCharCode(c);
      if (i < n && c !== word.charCodeAt(i)) look(prefix + letter + word.slice(i + 1), i);
      look(prefix + letter + word.slice(i), i);
      // Past the words with this letter here.
      at = lowerBound(vocab, `${prefix}${letter}\uffff`, at, to[i]!);
    }
  }
  return [...hits].sort((a, b) => a - b);
}
