/**
 * @module ingest/providers/coingecko/parse-coins
 * Chains (asset platforms, EVM ones with their CAIP-2 key, and their native coins) and tokens (coins
 * with their contract addresses per platform, prominent by market cap rank).
 */
import type { ClassName } from "../../../entities/vocabulary.ts";
import { parseEach } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import { type EntityClaim, type ProviderOutput, addressKey, key } from "../../records.ts";
import { chainKey, tokenKey } from "./keys.ts";
import { idOf, latestDay, load } from "./saved.ts";
import type { CoinDetail } from "./parse-details.ts";
import { coinSchema, type Market, platformSchema } from "./schemas.ts";

/** 1 for the largest coin, 0.8 for the 10th, 0.6 for the 100th, 0.4 for the 1000th, at least 0.01. */
export function prominenceOfRank(rank: number): number {
  return Math.max(0.01, Math.min(1, 1 - Math.log10(rank) / 5));
}

export function parsePlatforms(raw: RawStore, out: ProviderOutput): void {
  const day = latestDay(raw, "asset_platforms");
  if (!day) return;
  const k = `asset_platforms/${day}`;
  const list = load(raw, out, k);
  if (list === undefined) return;
  if (!Array.isArray(list)) return out.reject(k, "not a list of asset platforms");
  const seen = new Set<string>();
  for (const p of parseEach(list, platformSchema, (item, issue) => out.reject(`asset platform ${idOf(item)}`, issue))) {
    if (seen.has(p.id)) continue;
    seen.add(p.id);
    const evm = typeof p.chain_identifier === "number";
    const shortname = p.shortname?.trim();
    out.entity({
      type: "Chain",
      keys: [chainKey(p.id), ...(evm ? [key("Chain", "caip2", `eip155:${p.chain_identifier}`)] : [])],
      name: p.name,
      aliases: shortname && shortname.toLowerCase() !== p.name.toLowerCase() ? [shortname] : [],
      attributes: evm
        ? [
            ["chainKey", `eip155:${p.chain_identifier}`],
            ["chainId", String(p.chain_identifier)],
            ["chainFamily", "evm"],
          ]
        : [],
      relations: p.native_coin_id?.trim() ? [["nativeToken", tokenKey(p.native_coin_id.trim())]] : [],
    });
  }
}

export function parseCoins(raw: RawStore, out: ProviderOutput, latest: Map<string, Market>, stablecoins: Set<string>, details: Map<string, CoinDetail>): void {
  const prominence = (id: string) => {
    const rank = latest.get(id)?.market_cap_rank;
    return typeof rank === "number" ? prominenceOfRank(rank) : undefined;
  };
  const labels = (id: string): ClassName[] | undefined => (stablecoins.has(id) ? ["Stablecoin"] : undefined);
  const sameAs = (id: string) => [`https://www.coingecko.com/en/coins/${encodeURIComponent(id)}`];
  /** What the coin's record says of it: description, categories, homepage. */
  const described = (id: string): NonNullable<EntityClaim["attributes"]> => {
    const detail = details.get(id);
    const attributes: NonNullable<EntityClaim["attributes"]> = [];
    if (detail?.description) attributes.push(["schema:description", detail.description]);
    for (const category of detail?.categories ?? []) attributes.push(["category", category]);
    if (detail?.homepage) attributes.push(["schema:url", detail.homepage]);
    return attributes;
  };
  const claimed = new Set<string>();

  const day = latestDay(raw, "coins_list");
  const k = `coins_list/${day}`;
  const list = day ? load(raw, out, k) : undefined;
  if (list !== undefined && !Array.isArray(list)) out.reject(k, "not a list of coins");
  for (const coin of parseEach(Array.isArray(list) ? list : [], coinSchema, (item, issue) => out.reject(`coin ${idOf(item)}`, issue))) {
    if (claimed.has(coin.id)) {
      out.reject(`coin ${JSON.stringify(coin.id)}`, "listed twice");
      continue;
    }
    claimed.add(coin.id);
    const keys = [tokenKey(coin.id)];
    const relations: ["deployedOn", string][] = [];
    for (const [platform, address] of Object.entries(coin.platforms ?? {})) {
      const chain = platform.trim();
      if (!chain) continue;
      relations.push(["deployedOn", chainKey(chain)]);
      if (address?.trim()) keys.push(addressKey(chainKey(chain), address));
    }
    out.entity({
      type: "Token",
      keys: [...new Set(keys)],
      name: coin.name,
      labels: labels(coin.id),
      symbol: coin.symbol.trim().toUpperCase() || undefined,
      attributes: described(coin.id),
      relations,
      sameAs: sameAs(coin.id),
      prominence: prominence(coin.id),
    });
  }

  // Coins with market data the list did not carry (listed since, or a partial list).
  for (const m of latest.values()) {
    if (claimed.has(m.id)) continue;
    claimed.add(m.id);
    out.entity({
      type: "Token",
      keys: [tokenKey(m.id)],
      name: m.name,
      labels: labels(m.id),
      symbol: m.symbol.trim().toUpperCase() || undefined,
      attributes: described(m.id),
      sameAs: sameAs(m.id),
      prominence: prominence(m.id),
    });
  }
}
