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
import { sqlString, withConnection } from "../store/duckdb.ts";
import { stems } from "./features.ts";

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
      (
        await connection.runAndReadAll(
          `SELECT subject_id AS id, string_agg(left(object, ${MAX_DESCRIPTION_CHARS}), ' ') AS text
           FROM read_parquet(${sqlString(factsFile)}) WHERE predicate = 'schema:description' GROUP BY subject_id`,
        )
      ).getColumnsObjectJS() as { id: string[]; text: string[] },
    );
    return DescriptionIndex.of(
      columns.id.map((id, i) => ({ position: names.positionOf(id), text: columns.text[i]! })),
    );
  }

  /** From descriptions by name-index position (those of entities the index lacks are left out). */
  static of(descriptions: { position: number | undefined; text: string }[]): DescriptionIndex {
    const known = descriptions.filter((d): d is { position: number; text: string } => d.position !== undefined);
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
   * hold (0 to 1, idf-weighted). Only a word's postings are read: a query costs what its words'
   * lists hold, never a pass over every description. Shares add up in a typed array by described
   * entity (a map's updates cost twenty times more when a common word holds thousands).
   */
  match(query: string): DescribedShares {
    const documents = this.positions.length;
    const shares = new Float64Array(documents);
    const touched: number[] = [];
    const out = new DescribedShares(shares, touched, this.positions, this.numbers);
    if (documents === 0) return out;
    const words = [...new Set(stems(query))];
    const rarest = Math.log(documents + 1);
    const weights = words.map((w) => {
      const list = this.postings.get(w);
      return list ? Math.log((documents + 1) / list.length) : rarest;
    });
    const total = weights.reduce((a, b) => a + b, 0);
    if (total <= 0) return out;
    words.forEach((word, i) => {
      const list = this.postings.get(word);
      if (!list) return;
      const share = weights[i]! / total;
      for (let p = 0; p < list.length; p++) {
        const number = list[p]!;
        if (shares[number] === 0) touched.push(number);
        shares[number]! += share;
      }
    });
    return out;
  }
}

/** The shares of one question (DescriptionIndex.match), by name-index position. */
export class DescribedShares {
  constructor(
    private readonly shares: Float64Array,
    private readonly touched: readonly number[],
    private readonly positions: Int32Array,
    private readonly numbers: Int32Array,
  ) {}

  /** Entities with a share. */
  get size(): number {
    return this.touched.length;
  }

  get(position: number): number | undefined {
    const number = this.numbers[position] ?? -1;
    return number >= 0 && this.shares[number]! > 0 ? this.shares[number] : undefined;
  }

  has(position: number): boolean {
    return this.get(position) !== undefined;
  }

  *values(): IterableIterator<number> {
    for (const number of this.touched) yield this.shares[number]!;
  }

  /** Positions whose share is at least `min`, the `max` largest (ties: the lower position first). */
  strongest(min: number, max: number): number[] {
    const kept = this.touched.filter((number) => this.shares[number]! >= min);
    kept.sort((a, b) => this.shares[b]! - this.shares[a]! || this.positions[a]! - this.positions[b]!);
    return kept.slice(0, max).map((number) => this.positions[number]!);
  }
}
