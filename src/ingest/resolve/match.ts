/**
 * @module ingest/resolve/match
 * The entity of the world a cluster is: the one its keys name; else, within its type, the one its
 * name names (two faces of one network told apart by an EVM chain id); else a chain's own coin by
 * ticker and name; else the one real stablecoin of its ticker. Nothing when none is certain.
 */
import type { World } from "../../model/world.ts";
import { normalizeName } from "../../entities/name-index.ts";
import { parseAddressKey } from "../records.ts";
import type { Tagged } from "./cluster.ts";
import { nameKey } from "./keys.ts";
import type { ResolveStats } from "./types.ts";
import type { WorldIndex } from "./world-index.ts";

/** The id of the entity `members` are, or undefined for a new one; `taken` ids (matched already) are not matched again by name or ticker. */
export function matchExisting(members: Tagged[], world: World, index: WorldIndex, taken: Set<string>, stats: ResolveStats): string | undefined {
  const { keyToId, byName, evmChains, faces, nativeCoinsBySymbol, chainNamesOfCoin, stablecoinsBySymbol } = index;
  const type = members[0]!.claim.type;
  let id: string | undefined;
  for (const m of members) for (const k of m.keys) id ??= keyToId.get(k);
  if (!id) {
    for (const m of members) {
      const candidates = (byName.get(nameKey(type, m.claim.name)) ?? []).filter((c) => !taken.has(c));
      const symbolOk = (c: string) => !m.claim.symbol || !world.entities.get(c)!.symbol || world.entities.get(c)!.symbol!.toLowerCase() === m.claim.symbol.toLowerCase();
      let fitting = candidates.filter(symbolOk);
      // Two faces of one network share its name (TRON, and Tron its EVM face): a record with no
      // EVM chain id is the non-EVM face.
      if (fitting.length > 1 && type === "Chain" && !m.keys.some((k) => k.startsWith("Chain:caip2:eip155:"))) {
        const nonEvm = fitting.filter((c) => !evmChains.has(c));
        if (nonEvm.length === 1 && fitting.every((c) => c === nonEvm[0] || faces.has(`${c} ${nonEvm[0]}`))) fitting = nonEvm;
      }
      if (fitting.length === 1) {
        id = fitting[0];
        stats.matched_by_name++;
        break;
      }
    }
  }
  // A chain's own coin named otherwise by another list (CoinGecko's "NEAR Protocol", "Stellar",
  // "Hedera" for NEAR, Stellar Lumens, HBAR): a record with no contract whose ticker is one real
  // native coin's, and whose name starts with that coin's first word or is the name of its chain.
  if (!id && type === "Token") {
    for (const m of members) {
      if (!m.claim.symbol || m.keys.some((k) => parseAddressKey(k) !== undefined)) continue;
      const name = normalizeName(m.claim.name);
      const firstWord = (text: string) => text.toLowerCase().split(/[^a-z0-9]+/).find((w) => w !== "") ?? "";
      const candidates = (nativeCoinsBySymbol.get(m.claim.symbol.toLowerCase()) ?? []).filter(
        (c) => !taken.has(c) && (firstWord(world.entities.get(c)!.name) === firstWord(m.claim.name) || (chainNamesOfCoin.get(c)?.has(name) ?? false)),
      );
      if (candidates.length === 1) {
        id = candidates[0];
        stats.matched_native_coins++;
        break;
      }
    }
  }
  // A stablecoin named otherwise by another list ("Dola" at DefiLlama, "Dola USD Stablecoin" in
  // the token lists) is the one real stablecoin of its ticker, when there is exactly one.
  if (!id) {
    for (const m of members) {
      if (!m.claim.labels?.includes("Stablecoin") || !m.claim.symbol) continue;
      const candidates = (stablecoinsBySymbol.get(m.claim.symbol.toLowerCase()) ?? []).filter((c) => !taken.has(c));
      if (candidates.length === 1) {
        id = candidates[0];
        stats.matched_by_symbol++;
        break;
      }
    }
  }
  return id;
}
