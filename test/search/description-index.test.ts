import { describe, expect, test } from "bun:test";
import { Rng } from "../../src/rng.ts";
import { DescriptionIndex } from "../../src/search/description-index.ts";

// Real descriptions (CoinGecko's manner): positions stand for name-index positions.
const index = DescriptionIndex.of([
  { position: 0, text: "PAX Gold (PAXG) is a gold-backed token issued by Paxos Trust Company." },
  { position: 1, text: "Tether Gold (XAUt) is a gold-backed token; each token is one troy ounce of physical gold." },
  { position: 2, text: "USDC is a fully reserved US dollar stablecoin issued by Circle." },
  { position: 3, text: "Dai is a decentralized stablecoin backed by crypto collateral." },
  { position: 4, text: "Uniswap is a decentralized exchange; UNI is its governance token." },
  { position: undefined, text: "An entity the name index lacks is left out." },
]);

describe("the words of descriptions", () => {
  test("an entity whose description holds every word of the question has all of it", () => {
    const shares = index.match("gold backed token");
    expect(shares.get(0)).toBeCloseTo(1, 5);
    expect(shares.get(1)).toBeCloseTo(1, 5);
    // Dai is "backed" and Uniswap has a "token": rarer words weigh more, so both hold less than half.
    expect(shares.get(3)!).toBeLessThan(0.5);
    expect(shares.get(4)!).toBeLessThan(0.5);
    expect(shares.has(2)).toBe(false);
  });

  test("a rare word weighs more than a common one; stems join forms ('issues', 'issued')", () => {
    const shares = index.match("stablecoin that circle issues");
    expect(shares.get(2)).toBeCloseTo(1, 5);
    expect(shares.get(3)!).toBeLessThan(shares.get(2)!);
  });

  test("a word no description holds weighs as the rarest: the commonest word alone matches weakly", () => {
    const shares = index.match("privacy token");
    expect(shares.size).toBeGreaterThan(0); // "token" matches, weakly
    for (const share of shares.values()) expect(share).toBeLessThan(0.3);
  });

  test("the strongest are every entity holding at least the given share, strongest first, at most max", () => {
    for (const question of ["gold backed token", "stablecoin that circle issues", "decentralized token", "privacy token"]) {
      const shares = index.match(question);
      for (const [min, max] of [[0.5, 10], [0.2, 10], [0.01, 2]] as const) {
        const expected = [0, 1, 2, 3, 4]
          .filter((p) => (shares.get(p) ?? 0) >= min)
          .sort((a, b) => shares.get(b)! - shares.get(a)! || a - b)
          .slice(0, max);
        const strongest = shares.strongest(min, max);
        expect(strongest.positions).toEqual(expected);
        expect(strongest.shares).toEqual(expected.map((p) => shares.get(p)!));
      }
    }
  });

  test("the strongest among hundreds: ties at the cut go to the lower positions, with few or many distinct shares", () => {
    // Positions shuffled and far from the order given; each description holds a random subset of
    // the metals, so shares are sums of a few words' weights: many ties with five words, more
    // distinct values than are counted (64) with ten.
    const rng = new Rng("strongest");
    const metals = ["gold", "silver", "copper", "iron", "zinc", "cobalt", "nickel", "lithium", "platinum", "uranium"];
    const positions = Array.from({ length: 600 }, (_, i) => 1_000 + i * 3);
    for (let i = positions.length - 1; i > 0; i--) {
      const j = Math.floor(rng.next() * (i + 1));
      [positions[i], positions[j]] = [positions[j]!, positions[i]!];
    }
    for (const words of [metals.slice(0, 5), metals]) {
      const many = DescriptionIndex.of(positions.map((position) => ({ position, text: words.filter(() => rng.next() < 0.45).join(" ") || "nothing" })));
      const shares = many.match(words.join(" "));
      for (const [min, max] of [[0.5, 10], [0.2, 50], [0.01, 500], [0.3, 1], [0.9, 600]] as const) {
        const expected = [...positions]
          .filter((p) => (shares.get(p) ?? 0) >= min)
          .sort((a, b) => shares.get(b)! - shares.get(a)! || a - b)
          .slice(0, max);
        expect(expected.length).toBeGreaterThan(0);
        const strongest = shares.strongest(min, max);
        expect(strongest.positions).toEqual(expected);
        expect(strongest.shares).toEqual(expected.map((p) => shares.get(p)!));
      }
    }
  });

  test("an empty index and a question of stop words match nothing", () => {
    expect(DescriptionIndex.of([]).match("gold").size).toBe(0);
    expect(index.match("of the").size).toBe(0);
    expect(index.size).toBe(5);
  });
});
