/**
 * @module ingest/providers/snapshot-org/parse-spaces
 * Spaces as DAOs, the protocols they govern (DefiLlama's `governanceID`), and the circulating supply
 * of the token a space votes with (CoinGecko's markets of the same run), for turnout.
 */
import { parseEach } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import { type ProviderOutput, key } from "../../records.ts";
import { latestMarkets } from "../coingecko/markets.ts";
import { knownProtocols } from "../defillama/known-protocols.ts";
import { listOf } from "./hub.ts";
import { P, idOf, spaceKey } from "./keys.ts";
import { type Space, spaceSchema } from "./schemas.ts";

/** Every saved space (by lower-case id) as a DAO claim. */
export function parseSpaces(raw: RawStore, out: ProviderOutput): Map<string, Space> {
  const spaces = new Map<string, Space>();
  for (const k of [...raw.keys(P, "spaces/"), ...raw.keys(P, "ranking/")]) {
    const field = k.startsWith("ranking/") ? "ranking" : "spaces";
    const list = listOf(raw.load(P, k), field);
    if (!list) {
      out.reject(`snapshot answer ${k}`, `no data.${field === "ranking" ? "ranking.items" : "spaces"} list`);
      continue;
    }
    for (const space of parseEach(list, spaceSchema, (item, issue) => out.reject(`space ${idOf(item)}`, issue))) spaces.set(space.id.toLowerCase(), space);
  }
  const maxFollowers = Math.max(0, ...[...spaces.values()].map((s) => s.followersCount ?? 0));
  for (const space of spaces.values()) {
    const website = space.website?.trim();
    const about = space.about?.trim();
    out.entity({
      type: "Organization",
      keys: [spaceKey(space.id)],
      name: space.name?.trim() || space.id,
      labels: ["DAO"],
      attributes: [
        ...(about ? [["schema:description", about] as ["schema:description", string]] : []),
        ...(website && /^https?:\/\//i.test(website) ? [["schema:url", website] as ["schema:url", string]] : []),
      ],
      sameAs: [`https://snapshot.org/#/${space.id}`],
      prominence: maxFollowers > 0 ? Math.log1p(space.followersCount ?? 0) / Math.log1p(maxFollowers) : undefined,
    });
  }
  return spaces;
}

/**
 * Links each known protocol to the spaces it names (governedBy), and returns the circulating supply
 * of the token a space votes with, by space id (lower case): the token of a protocol it governs
 * whose symbol is the space's.
 */
export function linkProtocols(raw: RawStore, out: ProviderOutput, spaces: Map<string, Space>): Map<string, number> {
  const supplies = circulatingSupplies(raw);
  const votingSupply = new Map<string, number>();
  for (const protocol of knownProtocols(raw).protocols) {
    for (const id of protocol.spaces) {
      const space = spaces.get(id.toLowerCase());
      if (!space) continue;
      out.link(key("Protocol", "defillama", protocol.slug), "governedBy", spaceKey(space.id));
      const token = protocol.geckoId ? supplies.get(protocol.geckoId) : undefined;
      if (token && space.symbol && token.symbol.toLowerCase() === space.symbol.toLowerCase()) votingSupply.set(space.id.toLowerCase(), token.supply);
    }
  }
  return votingSupply;
}

/** Coins' symbol and circulating supply, by CoinGecko id, from CoinGecko's markets pages of the latest day saved in the same run. */
function circulatingSupplies(raw: RawStore): Map<string, { symbol: string; supply: number }> {
  const out = new Map<string, { symbol: string; supply: number }>();
  for (const m of latestMarkets(raw)) {
    const supply = m.circulating_supply;
    if (typeof supply === "number" && supply > 0 && m.symbol !== "") out.set(m.id, { symbol: m.symbol, supply });
  }
  return out;
}
