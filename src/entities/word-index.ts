/**
 * @module entities/word-index
 * The words of every name and alias, for lexical search. A query matches an entity when each of
 * its words matches a word of the entity's name or of one alias: the same word, a word it starts
 * ("arbi" -> arbitrum), or a close spelling ("arbitrm", "coinbsae", "cardona": one edit in words
 * of 4 to 6 letters, two from 7 on; swapping two neighbouring letters is one edit).
 *
 * Layout: the sorted vocabulary and, per word, the name-index positions of the entities that use
 * it, in one Int32Array (CSR), with the word count of the shortest text (name or alias) the word
 * came from, for coverage. A query word's matches in that vocabulary are word-expansions.ts's;
 * close spellings (a trie walk, close-spellings.ts) are looked for only when the query's other
 * words have an entity in common.
 */
import { lowerBound } from "../sorted.ts";
import { nameWords } from "./name-words.ts";
import { EXACT, type Expansion, allowedEdits, expand, withMisspellings } from "./word-expansions.ts";

/** Queries longer than this are questions, not names. */
const MAX_QUERY_WORDS = 8;

export interface WordMatches {
  /** Name-index positions of the entities every query word matched. */
  positions: Int32Array;
  /** Per position: 0..1, how well the words matched (weighted by rarity) and how much of the name they cover. */
  scores: Float32Array;
  /** Per position: 1 when the query's words are all the words of a name or alias, typos aside (a typed prefix is not the word). */
  complete: Uint8Array;
}

/** Where `position` sits in postings[from, to) (sorted), or -1. */
function findPosting(postings: Int32Array, from: number, to: number, position: number): number {
  const at = lowerBound(postings, position, from, to);
  return at < to && postings[at] === position ? at : -1;
}

const NO_MATCHES: WordMatches = { positions: new Int32Array(0), scores: new Float32Array(0), complete: new Uint8Array(0) };

export class WordIndex {
  /** Scratch space for one match at a time (matching is synchronous). */
  private readonly mask: Uint8Array;
  /** Query words matched only as a prefix, per position. */
  private readonly prefixed: Uint8Array;
  private readonly sum: Float32Array;
  private readonly words: Uint8Array;
  private readonly touched: Int32Array;

  private constructor(
    private readonly vocab: string[],
    /** Postings of vocab[i]: postings[start[i] .. start[i + 1]). */
    private readonly start: Int32Array,
    private readonly postings: Int32Array,
    /** Per posting: the number of words of the shortest text of that entity holding the word. */
    private readonly textWords: Uint8Array,
    /** Per position: its group (the entity's type code), for filtering without a call per posting. */
    private readonly groups: Uint8Array,
    private readonly entities: number,
  ) {
    this.mask = new Uint8Array(entities);
    this.prefixed = new Uint8Array(entities);
    this.sum = new Float32Array(entities);
    this.words = new Uint8Array(entities);
    this.touched = new Int32Array(entities);
  }

  /**
   * Indexes each position's texts (its name first, then its aliases). One pass gives every word an
   * id and records (word, position, words in the text) triples; a counting sort by word makes the
   * postings (590,000 entities and 2.3 million words: about 1 s).
   */
  static build(count: number, textsAt: (position: number) => readonly string[], groups: Uint8Array): WordIndex {
    const ids = new Map<string, number>();
    const firstSeen: string[] = [];
    let triples = new Int32Array(1 << 16);
    let used = 0;
    const seen: number[] = [];
    for (let position = 0; position < count; position++) {
      seen.length = 0;
      for (const text of textsAt(position)) {
        const words = nameWords(text);
        const length = Math.min(255, words.length);
        for (const word of words) {
          let id = ids.get(word);
          if (id === undefined) {
            id = firstSeen.length;
            ids.set(word, id);
            firstSeen.push(word);
          }
          // One posting per entity and word, with the shortest text's length.
          const at = seen.indexOf(id);
          if (at >= 0) {
            const slot = seen[at + 1]!;
            triples[slot + 2] = Math.min(triples[slot + 2]!, length);
            continue;
          }
          if (used + 3 > triples.length) {
            const grown = new Int32Array(triples.length * 2);
            grown.set(triples);
            triples = grown;
          }
          seen.push(id, used);
          triples[used] = id;
          triples[used + 1] = position;
          triples[used + 2] = length;
          used += 3;
        }
      }
    }
    // Vocabulary in string order; rank[id] is a word's place in it.
    const vocab = firstSeen.slice().sort();
    const rank = new Int32Array(vocab.length);
    for (const [i, word] of vocab.entries()) rank[ids.get(word)!] = i;
    const start = new Int32Array(vocab.length + 1);
    for (let t = 0; t < used; t += 3) start[rank[triples[t]!]! + 1]!++;
    for (let i = 0; i < vocab.length; i++) start[i + 1]! += start[i]!;
    const fill = start.slice(0, vocab.length);
    const postings = new Int32Array(used / 3);
    const textWords = new Uint8Array(used / 3);
    for (let t = 0; t < used; t += 3) {
      const at = fill[rank[triples[t]!]!]!++;
      postings[at] = triples[t + 1]!;
      textWords[at] = triples[t + 2]!;
    }
    return new WordIndex(vocab, start, postings, textWords, groups, count);
  }

  get vocabularySize(): number {
    return this.vocab.length;
  }

  /**
   * The entities whose name or an alias matches every word of the query (see the module comment),
   * among the positions whose group is accepted (`accepted[group]` is 1). Unordered; empty for an
   * empty query or one of more than MAX_QUERY_WORDS words.
   */
  match(query: string, accepted: Uint8Array): WordMatches {
    const queryWords = [...new Set(nameWords(query))];
    if (queryWords.length === 0 || queryWords.length > MAX_QUERY_WORDS) return NO_MATCHES;
    const plan = this.expandQuery(queryWords);
    if (!plan) return NO_MATCHES;
    const { expansions, edits, byLength } = plan;
    // The close spellings of a word are looked for last (a walk of the vocabulary costs more than
    // the other words' postings): a question's words that no name holds ("which", "biggest") are
    // seldom misspelt names, and once the other words have no entity in common, none is needed.
    const walks = byLength.filter((i) => edits[i]! > 0);
    // Rarer words weigh more: "arbitrum" says more than "one" in "arbitrum one".
    const weights = new Array<number>(queryWords.length);
    const weigh = (i: number) => (weights[i] = Math.log(1 + this.entities / (1 + this.frequency(expansions[i]![0]!.word))));
    const known = queryWords.map((_, i) => i).filter((i) => edits[i] === 0);
    known.forEach(weigh);
    let touchedCount = 0;
    // Rarest query word first: the first word's postings bound the candidates; later words only
    // add to entities already touched, so a common word ("pool") costs a lookup per posting.
    const order = known.sort((a, b) => weights[b]! - weights[a]!);
    if (walks.length > 0) order.push(-1); // where the close spellings are looked for
    let done = 0;
    let matched = true;
    for (let rank = 0; rank < order.length; rank++) {
      const i = order[rank]!;
      if (i < 0) {
        // Every word so far held by some entity? Then the misspelt words' expansions, rarest first.
        let any = rank === 0;
        for (let t = 0; t < touchedCount && !any; t++) any = (this.mask[this.touched[t]!]! & done) === done;
        for (const w of walks) {
          if (!any) break;
          expansions[w] = withMisspellings(this.vocab, queryWords[w]!, edits[w]!, expansions[w]!);
          any = expansions[w]!.length > 0;
        }
        matched = any;
        if (!matched) break;
        walks.forEach(weigh);
        order.push(...walks.sort((a, b) => weights[b]! - weights[a]!));
        continue;
      }
      const bit = 1 << i;
      done |= bit;
      if (touchedCount === 0) {
        touchedCount = this.touchFirst(expansions[i]!, bit, weights[i]!, accepted);
        if (touchedCount === 0) {
          matched = false;
          break;
        }
      } else this.addWord(expansions[i]!, bit, weights[i]!, touchedCount);
    }
    return this.collect(queryWords.length, matched ? weights.reduce((a, b) => a + b, 0) : undefined, touchedCount);
  }

  /**
   * Each query word's expansions (vocabulary words it may stand for, best first) and the edits a
   * misspelling of it may take; longest words first, so a word that matches nothing ends the match
   * before the others are expanded (undefined). A prefix is what is being typed: the last word, or
   * any word of a two-word name ("arbi nova"). Two edits only in a short query: a question's words
   * rarely spell names, and each walk costs.
   */
  private expandQuery(queryWords: string[]): { expansions: Expansion[][]; edits: number[]; byLength: number[] } | undefined {
    const expansions: Expansion[][] = new Array(queryWords.length);
    const edits = new Array<number>(queryWords.length);
    const byLength = queryWords.map((_, i) => i).sort((a, b) => queryWords[b]!.length - queryWords[a]!.length);
    for (const i of byLength) {
      const word = queryWords[i]!;
      expansions[i] = expand(this.vocab, this.start, word, queryWords.length <= 2 || i === queryWords.length - 1);
      // A word that is in the vocabulary is not misspelt: "ether" must not find "tether".
      edits[i] = expansions[i]!.length > 0 && expansions[i]![0]!.quality === EXACT ? 0 : Math.min(queryWords.length <= 2 ? 2 : 1, allowedEdits(word.length));
      if (expansions[i]!.length === 0 && edits[i] === 0) return undefined;
    }
    return { expansions, edits, byLength };
  }

  /**
   * One posting p of the query word `bit` for the entity at `position`: the first to reach it
   * (expansions come best first) gives its score; a later one may still come from a shorter text.
   */
  private visit(p: number, position: number, bit: number, weight: number, quality: number, prefix: boolean): void {
    const { mask, words, textWords } = this;
    if ((mask[position]! & bit) !== 0) {
      words[position] = Math.min(words[position]!, textWords[p]!);
      return;
    }
    mask[position]! |= bit;
    if (prefix) this.prefixed[position]! |= bit;
    this.sum[position]! += weight * quality;
    words[position] = Math.min(words[position]!, textWords[p]!);
  }

  /** The first (rarest) word: its postings in accepted groups are the candidates. Returns how many. */
  private touchFirst(list: Expansion[], bit: number, weight: number, accepted: Uint8Array): number {
    const { postings, textWords, start, mask, words, touched, groups } = this;
    let touchedCount = 0;
    for (const { word, quality, prefix } of list) {
      for (let p = start[word]!; p < start[word + 1]!; p++) {
        const position = postings[p]!;
        if (accepted[groups[position]!] !== 1) continue;
        if (mask[position] === 0) {
          touched[touchedCount++] = position;
          words[position] = textWords[p]!;
        }
        this.visit(p, position, bit, weight, quality, prefix);
      }
    }
    return touchedCount;
  }

  /** A later word: marks the candidates already touched that hold it. */
  private addWord(list: Expansion[], bit: number, weight: number, touchedCount: number): void {
    const { postings, start, mask, touched } = this;
    let total = 0;
    for (const { word } of list) total += start[word + 1]! - start[word]!;
    if (touchedCount * list.length * 20 < total) {
      // Few candidates, long postings ("pool", "ethereum"): look each candidate up (postings are in position order).
      for (let t = 0; t < touchedCount; t++) {
        const position = touched[t]!;
        for (const { word, quality, prefix } of list) {
          const p = findPosting(postings, start[word]!, start[word + 1]!, position);
          if (p >= 0) this.visit(p, position, bit, weight, quality, prefix);
        }
      }
      return;
    }
    for (const { word, quality, prefix } of list) {
      for (let p = start[word]!; p < start[word + 1]!; p++) {
        const position = postings[p]!;
        if (mask[position] !== 0) this.visit(p, position, bit, weight, quality, prefix);
      }
    }
  }

  /**
   * The candidates that hold every word (none when `totalWeight` is undefined: the match failed),
   * scored, and the scratch arrays cleared for the next query.
   */
  private collect(wordCount: number, totalWeight: number | undefined, touchedCount: number): WordMatches {
    const { mask, prefixed, sum, words, touched } = this;
    const full = (1 << wordCount) - 1;
    const positions = new Int32Array(touchedCount);
    const scores = new Float32Array(touchedCount);
    const complete = new Uint8Array(touchedCount);
    let count = 0;
    for (let t = 0; t < touchedCount; t++) {
      const position = touched[t]!;
      if (totalWeight !== undefined && mask[position] === full) {
        const coverage = Math.min(1, wordCount / Math.max(1, words[position]!));
        complete[count] = coverage === 1 && prefixed[position] === 0 ? 1 : 0;
        positions[count] = position;
        scores[count++] = (sum[position]! / totalWeight) * (0.75 + 0.25 * coverage);
      }
      mask[position] = 0;
      prefixed[position] = 0;
      sum[position] = 0;
    }
    return { positions: positions.subarray(0, count), scores: scores.subarray(0, count), complete: complete.subarray(0, count) };
  }

  private frequency(word: number): number {
    return this.start[word + 1]! - this.start[word]!;
  }
}
