/**
 * @module demo/synthetic/names
 * Invented names for the synthetic demo world. Roots are pseudo-words built from syllables, so
 * generated protocols, tokens, exchanges, funds and companies do not borrow real brands (English
 * roots did: "Summit Partners", "Granite Ventures" are real firms); people's names come from
 * faker. Every name and ticker real entities use is reserved: a synthetic entity never takes one,
 * so a reader (or search) cannot mistake made-up figures for a real token's or chain's.
 */
import { Faker, en } from "@faker-js/faker";
import { normalizeName } from "../../entities/name-index.ts";
import type { ReferenceData } from "../reference.ts";
import type { Rng } from "../../rng.ts";
import type { World } from "../../model/world.ts";

const ONSETS = ["b", "br", "c", "ch", "d", "dr", "f", "fl", "g", "gr", "h", "j", "k", "kr", "l", "m", "n", "p", "pr", "q", "r", "s", "sk", "st", "t", "tr", "v", "vr", "x", "z", "zh", "th"];
const VOWELS = ["a", "e", "i", "o", "u", "ae", "io", "y", "ea", "ou"];
const CODAS = ["", "", "", "n", "r", "x", "l", "s", "th", "m", "k", "v"];

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** A pronounceable invented word of 2 or 3 syllables: "Zorvex", "Talumi", "Krenova". */
function pseudoWord(rng: Rng): string {
  const syllables = rng.chance(0.7) ? 2 : 3;
  let word = "";
  for (let i = 0; i < syllables; i++) {
    word += rng.pick(ONSETS) + rng.pick(VOWELS);
    if (i === syllables - 1 || rng.chance(0.25)) word += rng.pick(CODAS);
  }
  return capitalize(word.slice(0, 10));
}

/** Ticker from a name: consonant-heavy, 3 to 5 upper-case letters. */
function tickerFor(name: string, rng: Rng): string {
  const letters = name.toUpperCase().replace(/[^A-Z]/g, "");
  if (letters.length <= 4) return letters.padEnd(3, "X");
  const consonants = letters[0] + letters.slice(1).replace(/[AEIOUY]/g, "");
  const base = consonants.length >= 3 ? consonants : letters;
  return base.slice(0, rng.int(3, Math.min(5, base.length)));
}

/**
 * The names, symbols and aliases of the real reference entities (the world's entities once the
 * reference data is applied, and every name the reference files and data/aliases.tsv carry, merged
 * records included), normalised as the search name index does; and the words of those names, which
 * invented roots avoid too ("Tron Swap" would read as Tron's).
 */
export class ReservedNames {
  private readonly names = new Set<string>();
  private readonly words = new Set<string>();

  static of(ref: ReferenceData, world: World): ReservedNames {
    const reserved = new ReservedNames();
    for (const e of world.entities.values()) reserved.add(e.name, e.symbol, ...e.aliases);
    for (const c of ref.chains) reserved.add(c.name, c.native_symbol, c.native_name, c.short_name, ...c.aliases);
    for (const t of ref.tokens) reserved.add(t.name, t.symbol);
    for (const x of ref.exchanges) reserved.add(x.name, x.key);
    for (const m of ref.aaveMarkets) reserved.add(m.name, ...m.assets.map((a) => a.symbol));
    for (const a of ref.aliases) reserved.add(a.alias);
    return reserved;
  }

  private add(...texts: (string | null | undefined)[]): void {
    for (const text of texts) {
      if (!text) continue;
      this.names.add(normalizeName(text));
      for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (word.length >= 3) this.words.add(word);
    }
  }

  /** A real entity's name, symbol or alias (ignoring case, accents and spaces). */
  has(text: string): boolean {
    return this.names.has(normalizeName(text));
  }

  /** An invented root is free when no real name is it or has it as a word. */
  rootIsFree(root: string): boolean {
    return !this.has(root) && !this.words.has(root.toLowerCase());
  }

  /** A pseudo-word root that is free. */
  root(rng: Rng): string {
    let root = pseudoWord(rng);
    while (!this.rootIsFree(root)) root = pseudoWord(rng);
    return root;
  }

  /** A ticker for `name` that no real entity uses: tickerFor's choice, or its first letters and a free last letter. */
  ticker(name: string, rng: Rng): string {
    for (let tries = 0; tries < 8; tries++) {
      const symbol = tickerFor(name, rng);
      if (!this.has(symbol)) return symbol;
    }
    const stem = tickerFor(name, rng).slice(0, 3);
    for (const last of "QXZJKVWYBCDFGHLMNPRST") if (!this.has(stem + last)) return stem + last;
    for (let n = 2; ; n++) if (!this.has(`${stem}${n}`)) return `${stem}${n}`;
  }
}

export const FUND_WORDS = [
  "Capital", "Ventures", "Partners", "Digital", "Fund", "Research", "Holdings", "Labs", "Crypto", "Asset Management",
  "Investments", "Growth", "Frontier Fund", "Web3 Fund", "Blockchain Capital", "Digital Assets",
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

  constructor(
    rng: Rng,
    private readonly reserved: ReservedNames,
  ) {
    this.faker = new Faker({ locale: [en] });
    this.faker.seed(rng.int(1, 2 ** 31 - 2));
  }

  /** A full name not used before in this world nor by a real entity (adds a middle initial, then a suffix, on collision). */
  next(): string {
    const first = this.faker.person.firstName();
    const last = this.faker.person.lastName();
    const taken = (name: string) => this.used.has(name) || this.reserved.has(name);
    let name = `${first} ${last}`;
    if (taken(name)) name = `${first} ${this.faker.string.alpha({ length: 1, casing: "upper" })}. ${last}`;
    for (let n = 2; taken(name); n++) name = `${first} ${last} ${n}`;
    this.used.add(name);
    return name;
  }
}
