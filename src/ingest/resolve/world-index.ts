/**
 * @module ingest/resolve/world-index
 * What the live world already says that claims are matched on: entity ids by name, real stablecoins
 * and chains' own coins by ticker, EVM chains, the faces of one network, and the entity id of every
 * key it knows (the identity map of earlier ingests, chain keys, contract addresses). Then the
 * lookup of a key's entity id, which learns as resolution assigns ids.
 */
import { normalizeName } from "../../entities/name-index.ts";
import type { BaseWorld } from "../base-world.ts";
import { parseAddressKey } from "../records.ts";
import { canonicalAddress, DISPLAY_NAME_CHAIN, nameKey } from "./keys.ts";
import type { ResolveStats } from "./types.ts";

export interface WorldIndex {
  /** Entity ids by key; resolution adds every key it assigns. */
  keyToId: Map<string, string>;
  /** Entity ids by type and name (or alias). */
  byName: Map<string, string[]>;
  /** Real stablecoins by ticker (lower case; the demo's never take a real ticker). */
  stablecoinsBySymbol: Map<string, string[]>;
  /** Real chains' own coins by ticker (lower case). */
  nativeCoinsBySymbol: Map<string, string[]>;
  /** The normalized names and aliases of the chains a coin is native to. */
  chainNamesOfCoin: Map<string, Set<string>>;
  evmChains: Set<string>;
  /** Faces of one network (`sameNetworkAs`), as "<id> <id>". */
  faces: Set<string>;
}

export function indexWorld(base: BaseWorld): WorldIndex {
  const { world } = base;
  const keyToId = new Map(base.identity);
  const byName = new Map<string, string[]>();
  for (const e of world.entities.values()) {
    for (const name of [e.name, ...e.aliases]) {
      const k = nameKey(e.type, name);
      const list = byName.get(k);
      if (!list) byName.set(k, [e.id]);
      else if (!list.includes(e.id)) list.push(e.id);
    }
  }
  // Real stablecoins by ticker (the demo's never take a real ticker).
  const stablecoinsBySymbol = new Map<string, string[]>();
  for (const e of world.entities.values()) {
    if (!e.symbol || !e.labels.includes("Stablecoin") || world.sources.get(e.source)?.synthetic) continue;
    const list = stablecoinsBySymbol.get(e.symbol.toLowerCase());
    if (list) list.push(e.id);
    else stablecoinsBySymbol.set(e.symbol.toLowerCase(), [e.id]);
  }
  // Native coins by ticker, with the names of the chains they are native to; EVM chains; and the
  // faces of one network (sameNetworkAs).
  const nativeCoinsBySymbol = new Map<string, string[]>();
  const chainNamesOfCoin = new Map<string, Set<string>>();
  const evmChains = new Set<string>();
  const faces = new Set<string>();
  for (let i = 0; i < world.facts.subject.length; i++) {
    const p = world.facts.predicate[i];
    const s = world.facts.subject[i]!;
    const o = world.facts.object[i]!;
    if (p === "chainKey" && o.startsWith("eip155:")) evmChains.add(s);
    else if (p === "sameNetworkAs") faces.add(`${s} ${o}`);
    else if (p === "nativeToken") {
      const coin = world.entities.get(o);
      const chain = world.entities.get(s);
      if (!coin?.symbol || !chain || world.sources.get(coin.source)?.synthetic) continue;
      const list = nativeCoinsBySymbol.get(coin.symbol.toLowerCase()) ?? [];
      if (!list.includes(o)) nativeCoinsBySymbol.set(coin.symbol.toLowerCase(), [...list, o]);
      const names = chainNamesOfCoin.get(o) ?? new Set<string>();
      for (const n of [chain.name, ...chain.aliases]) names.add(normalizeName(n));
      chainNamesOfCoin.set(o, names);
    }
  }
  // Chain keys and contract addresses already in the world.
  const { subject, predicate, object } = world.facts;
  const chainByKey = new Map<string, string>();
  for (let i = 0; i < subject.length; i++) {
    if (predicate[i] === "chainKey") chainByKey.set(object[i]!, subject[i]!);
  }
  for (const [chainKey, id] of chainByKey) keyToId.set(`Chain:caip2:${chainKey}`, id);
  for (let i = 0; i < subject.length; i++) {
    if (predicate[i] !== "contractAddress") continue;
    const value = object[i]!;
    const cut = value.lastIndexOf(":");
    const chainId = chainByKey.get(value.slice(0, cut));
    if (chainId && world.entities.get(subject[i]!)?.type === "Token") keyToId.set(canonicalAddress(chainId, value.slice(cut + 1)), subject[i]!);
  }
  return { keyToId, byName, stablecoinsBySymbol, nativeCoinsBySymbol, chainNamesOfCoin, evmChains, faces };
}

/**
 * A key as resolution compares it (`canon`: a token address on its resolved chain; undefined while
 * the chain is unknown), and the entity id a key names (`idOf`).
 */
export function keyLookup(index: WorldIndex, stats: ResolveStats): { canon(k: string): string | undefined; idOf(k: string): string | undefined } {
  const { keyToId, byName } = index;
  /**
   * A chain a provider names by display name (DefiLlama's `Chain:defillama:<name>`) that this run's
   * chain list does not key: the one chain of the world with that name or alias. DefiLlama renames
   * chains (Optimism -> OP Mainnet, xDai -> Gnosis, Binance -> BSC) and older answers keep the old
   * names; the reference data and data/aliases.tsv carry them as aliases.
   */
  const chainByDisplayName = (k: string): string | undefined => {
    if (!k.startsWith(DISPLAY_NAME_CHAIN)) return undefined;
    const candidates = byName.get(nameKey("Chain", k.slice(DISPLAY_NAME_CHAIN.length))) ?? [];
    if (candidates.length !== 1) return undefined;
    keyToId.set(k, candidates[0]!);
    stats.chains_by_former_name++;
    return candidates[0];
  };
  const chainIdOf = (k: string) => keyToId.get(k) ?? chainByDisplayName(k);

  const canon = (k: string): string | undefined => {
    const address = parseAddressKey(k);
    if (!address) return k;
    const chainId = chainIdOf(address.chainKey);
    return chainId ? canonicalAddress(chainId, address.address) : undefined;
  };
  const idOf = (k: string) => {
    const c = canon(k);
    return c === undefined ? undefined : keyToId.get(c) ?? chainByDisplayName(c);
  };
  return { canon, idOf };
}
