/**
 * The word index (src/entities/word-index.ts) on a small catalogue: which names a query matches by
 * word, prefix and close spelling, how coverage orders them, and the type filter.
 */
import { describe, expect, test } from "bun:test";
import { nameWords } from "../../src/entities/name-words.ts";
import { WordIndex } from "../../src/entities/word-index.ts";

const CATALOGUE: { texts: string[]; group: number }[] = [
  { texts: ["Arbitrum One", "arbitrum"], group: 0 }, // 0: a chain with an alias
  { texts: ["Arbitrum Nova"], group: 0 }, // 1
  { texts: ["Arbitrum", "ARB"], group: 1 }, // 2: a token with its symbol
  { texts: ["Tether USD", "USDT", "Tether"], group: 1 }, // 3
  { texts: ["Ether", "ETH"], group: 1 }, // 4
  { texts: ["Coinbase Exchange"], group: 2 }, // 5
  { texts: ["Cardano", "ADA"], group: 1 }, // 6
  { texts: ["ETH staking · Lido · Arbitrum One"], group: 3 }, // 7: a pool
  { texts: ["Crème Brûlée Finance"], group: 3 }, // 8
];
const index = WordIndex.build(
  CATALOGUE.length,
  (i) => CATALOGUE[i]!.texts,
  Uint8Array.from(CATALOGUE, (c) => c.group),
);
const ALL = new Uint8Array(256).fill(1);

function matches(query: string, accepted = ALL): Map<number, { score: number; complete: boolean }> {
  const found = index.match(query, accepted);
  return new Map(Array.from(found.positions, (position, i) => [position, { score: found.scores[i]!, complete: found.complete[i] === 1 }]));
}

describe("word index", () => {
  test("a misspelt word among others matches where the others have an entity in common, and only there", () => {
    // "lido" and "staking" are both in the pool's name: its "arbitrm" is looked for and found.
    expect([...matches("eth staking lido arbitrm").keys()]).toEqual([7]);
    // "tether" and "cardano" share no name: nothing matches, whatever "arbitrm" is close to.
    expect(matches("tether cardano arbitrm").size).toBe(0);
    // A misspelt word alone is still looked for ("cardona").
    expect([...matches("cardona").keys()]).toEqual([6]);
  });

  test("words fold case and accents and split on anything but letters and digits", () => {
    expect(nameWords("Crème Brûlée-Finance v2")).toEqual(["creme", "brulee", "finance", "v2"]);
    expect(nameWords("ETH staking · Lido")).toEqual(["eth", "staking", "lido"]);
  });

  test("a word of a name matches every entity whose name or alias holds it; the whole name scores highest", () => {
    const found = matches("arbitrum");
    expect([...found.keys()].sort()).toEqual([0, 1, 2, 7]);
    // "Arbitrum" is the token's whole name and the chain's alias: complete; Arbitrum Nova is not.
    expect(found.get(2)!.complete).toBe(true);
    expect(found.get(0)!.complete).toBe(true);
    expect(found.get(1)!.complete).toBe(false);
    expect(found.get(2)!.score).toBeGreaterThan(found.get(1)!.score);
    expect(found.get(1)!.score).toBeGreaterThan(found.get(7)!.score);
  });

  test("every query word must match: 'arbitrum one' is not Arbitrum Nova", () => {
    expect([...matches("arbitrum one").keys()].sort()).toEqual([0, 7]);
    expect(matches("arbitrum solana").size).toBe(0);
  });

  test("a prefix of three letters or more matches the words it starts", () => {
    expect([...matches("arbi").keys()].sort()).toEqual([0, 1, 2, 7]);
    expect(matches("ar").size).toBe(0);
    expect(matches("arbi").get(2)!.score).toBeLessThan(matches("arbitrum").get(2)!.score);
  });

  test("close spellings: one edit from four letters, two from seven, a swap counts one, the first letter holds", () => {
    expect(matches("arbitrm").has(2)).toBe(true); // a letter missing
    expect(matches("coinbsae").has(5)).toBe(true); // two letters swapped
    expect(matches("cardona").has(6)).toBe(true); // two substitutions in seven letters
    expect(matches("tehter").has(3)).toBe(true);
    expect(matches("ustd").has(3)).toBe(true); // the symbol USDT, swapped
    expect(matches("xardano").has(6)).toBe(false); // the first letter wrong
    expect(matches("eht").size).toBe(0); // three letters: exact or prefix only
  });

  test("a word that exists is not a misspelling: 'ether' does not find Tether", () => {
    expect([...matches("ether").keys()]).toEqual([4]);
  });

  test("accents and case do not matter; the type filter applies while matching", () => {
    expect(matches("CREME brulee").has(8)).toBe(true);
    const tokensOnly = new Uint8Array(256);
    tokensOnly[1] = 1;
    expect([...matches("arbitrum", tokensOnly).keys()]).toEqual([2]);
  });

  test("queries of more than eight words are questions, not names", () => {
    expect(matches("arbitrum one arbitrum one arbitrum one arbitrum one x").size).toBe(0);
  });
});
