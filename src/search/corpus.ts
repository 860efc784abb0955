/**
 * @module search/corpus
 * What each searchable entity "says": its name, symbol and aliases (with trigrams, for typos), its
 * types in words, its category and description, and the words of what it is linked to: the chains
 * it lives on, the protocol a pool or token belongs to (and that protocol's sector), the
 * organizations a person works for, the sectors a fund invests in. Built from the world's facts,
 * one entity at a time, so 600,000 documents never sit in memory together.
 */
import type { World } from "../model/world.ts";
import { ENTITY_TYPES, isEntityType } from "../entities/vocabulary.ts";
import { countryWords } from "./countries.ts";
import { type FeatureBag, addField, addName } from "./features.ts";

/** Class names as words: VentureFund -> "venture fund". */
function labelWords(label: string): string {
  return label.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/^DAO$/, "dao decentralized autonomous organization").toLowerCase();
}

/** Relations whose target's name (and sector) describe the subject, with their weight. */
const LINKED: Record<string, number> = {
  deployedOn: 0.8,
  poolOf: 0.6,
  issuedBy: 1,
  governanceToken: 0.5,
  worksAt: 0.6,
  founderOf: 0.6,
  operatedBy: 0.5,
  poolToken: 0.8,
  forkOf: 0.5,
  parentProtocol: 0.8,
  parentChain: 0.8,
  nativeToken: 0.6,
};

/**
 * How many targets of one relation a document names. Ether is deployed on, and the native coin of,
 * hundreds of chains: all their names would drown what it is.
 */
const MAX_LINKED = 12;

/** Coded attributes in the words people search with ("layer 2 rollup", "concentrated liquidity pool"). */
const ATTRIBUTE_WORDS: Record<string, Record<string, string>> = {
  layer: { L1: "layer 1 l1", L2: "layer 2 l2 rollup scaling", L3: "layer 3 l3 appchain rollup" },
  chainFamily: { evm: "evm", cosmos: "cosmos ibc appchain" },
  poolKind: {
    amm: "amm liquidity pool swap",
    stable: "stableswap stable pool",
    concentrated: "concentrated liquidity pool",
    staking: "staking pool",
    vault: "yield vault",
    farm: "yield farm farming",
  },
};

const PEG_WORDS: Record<string, string> = { USD: "us dollar usd pegged to the dollar", EUR: "euro eur pegged to the euro" };
/** DefiLlama's peg mechanisms in the words people use. */
const MECHANISM_WORDS: Record<string, string> = {
  "fiat-backed": "fiat backed by reserves of cash and treasuries",
  "crypto-backed": "crypto backed overcollateralized by crypto assets",
  algorithmic: "algorithmic stablecoin",
};

function attributeWords(predicate: string, value: string): string | undefined {
  if (predicate === "country") return countryWords(value);
  if (predicate === "pegCurrency") return PEG_WORDS[value] ?? `pegged to ${value.toLowerCase()}`;
  if (predicate === "pegMechanism") return MECHANISM_WORDS[value] ?? value.replace(/-/g, " ");
  const table = ATTRIBUTE_WORDS[predicate];
  return table === undefined ? undefined : (table[value] ?? value.toLowerCase());
}

/** Attributes that describe an entity in words (attributeWords). */
const WORDED = new Set([...Object.keys(ATTRIBUTE_WORDS), "country", "pegCurrency", "pegMechanism"]);

export class Corpus {
  /** Fact positions grouped by subject (CSR over world.facts). */
  private readonly start = new Map<string, number>();
  private readonly order: Int32Array;
  private readonly ends = new Map<string, number>();
  private readonly category = new Map<string, string>();
  /** Each entity's first description (a chain's document takes its own coin's). */
  private readonly description = new Map<string, string>();
  /** Chains whose native coin each token is (the nativeToken facts, read from the token's side). */
  private readonly nativeOf = new Map<string, string[]>();
  /** Tokens native to one chain only (ETH pays gas on hundreds; its description is Ethereum's alone). */
  private readonly ownCoin = new Set<string>();
  /** How many entities are deployed on each chain: among many linked chains, the busiest describe best. */
  private readonly deployments = new Map<string, number>();
  readonly ids: string[];

  constructor(private readonly world: World) {
    const { subject, predicate, object } = world.facts;
    const counts = new Map<string, number>();
    for (let i = 0; i < subject.length; i++) {
      counts.set(subject[i]!, (counts.get(subject[i]!) ?? 0) + 1);
      if (predicate[i] === "category") this.category.set(subject[i]!, object[i]!);
      else if (predicate[i] === "schema:description" && !this.description.has(subject[i]!)) this.description.set(subject[i]!, object[i]!);
      else if (predicate[i] === "nativeToken") {
        const chains = this.nativeOf.get(object[i]!) ?? [];
        chains.push(subject[i]!);
        this.nativeOf.set(object[i]!, chains);
      }
      if (predicate[i] === "deployedOn") this.deployments.set(object[i]!, (this.deployments.get(object[i]!) ?? 0) + 1);
    }
    // Ether pays for gas on hundreds of chains: its document names the few most deployed on.
    for (const [token, chains] of this.nativeOf) {
      if (chains.length === 1) this.ownCoin.add(token);
      this.nativeOf.set(token, this.mostDeployedOn(chains));
    }
    let offset = 0;
    for (const [id, count] of counts) {
      this.start.set(id, offset);
      this.ends.set(id, offset);
      offset += count;
    }
    this.order = new Int32Array(subject.length);
    for (let i = 0; i < subject.length; i++) {
      const at = this.ends.get(subject[i]!)!;
      this.order[at] = i;
      this.ends.set(subject[i]!, at + 1);
    }
    this.ids = [...world.entities.values()].filter((e) => isEntityType(e.type)).map((e) => e.id);
  }

  /** The weighted features of one entity. */
  document(id: string): FeatureBag {
    const entity = this.world.entities.get(id)!;
    const bag: FeatureBag = new Map();
    // Names weigh less than sectors here: exact and misspelt names are the name index's job, and a
    // heavy name drowns what the entity is (measured on the labelled set: recall@10 0.79 -> 0.88).
    // A pool's name is a description (tokens, protocol, chain), not a proper name: it weighs less still.
    addName(bag, entity.name, entity.type === "Pool" ? 0.6 : 0.7);
    addField(bag, entity.symbol, 2.5, true);
    for (const alias of entity.aliases) addName(bag, alias, 2);
    for (const label of entity.labels) addField(bag, labelWords(label), 1, false);
    for (const chain of this.nativeOf.get(id) ?? []) addField(bag, `native coin gas token of ${this.world.entities.get(chain)?.name ?? ""}`, 0.8, false);
    const { predicate, object } = this.world.facts;
    const first = this.start.get(id) ?? 0;
    const last = this.ends.get(id) ?? 0;
    let investments = 0;
    const linked = new Map<string, string[]>();
    for (let p = first; p < last; p++) {
      const fact = this.order[p]!;
      const name = predicate[fact]!;
      const value = object[fact]!;
      if (name === "category") addField(bag, value, 2, false);
      else if (name === "schema:description") addField(bag, value, 1.2, false);
      else if (name === "jobTitle") addField(bag, value, 1, false);
      else if (WORDED.has(name)) addField(bag, attributeWords(name, value), 1, false);
      else if (name === "investedIn" && investments++ < 12) addField(bag, this.category.get(value), 0.4, false);
      else if (LINKED[name] !== undefined && this.world.entities.has(value)) linked.set(name, [...(linked.get(name) ?? []), value]);
    }
    for (const [name, targets] of linked) {
      for (const value of this.mostDeployedOn(targets)) {
        addField(bag, this.world.entities.get(value)!.name, LINKED[name]!, false);
        // A linked entity's sector describes this one less than its own sector would.
        addField(bag, this.category.get(value), LINKED[name]! * 0.5, false);
        // A chain is described by its own coin's description (CoinGecko describes Avalanche through
        // AVAX), when the chain has none of its own and the coin is native to it alone: the
        // Lightning Network pays in bitcoin, but Bitcoin's description is not Lightning's.
        if (name === "nativeToken" && !this.description.has(id) && this.ownCoin.has(value)) addField(bag, this.description.get(value), 0.6, false);
      }
    }
    return bag;
  }

  /** The MAX_LINKED of `ids` most deployed on (the busiest chains; the order kept among equals). */
  private mostDeployedOn(ids: string[]): string[] {
    if (ids.length <= MAX_LINKED) return ids;
    return ids
      .map((id, at) => ({ id, at, n: this.deployments.get(id) ?? 0 }))
      .sort((a, b) => b.n - a.n || a.at - b.at)
      .slice(0, MAX_LINKED)
      .map((x) => x.id);
  }

  /** The same facts as readable text, for embedders that read sentences (ONNX models, remote APIs). */
  text(id: string): string {
    const entity = this.world.entities.get(id)!;
    const parts = [entity.symbol ? `${entity.name} (${entity.symbol})` : entity.name, entity.labels.map(labelWords).join(", ")];
    const { predicate, object } = this.world.facts;
    const linked: string[] = [];
    for (let p = this.start.get(id) ?? 0; p < (this.ends.get(id) ?? 0); p++) {
      const fact = this.order[p]!;
      const name = predicate[fact]!;
      if (name === "category" || name === "schema:description" || name === "jobTitle") parts.push(object[fact]!);
      else if (WORDED.has(name)) parts.push(attributeWords(name, object[fact]!)!);
      else if (LINKED[name] !== undefined && linked.length < 12) {
        const target = this.world.entities.get(object[fact]!);
        if (target) linked.push(target.name);
      }
    }
    if (linked.length > 0) parts.push(`Linked to ${linked.join(", ")}`);
    return parts.filter(Boolean).join(". ");
  }

  /** True when the entity has a description (its document carries real text). */
  described(id: string): boolean {
    return this.description.has(id);
  }

  /** Entities of one type, in corpus order. */
  idsOfType(type: (typeof ENTITY_TYPES)[number]): string[] {
    return this.rowsOfType(type).map((row) => this.ids[row]!);
  }

  /** Where a type's entities are in `ids`, in order (the rows of a counted corpus: counted-corpus.ts). */
  rowsOfType(type: (typeof ENTITY_TYPES)[number]): number[] {
    const rows: number[] = [];
    this.ids.forEach((id, row) => {
      if (this.world.entities.get(id)!.type === type) rows.push(row);
    });
    return rows;
  }
}
