/**
 * @module demo/reference-identity
 * When two reference records are one real thing, and which of several look-alikes is the one
 * people mean. The rules (tested in test/demo/reference-identity.test.ts):
 *
 * - Tokens: records with the same symbol and name (case and spacing aside) that hold different
 *   contracts on one chain are two things (an old and a new FET, two Uniswap V2 pair shares) and
 *   stay two tokens; `ckg stats --duplicates` does not count them. Records that repeat a chain's
 *   native coin are that coin: Ether listed by its OP Mainnet address is Ether. A chain whose gas
 *   coin has the symbol of its parent's (or grandparent's) native coin uses that coin, bridged (ETH
 *   on Arbitrum One, Base and every other Ethereum rollup is Ether; BNB on opBNB is BNB), and ETH is
 *   Ether wherever it is the gas coin: no other asset uses the ticker.
 * - Chains: a network listed twice, once by its own registry and once as an EVM chain id, is two
 *   faces linked by `ckg:sameNetworkAs` (both ways), not merged: the faces have different chain
 *   ids, addresses and explorers. A Cosmos SDK chain and an EVM chain are faces of one network when
 *   their names agree (spacing aside) once a trailing Mainnet, Network, EVM, Chain or Blockchain is
 *   dropped and their native coins have one symbol (Sei and Sei Network, Cronos and Cronos Mainnet, Injective twice);
 *   another non-EVM chain and an EVM chain when their names and coin symbols are equal (TRON and
 *   Tron, NEAR Protocol twice).
 * - Prominence (0..1, orders look-alikes and same-named entities; a provider's market-cap rank,
 *   as CoinGecko's ingest sets it, takes over once there is one): for a token, how many lists name
 *   it, on how many chains it is deployed, of how many chains it is the native coin, and how many
 *   Aave markets hold it; for a chain, how many lists name it, how many reference tokens live on
 *   it, its layer-2 children and its Aave markets; for an exchange, ccxt's certified and pro flags
 *   and how much of its API ccxt covers.
 */
import type { ReferenceChain, ReferenceData, ReferenceExchange } from "./reference.ts";
import type { World } from "../model/world.ts";

/** The source of data/aliases.tsv's facts. */
export const ALIAS_SOURCE = "ckg-aliases";

/** Where ETH, the gas coin of hundreds of chains, is native. */
export const ETHER_CHAIN = "eip155:1";

/** Identity of a token across lists: symbol and name, case and spacing aside. */
export function tokenIdentity(symbol: string, name: string): string {
  return `${symbol.toLowerCase()}|${name.toLowerCase().replace(/\s+/g, " ")}`;
}

const GENERIC_TRAILING = new Set(["mainnet", "network", "evm", "chain", "blockchain"]);

function nameWordsOf(name: string): string[] {
  return name.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0);
}

/** A chain's name without a trailing generic word: "Sei Network" -> "sei", "Cronos Mainnet" -> "cronos". */
export function coreChainName(name: string): string {
  const words = nameWordsOf(name);
  while (words.length > 1 && GENERIC_TRAILING.has(words.at(-1)!)) words.pop();
  return words.join(" ");
}

const unspaced = (name: string) => name.replaceAll(" ", "");

/** Pairs of chain keys that are two faces of one network (see the module comment). */
export function networkFaces(chains: readonly ReferenceChain[]): [string, string][] {
  const symbol = (c: ReferenceChain) => (c.native_symbol ?? "").toUpperCase();
  const evm = chains.filter((c) => c.family === "evm" && symbol(c) !== "");
  const pairs: [string, string][] = [];
  for (const chain of chains) {
    if (chain.family === "evm" || symbol(chain) === "") continue;
    const cosmos = chain.family === "cosmos";
    for (const other of evm) {
      if (symbol(other) !== symbol(chain)) continue;
      // Spacing aside: "GenesisL1" (chain registry) and "Genesis L1" (chain list) are one name.
      const same = cosmos ? unspaced(coreChainName(other.name)) === unspaced(coreChainName(chain.name)) : nameWordsOf(other.name).join("") === nameWordsOf(chain.name).join("");
      if (same) pairs.push([chain.key, other.key]);
    }
  }
  return pairs;
}

const clamp = (x: number) => Math.max(0, Math.min(1, x));
/** 0 for none, 1 at `full`, logarithmic between: the tenth deployment says less than the second. */
const logShare = (count: number, full: number) => clamp(Math.log2(1 + count) / Math.log2(1 + full));

/** An exchange's prominence from its ccxt record: certified, pro, and how much of its API ccxt covers. */
export function exchangeProminence(exchange: ReferenceExchange): number {
  return 0.3 + (exchange.certified ? 0.2 : 0) + (exchange.pro ? 0.1 : 0) + 0.3 * clamp((exchange.features_count ?? 0) / 110);
}

/**
 * Sets the prominence of every reference token and chain from the facts about it and `lists`: the
 * reference packages that list each entity (every record merged into it counts).
 */
export function rankReferenceEntities(world: World, ref: ReferenceData, lists: ReadonlyMap<string, ReadonlySet<string>>): void {
  const referenceSources = new Set(ref.sources.map((s) => s.id));
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  const deployments = new Map<string, number>();
  const tokensOn = new Map<string, number>();
  const nativeOf = new Map<string, number>();
  const children = new Map<string, number>();
  const aaveMarkets = new Map<string, number>();
  const { subject, predicate, object, source } = world.facts;
  for (let i = 0; i < subject.length; i++) {
    if (!referenceSources.has(source[i]!)) continue;
    const s = subject[i]!;
    const p = predicate[i];
    const o = object[i]!;
    if (p === "deployedOn" && s.startsWith("token/")) {
      count(deployments, s);
      count(tokensOn, o);
    } else if (p === "nativeToken") count(nativeOf, o);
    else if (p === "parentChain") count(children, o);
    else if (p === "marketAsset") count(aaveMarkets, o);
    else if (p === "deployedOn" && s.startsWith("lending-market/")) count(aaveMarkets, o);
  }
  for (const entity of world.entities.values()) {
    if (!referenceSources.has(entity.source)) continue;
    const named = lists.get(entity.id)?.size ?? 1;
    if (entity.type === "Token") {
      entity.prominence =
        0.2 +
        0.2 * clamp((named - 1) / 3) +
        0.25 * logShare(deployments.get(entity.id) ?? 0, 15) +
        0.25 * logShare(nativeOf.get(entity.id) ?? 0, 8) +
        0.1 * clamp((aaveMarkets.get(entity.id) ?? 0) / 5);
    } else if (entity.type === "Chain") {
      entity.prominence =
        0.2 +
        0.1 * clamp((named - 1) / 2) +
        0.4 * logShare(tokensOn.get(entity.id) ?? 0, 300) +
        0.2 * logShare(children.get(entity.id) ?? 0, 16) +
        0.1 * clamp((aaveMarkets.get(entity.id) ?? 0) / 20);
    }
  }
}
