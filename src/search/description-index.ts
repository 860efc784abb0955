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
    /** Stem -> name-index positions of the entities whose description holds it. */
    private readonly postings: Map<string, Int32Array>,
    private readonly documents: number,
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
    const lists = new Map<string, number[]>();
    let documents = 0;
    for (const { position, text } of descriptions) {
      if (position === undefined) continue;
      documents++;
      for (const stem of new Set(stems(text))) {
        const list = lists.get(stem);
        if (list) list.push(position);
        else lists.set(stem, [position]);
      }
    }
    return new DescriptionIndex(new Map(Array.from(lists, ([stem, list]) => [stem, Int32Array.from(list)])), documents);
  }

  get size(): number {
    return this.documents;
  }

  /**
   * Entities whose description holds some of the query's words, with the share of the query they
   * hold (0 to 1, idf-weighted). Only a word's postings are read: a query costs what its words'
   * lists hold, never a pass over every description.
   */
  match(query: string): Map<number, number> {
    const matched = new Map<number, number>();
    if (this.documents === 0) return matched;
    const words = [...new Set(stems(query))];
    const rarest = Math.log(this.documents + 1);
    const weights = words.map((w) => {
      const list = this.postings.get(w);
      return list ? Math.log((this.documents + 1) / list.length) : rarest;
    });
    const total = weights.reduce((a, b) => a + b, 0);
    if (total <= 0) return matched;
    words.forEach((word, i) => {
      const list = this.postings.get(word);
      if (!list) return;
      const share = weights[i]! / total;
      for (const position of list) matched.set(position, (matched.get(position) ?? 0) + share);
    });
    return matched;
  }
}
