/**
 * @module search/scope
 * A question that names where or whose narrows what it asks for. Vectors alone blur it (a chain's
 * or a country's name is one word among a document's dozens), so the scope phrase is cut from the
 * text that is embedded, and entities inside the scope rank above those outside:
 * - a chain after "on" / "in" / "of" / "across": "decentralized exchange on solana", "layer 3
 *   chains on arbitrum", "native coin of ethereum". The chain is named exactly, or by the words of
 *   a few chains' names ("arbitrum": Arbitrum One and Arbitrum Nova). Entities are on a chain when
 *   deployed on it, a layer 2 or 3 on the chain it settles on, a coin on the chain it is native to.
 * - an attribute value, anywhere, by its words: a country by name or adjective ("korean crypto
 *   exchange", "exchange in australia": entities whose `country` is that country), a currency a
 *   stablecoin is pegged to ("euro stablecoin": `pegCurrency` EUR).
 * Which entities are in a scope comes from the snapshot's facts (ScopeFacts).
 */
import type { DuckDBInstance } from "@duckdb/node-api";
import { sqlString, streamColumns, withConnection } from "../store/duckdb.ts";
import { countryPhrases, regionOf } from "./countries.ts";
import type { IndexedNode, NameIndex } from "../entities/name-index.ts";
import { nameWords } from "../entities/name-words.ts";
import { lowerBound } from "../sorted.ts";

const CHAIN_SCOPE_WORDS = new Set(["on", "in", "of", "across", "over"]);
/** Chain names are short: "Arbitrum One", "BNB Smart Chain Mainnet". */
const MAX_CHAIN_WORDS = 4;
/** A few chains share a word ("arbitrum"); a word in many chain names ("mainnet") names none. */
const MAX_CHAINS_BY_WORDS = 4;
/** Every word of the phrase is a whole word of the chain's name or alias (not a prefix or typo). */
const MIN_WORD_SCORE = 0.85;

/**
 * `value` of a country is a region code (countries.regionOf), of a peg a currency code. A chain
 * named after "of" asks for what is the chain's own (`owned`: "native coin of ethereum", "layer 2
 * of bnb chain"): its coin and what settles on it come before what is merely deployed there.
 */
export type Scope =
  | { kind: "chain"; chains: IndexedNode[]; owned: boolean; rest: string }
  | { kind: "attribute"; attribute: ScopedAttribute; value: string; rest: string };

/** Attributes a question names by words, and those words for each value. */
const SCOPED_ATTRIBUTES = {
  country: { normalize: regionOf, phrases: countryPhrases },
  pegCurrency: { normalize: (code: string) => code.toUpperCase(), phrases: currencyPhrases },
} as const;
export type ScopedAttribute = keyof typeof SCOPED_ATTRIBUTES;

const CURRENCY_NAMES = new Intl.DisplayNames(["en"], { type: "currency" });
/** "EUR" -> ["euro", "eur"]; "USD" -> ["us dollar", "dollar", "usd"]. */
function currencyPhrases(code: string): string[] {
  let name = "";
  try {
    name = CURRENCY_NAMES.of(code)?.toLowerCase() ?? "";
  } catch {
    // not an ISO currency code: its letters are all there is
  }
  // "US Dollar" is asked for as "dollar" too; other dollars keep their country ("canadian dollar").
  return [...new Set([name, code === "USD" ? "dollar" : "", code.toLowerCase()].filter(Boolean))];
}

/** The scope a query names, if any, and what it asks for besides (`rest`, never empty). */
export function findScope(query: string, names: NameIndex, facts: ScopeFacts): Scope | undefined {
  return findChainScope(query, names) ?? findAttributeScope(query, facts);
}

function findChainScope(query: string, names: NameIndex): Scope | undefined {
  const words = query.trim().split(/\s+/);
  const chainsNamed = (phrase: string): IndexedNode[] => {
    const exact = names.exactAny(phrase, (type) => type === "Chain");
    if (exact.length > 0) return exact;
    const matches = names.words.match(phrase, names.typeTable((type) => type === "Chain"));
    const good = Array.from(matches.positions).filter((_, i) => matches.scores[i]! >= MIN_WORD_SCORE);
    return good.length <= MAX_CHAINS_BY_WORDS ? good.map((position) => names.at(position)) : [];
  };
  for (let at = 1; at < words.length - 1; at++) {
    if (!CHAIN_SCOPE_WORDS.has(words[at]!.toLowerCase())) continue;
    // The longest name wins: "on arbitrum one" is Arbitrum One, not Arbitrum.
    for (let end = Math.min(words.length, at + 1 + MAX_CHAIN_WORDS); end > at + 1; end--) {
      const chains = chainsNamed(words.slice(at + 1, end).join(" "));
      if (chains.length > 0) return { kind: "chain", chains, owned: words[at]!.toLowerCase() === "of", rest: [...words.slice(0, at), ...words.slice(end)].join(" ") };
    }
  }
  return undefined;
}

function findAttributeScope(query: string, facts: ScopeFacts): Scope | undefined {
  const text = ` ${nameWords(query).join(" ")} `;
  for (const { attribute, value, phrase } of facts.attributePhrases) {
    if (!text.includes(` ${phrase} `)) continue;
    const rest = text.replace(` ${phrase} `, " ").replace(/\b(in|from|based|pegged to( the)?)\b\s*$/, "").trim();
    if (rest !== "") return { kind: "attribute", attribute, value, rest };
  }
  return undefined;
}

/**
 * A scope's entities by name-index position: in the order the facts list them (`listed`, for
 * scoredMembers' cut) and ascending (`sorted`, for membership by binary search). Positions, not ids:
 * a scoped question tests thousands of candidates, each by position, and 32-bit numbers weigh a
 * tenth of a set of id strings (byChain holds most of the graph for a chain like Ethereum).
 */
interface Members {
  listed: Int32Array;
  sorted: Int32Array;
}

function membersOf(ids: readonly string[], names: NameIndex): Members {
  const seen = new Set<number>();
  for (const id of ids) {
    const position = names.positionOf(id);
    // An entity the name index lacks is never a search result: it has no place to test.
    if (position !== undefined) seen.add(position);
  }
  const listed = Int32Array.from(seen);
  return { listed, sorted: listed.slice().sort() };
}

function holds(members: Members | undefined, position: number): boolean {
  if (!members) return false;
  const { sorted } = members;
  const at = lowerBound(sorted, position);
  return at < sorted.length && sorted[at] === position;
}

/** Which entities are on which chain and have which scoped attribute, from a snapshot's facts. */
export class ScopeFacts {
  /** The words naming each attribute value, longest first ("south korea" before "korea"). */
  readonly attributePhrases: { attribute: ScopedAttribute; value: string; phrase: string }[];

  private constructor(
    private readonly names: NameIndex,
    /** Per chain id: what is deployed on it, settles on it, or is its native coin. */
    private readonly byChain: Map<string, Members>,
    /** Per chain id: only what settles on it and its native coin (a few, where byChain can be 100,000). */
    private readonly ownOfChain: Map<string, Members>,
    /** Per attribute and value ("country:KR"): the entities that have it. */
    private readonly byAttribute: Map<string, Members>,
  ) {
    this.attributePhrases = [...byAttribute.keys()]
      .flatMap((key) => {
        const [attribute, value] = splitKey(key);
        return SCOPED_ATTRIBUTES[attribute].phrases(value).map((p) => ({ attribute, value, phrase: nameWords(p).join(" ") }));
      })
      .filter((p) => p.phrase !== "")
      .sort((a, b) => b.phrase.length - a.phrase.length);
  }

  static async fromParquet(duck: DuckDBInstance, factsFile: string, names: NameIndex): Promise<ScopeFacts> {
    const group = async (sql: string) => {
      const columns = await withConnection(duck, async (connection) => (await streamColumns(connection, sql)) as { key: string[]; entities: string[][] });
      return new Map(columns.key.map((key, i) => [key, columns.entities[i]!]));
    };
    const positions = (lists: Map<string, string[]>) => new Map(Array.from(lists, ([key, ids]) => [key, membersOf(ids, names)]));
    const file = sqlString(factsFile);
    const own = `SELECT object AS key, subject_id AS entity FROM read_parquet(${file}) WHERE predicate = 'parentChain'
       UNION ALL SELECT subject_id AS key, object AS entity FROM read_parquet(${file}) WHERE predicate = 'nativeToken'`;
    const ownOfChain = await group(`SELECT key, list(DISTINCT entity) AS entities FROM (${own}) GROUP BY key`);
    const byChain = await group(
      `SELECT key, list(DISTINCT entity) AS entities FROM (
         ${own} UNION ALL SELECT object AS key, subject_id AS entity FROM read_parquet(${file}) WHERE predicate = 'deployedOn'
       ) GROUP BY key`,
    );
    // Values as the facts hold them, normalized ("UK" with "GB", ccxt's "pt-BR" with "BR").
    const byValue = await group(
      `SELECT predicate || ':' || object AS key, list(DISTINCT subject_id) AS entities FROM read_parquet(${file})
       WHERE predicate IN (${Object.keys(SCOPED_ATTRIBUTES).map(sqlString).join(", ")}) GROUP BY predicate, object`,
    );
    const byAttribute = new Map<string, string[]>();
    for (const [raw, entities] of byValue) {
      const [attribute, value] = splitKey(raw);
      const key = `${attribute}:${SCOPED_ATTRIBUTES[attribute].normalize(value)}`;
      byAttribute.set(key, [...(byAttribute.get(key) ?? []), ...entities]);
    }
    return new ScopeFacts(names, positions(byChain), positions(ownOfChain), positions(byAttribute));
  }

  /**
   * The positions of a scope's entities that can be scored one by one (at most `max`): an attribute
   * value's, or what is on its chains; when that is too many (every token deployed on Ethereum), what
   * settles on the chains and their native coins.
   */
  scoredMembers(scope: Scope, max: number): Int32Array {
    if (scope.kind === "attribute") return (this.byAttribute.get(`${scope.attribute}:${scope.value}`)?.listed ?? new Int32Array(0)).slice(0, max);
    const all = scope.chains.reduce((n, chain) => n + (this.byChain.get(chain.id)?.listed.length ?? 0), 0);
    const from = all <= max ? this.byChain : this.ownOfChain;
    return Int32Array.from(scope.chains.flatMap((chain) => [...(from.get(chain.id)?.listed ?? [])]).slice(0, max));
  }

  /**
   * Is an entity (by name-index position) in the scope: one of its chains or on one (deployed,
   * settling, native), or one that has its attribute value? The sets are looked up once: a
   * question tests every candidate.
   */
  inScope(scope: Scope): (position: number) => boolean {
    if (scope.kind === "attribute") {
      const members = this.byAttribute.get(`${scope.attribute}:${scope.value}`);
      return (position) => holds(members, position);
    }
    return this.memberOf(scope.chains, this.byChain);
  }

  /** Is an entity (by position) one of the chains, or their own (settling on one, native to one)? */
  ownedBy(chains: readonly IndexedNode[]): (position: number) => boolean {
    return this.memberOf(chains, this.ownOfChain);
  }

  private memberOf(chains: readonly IndexedNode[], by: Map<string, Members>): (position: number) => boolean {
    const own = new Set(chains.map((chain) => this.names.positionOf(chain.id)));
    const sets = chains.flatMap((chain) => by.get(chain.id) ?? []);
    return (position) => own.has(position) || sets.some((members) => holds(members, position));
  }
}

function splitKey(key: string): [ScopedAttribute, string] {
  const at = key.indexOf(":");
  return [key.slice(0, at) as ScopedAttribute, key.slice(at + 1)];
}
