/**
 * @module search/description-index
 * The words of entities' own descriptions, for the meaning band's second opinion. A learned model
 * (LSA) blurs a rare word into its neighbours: "gold" lands near every "X Gold" token, "circle" near
 * nothing it knows well. What a provider wrote of an entity ("PAX Gold is a gold-backed token",
 * "USDC is issued by Circle") says it plainly, so a question whose informative words an entity's
 * description holds is pulled up (search.ts, meaningMatches).
 *
 * An entity's match is the share of the query's words, each weighted by its rarity among the
 * descriptions (idf), that its description holds: 1 when it holds them all. A word no description
 * holds weighs as the rarest: a query about something nobody described ("privacy coin" where no
 * text says "privacy") matches nothing strongly by its commonest word alone.
 * Built from the snapshot's facts when the snapshot loads: descriptions are a few thousand of its
 * facts (CoinGecko's and DefiLlama's), and the index belongs to that snapshot alone.
 */
import type { DuckDBInstance } from "@duckdb/node-api";
import type { NameIndex } from "../entities/name-index.ts";
import { sqlString, streamColumns, withConnection } from "../store/duckdb.ts";
import { stems } from "./features.ts";
import { lowerBound } from "../sorted.ts";

/** Words of one description past this are not read (a few long ones would weigh on memory, not on meaning). */
const MAX_DESCRIPTION_CHARS = 2_000;

export class DescriptionIndex {
  private constructor(
    /** Stem -> the described entities (by their number here, ascending) whose description holds it. */
    private readonly postings: Map<string, Int32Array>,
    /** Described entity number -> its name-index position. */
    private readonly positions: Int32Array,
    /** Name-index position -> its described entity number (-1: not described). */
    private readonly numbers: Int32Array,
  ) {}

  static async fromParquet(duck: DuckDBInstance, factsFile: string, names: NameIndex): Promise<DescriptionIndex> {
    const columns = await withConnection(duck, async (connection) =>
      streamColumns(
        connection,
        `SELECT subject_id AS id, string_agg(left(object, ${MAX_DESCRIPTION_CHARS}), ' ') AS text
         FROM read_parquet(${sqlString(factsFile)}) WHERE predicate = 'schema:description' GROUP BY subject_id`,
      ) as Promise<{ id: string[]; text: string[] }>,
    );
    return DescriptionIndex.of(
      columns.id.map((id, i) => ({ position: names.positionOf(id), text: columns.text[i]! })),
    );
  }

  /** From descriptions by name-index position (those of entities the index lacks are left out). */
  static of(descriptions: { position: number | undefined; text: string }[]): DescriptionIndex {
    // Numbered in position order: a list of numbers in ascending order is one of positions too (strongest's ties).
    const known = descriptions.filter((d): d is { position: number; text: string } => d.position !== undefined).sort((a, b) => a.position - b.position);
    const numbers = new Int32Array(known.reduce((end, d) => Math.max(end, d.position + 1), 0)).fill(-1);
    const positions: number[] = [];
    const lists = new Map<string, Set<number>>();
    for (const { position, text } of known) {
      if (numbers[position]! < 0) numbers[position] = positions.push(position) - 1;
      for (const stem of stems(text)) {
        const list = lists.get(stem);
        if (list) list.add(numbers[position]!);
        else lists.set(stem, new Set([numbers[position]!]));
      }
    }
    const postings = new Map(Array.from(lists, ([stem, list]) => [stem, Int32Array.from(list).sort()]));
    return new DescriptionIndex(postings, Int32Array.from(positions), numbers);
  }

  get size(): number {
    return this.positions.length;
  }

  /**
   * Entities whose description holds some of the query's words, with the share of the query they
   * hold (0 to 1, idf-weighted). Nothing is summed here: a share is read from the words' postings
   * when it is asked for (DescribedShares), so a question costs what its candidates and its rare
   * words' lists hold, not a pass over a common word's thousands of postings.
   */
  match(query: string): DescribedShares {
    const documents = this.positions.length;
    const found: QueryWord[] = [];
    if (documents > 0) {
      const words = [...new Set(stems(query))];
      const rarest = Math.log(documents + 1);
      const weights = words.map((w) => {
        const list = this.postings.get(w);
        return list ? Math.log((documents + 1) / list.length) : rarest;
      });
      const total = weights.reduce((a, b) => a + b, 0);
      words.forEach((word, i) => {
        const postings = this.postings.get(word);
        if (postings && total > 0) found.push({ postings, share: weights[i]! / total });
      });
    }
    return new DescribedShares(found, this.positions, this.numbers);
  }
}

/** A word of a question that some description holds: its postings and its share of the question. */
interface QueryWord {
  postings: Int32Array;
  share: number;
}

/** The shares of one question (DescriptionIndex.match), by name-index position. */
export class DescribedShares {
  constructor(
    /** In the question's order: a share adds the words' shares in that order, as one sum always does. */
    private readonly words: readonly QueryWord[],
    private readonly positions: Int32Array,
    private readonly numbers: Int32Array,
  ) {}

  /** The share of a described entity (by its number here): a binary search in each word's postings. */
  private shareOf(number: number): number {
    let share = 0;
    for (const { postings, share: weight } of this.words) if (contains(postings, number)) share += weight;
    return share;
  }

  /** Described entities holding one of the given words, each once (ascending), in an array of their own. */
  private holding(words: readonly QueryWord[]): Int32Array {
    if (words.length === 1) return words[0]!.postings.slice();
    const all = new Int32Array(words.reduce((n, w) => n + w.postings.length, 0));
    let at = 0;
    for (const { postings } of words) all.set(postings, (at += postings.length) - postings.length);
    all.sort();
    let kept = 0;
    for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[kept++] = all[i]!;
    return all.subarray(0, kept);
  }

  /** Entities with a share. */
  get size(): number {
    return this.holding(this.words).length;
  }

  get(position: number): number | undefined {
    const number = this.numbers[position] ?? -1;
    if (number < 0 || this.words.length === 0) return undefined;
    const share = this.shareOf(number);
    return share > 0 ? share : undefined;
  }

  has(position: number): boolean {
    return this.get(position) !== undefined;
  }

  *values(): IterableIterator<number> {
    for (const number of this.holding(this.words)) yield this.shareOf(number);
  }

  /**
   * Positions whose share is at least `min`, the `max` largest (ties: the lower position first),
   * with their shares (the sums `get` makes). An entity holding none of the heaviest words whose
   * shares reach `min` holds less than `min`: only those words' postings are read (a common word's,
   * light, rarely is one of them).
   */
  strongest(min: number, max: number): { positions: number[]; shares: number[] } {
    const heaviest = [...this.words].sort((a, b) => b.share - a.share);
    let rest = heaviest.reduce((sum, w) => sum + w.share, 0);
    let needed = 0;
    // Keep words until the others together stay under `min` (a margin for the sums' rounding).
    while (needed < heaviest.length && rest >= min - 1e-9) rest -= heaviest[needed++]!.share;
    // Ascending numbers, so ascending positions.
    const holders = this.holding(heaviest.slice(0, needed));
    // Every holder's share, word by word in the question's order (the sums shareOf makes): a merge
    // of two ascending lists, or for a common word far longer than the holders, a search in it each.
    const shares = new Float64Array(holders.length);
    for (const { postings, share } of this.words) {
      if (postings.length < 8 * holders.length) {
        for (let p = 0, h = 0; p < postings.length && h < holders.length; p++) {
          while (h < holders.length && holders[h]! < postings[p]!) h++;
          if (holders[h] === postings[p]) shares[h]! += share;
        }
      } else {
        for (let h = 0; h < holders.length; h++) if (contains(postings, holders[h]!)) shares[h]! += share;
      }
    }
    let count = 0;
    for (let i = 0; i < holders.length; i++) {
      if (shares[i]! >= min) {
        holders[count] = holders[i]!;
        shares[count++] = shares[i]!;
      }
    }
    const floor = count > max ? largest(shares.subarray(0, count), max) : min;
    // All those above the floor; of those at it, the lower positions (numbers) first, up to `max` in all.
    const kept: number[] = [];
    let room = max - countAbove(shares.subarray(0, count), floor);
    for (let i = 0; i < count; i++) {
      if (shares[i]! > floor) kept.push(i);
      else if (shares[i] === floor && room-- > 0) kept.push(i);
    }
    kept.sort((a, b) => shares[b]! - shares[a]! || holders[a]! - holders[b]!);
    return { positions: kept.map((i) => this.positions[holders[i]!]!), shares: kept.map((i) => shares[i]!) };
  }
}

/**
 * The k-th largest value (counting repeats). A share is a sum of a few words' weights, so there
 * are few distinct values: they are counted, not sorted with the thousands of entities holding them.
 */
function largest(values: Float64Array, k: number): number {
  const distinct: number[] = [];
  const counts: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    const at = distinct.indexOf(value);
    if (at >= 0) counts[at]!++;
    else if (distinct.length < 64) (distinct.push(value), counts.push(1));
    else return values.slice().sort()[values.length - k]!; // many distinct values after all: sort them
  }
  const order = distinct.map((_, i) => i).sort((a, b) => distinct[b]! - distinct[a]!);
  let seen = 0;
  for (const i of order) if ((seen += counts[i]!) >= k) return distinct[i]!;
  return distinct[order.at(-1)!]!;
}

/** Is `number` in the ascending list: a binary search. */
function contains(postings: Int32Array, number: number): boolean {
  const at = lowerBound(postings, number);
  return at < postings.length && postings[at] === number;
}

function countAbove(values: Float64Array, floor: number): number {
  let n = 0;
  for (let i = 0; i < values.length; i++) if (values[i]! > floor) n++;
  return n;
}
