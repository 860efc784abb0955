/**
 * @module ingest/providers/coingecko/contracts
 * The largest coins with their EVM contracts, as CoinGecko's answers of a run give them (markets
 * for the order, the coin list for each coin's contracts, asset platforms for each platform's EVM
 * chain id): what other connectors ask explorers about (Blockscout's token holders).
 */
import { parseEach } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import { normalizeAddress } from "../../records.ts";
import { P } from "./keys.ts";
import { latestMarkets } from "./markets.ts";
import { latestDay } from "./saved.ts";
import { coinSchema, platformSchema, positiveOrNull } from "./schemas.ts";

export interface CoinContract {
  coin: string;
  chainId: number;
  address: string;
}

/** A saved list answer, or [] when there is none or it cannot be read (CoinGecko's parse reports that). */
function savedList(raw: RawStore, prefix: string): unknown[] {
  const day = latestDay(raw, prefix);
  try {
    const list = day ? raw.load(P, `${prefix}/${day}`) : undefined;
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/**
 * The `limit` largest coins (by market cap) that have a contract on one of `chainIds`, each with
 * its contract on the first of those chains it is on.
 */
export function largestContracts(raw: RawStore, chainIds: number[], limit: number): CoinContract[] {
  const chainOfPlatform = new Map<string, number>();
  for (const p of parseEach(savedList(raw, "asset_platforms"), platformSchema)) if (typeof p.chain_identifier === "number") chainOfPlatform.set(p.id, p.chain_identifier);
  const contracts = new Map<string, Map<number, string>>();
  for (const coin of parseEach(savedList(raw, "coins_list"), coinSchema)) {
    const byChain = new Map<number, string>();
    for (const [platform, address] of Object.entries(coin.platforms ?? {})) {
      const chainId = chainOfPlatform.get(platform.trim());
      if (chainId !== undefined && address && /^0x[0-9a-fA-F]{40}$/.test(address.trim())) byChain.set(chainId, normalizeAddress(address));
    }
    if (byChain.size > 0) contracts.set(coin.id, byChain);
  }
  const out: CoinContract[] = [];
  const seen = new Set<string>();
  const markets = latestMarkets(raw).sort((a, b) => (positiveOrNull(b.market_cap) ?? -1) - (positiveOrNull(a.market_cap) ?? -1));
  for (const m of markets) {
    if (out.length >= limit || seen.has(m.id)) continue;
    seen.add(m.id);
    const byChain = contracts.get(m.id);
    const chainId = chainIds.find((id) => byChain?.has(id));
    if (chainId !== undefined) out.push({ coin: m.id, chainId, address: byChain!.get(chainId)! });
  }
  return out;
}
