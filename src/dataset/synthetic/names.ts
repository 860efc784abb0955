/**
 * @module dataset/synthetic/names
 * Invented names for the synthetic demo world. Roots are pseudo-words built from syllables, so
 * generated protocols and funds do not borrow real brands; people's names come from faker.
 */
import { Faker, en } from "@faker-js/faker";
import type { Rng } from "../rng.ts";

const ONSETS = ["b", "br", "c", "ch", "d", "dr", "f", "fl", "g", "gr", "h", "j", "k", "kr", "l", "m", "n", "p", "pr", "q", "r", "s", "sk", "st", "t", "tr", "v", "vr", "x", "z", "zh", "th"];
const VOWELS = ["a", "e", "i", "o", "u", "ae", "io", "y", "ea", "ou"];
const CODAS = ["", "", "", "n", "r", "x", "l", "s", "th", "m", "k", "v"];

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** A pronounceable invented word of 2 or 3 syllables: "Zorvex", "Talumi", "Krenova". */
export function pseudoWord(rng: Rng): string {
  const syllables = rng.chance(0.7) ? 2 : 3;
  let word = "";
  for (let i = 0; i < syllables; i++) {
    word += rng.pick(ONSETS) + rng.pick(VOWELS);
    if (i === syllables - 1 || rng.chance(0.25)) word += rng.pick(CODAS);
  }
  return capitalize(word.slice(0, 10));
}

/** Ticker from a name: consonant-heavy, 3 to 5 upper-case letters. */
export function tickerFor(name: string, rng: Rng): string {
  const letters = name.toUpperCase().replace(/[^A-Z]/g, "");
  if (letters.length <= 4) return letters.padEnd(3, "X");
  const consonants = letters[0] + letters.slice(1).replace(/[AEIOUY]/g, "");
  const base = consonants.length >= 3 ? consonants : letters;
  return base.slice(0, rng.int(3, Math.min(5, base.length)));
}

export const GREEK = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Theta", "Kappa", "Lambda", "Sigma", "Omega", "Tau"];

export const FUND_WORDS = [
  "Capital", "Ventures", "Partners", "Digital", "Fund", "Research", "Holdings", "Labs", "Crypto", "Asset Management",
  "Investments", "Growth", "Frontier Fund", "Web3 Fund", "Blockchain Capital", "Digital Assets",
];

export const FUND_ROOTS = [
  "North", "Summit", "Granite", "Harbor", "Keystone", "Lattice", "Meridian", "Parallel", "Polar", "Quantum", "Signal",
  "Spire", "Vertex", "Anchor", "Arc", "Atlas", "Basis", "Canopy", "Cardinal", "Compass", "Crescent", "Ember", "Fable",
  "Fathom", "Foundry", "Glacier", "Horizon", "Ironwood", "Juniper", "Kestrel", "Lantern", "Ledger", "Lumen",
  "Mosaic", "Nebula", "Obsidian", "Orchard", "Pillar", "Prism", "Redwood", "Sable", "Solstice", "Tidal",
  "Topaz", "Umbra", "Vanguard", "Willow", "Zenith", "Blockwave", "Chainforge", "Nodeworks", "Tessellate", "Hexagon",
];

export const TOKEN_NOUNS = [
  "Coin", "Token", "Cash", "Gold", "Chain", "Network", "AI", "Protocol", "Inu", "Cat", "Frog", "Moon", "Rocket", "Pixel",
  "Quest", "Verse", "Land", "World", "Play", "Pay", "Credit", "Energy", "Data", "Cloud", "Link", "Bot", "Agent",
  "Dollar", "Yield", "Vault", "Shard", "Spark", "Wave", "Storm", "Flame", "Stone", "Dragon", "Tiger", "Wolf", "Bear",
  "Bull", "Ape", "Shiba", "Doge", "Punk", "Labs", "Guild", "Arena", "Realm", "Node", "Oracle", "Bridge", "Swap",
];

export const COUNTRIES = ["US", "SG", "GB", "CH", "KY", "VG", "HK", "JP", "KR", "DE", "FR", "AE", "CA", "PT", "MT", "BS", "SC", "LU", "EE", "AU"];

/** Person names (faker, English locale) seeded from the world's generator. */
export class PersonNames {
  private readonly faker: Faker;
  private readonly used = new Set<string>();

  constructor(rng: Rng) {
    this.faker = new Faker({ locale: [en] });
    this.faker.seed(rng.int(1, 2 ** 31 - 2));
  }

  /** A full name not used before in this world (adds a middle initial, then a suffix, on collision). */
  next(): string {
    const first = this.faker.person.firstName();
    const last = this.faker.person.lastName();
    let name = `${first} ${last}`;
    if (this.used.has(name)) name = `${first} ${this.faker.string.alpha({ length: 1, casing: "upper" })}. ${last}`;
    for (let n = 2; this.used.has(name); n++) name = `${first} ${last} ${n}`;
    this.used.add(name);
    return name;
  }
}
