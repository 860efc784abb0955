/**
 * @module ingest/providers/defillama/parse-stablecoins
 * Stablecoins: today's supply and price (the list), the supply histories of the largest, and every
 * listed coin's price history (stablecoin-prices.ts). A history's day takes that day's price, which
 * also values a non-dollar peg's supply in USD; a day with a price and no supply history is a row
 * of its price alone (the merge with what is stored keeps the supply it had, ingest/keep-history).
 */
import type { RawStore } from "../../raw-store.ts";
import type { ProviderOutput } from "../../records.ts";
import { parseEach } from "../../connector.ts";
import { record, type Stablecoin, stablecoinPoint, stablecoinSchema } from "./schemas.ts";
import { chainKey, geckoKey, llamaSlug, stablecoinKey } from "./keys.ts";
import { after, attributes, label, listOf, loadSaved, pointsByDay, prominenceByRank, Relations, savedHistories, usable } from "./parse-common.ts";
import { stablecoinPrices } from "./stablecoin-prices.ts";

/** Reading a detail only for its text: what is wrong with it is reported where its history is read. */
const quiet = { reject: () => undefined };

/** A stablecoin's description and how it is minted and redeemed (its detail answer's text), as one description. */
function descriptionOf(detail: Record<string, unknown>): string | undefined {
  const parts = [detail.description, detail.mintRedeemDescription].map((t) => (typeof t === "string" ? usable(t) : undefined)).filter(Boolean);
  return parts.length > 0 ? parts.join(" ") : undefined;
}

const pegCurrency = (pegType: string) => pegType.replace(/^pegged/, "");

/** Circulating supply in USD: the USD amount of a dollar coin; another peg's amount at the coin's price when known. */
function circulatingUsd(circulating: Record<string, number | null | undefined> | null | undefined, pegType: string, price: number | null): number | null {
  const amount = circulating?.[pegType];
  if (typeof amount !== "number") return null;
  if (pegType === "peggedUSD") return amount;
  return price !== null ? amount * price : null;
}

const priceOf = (price: number | string | null | undefined): number | null => {
  const value = typeof price === "string" ? Number(price) : price;
  return typeof value === "number" && Number.isFinite(value) ? value : null;
};

export function parseStablecoins(raw: RawStore, out: ProviderOutput): void {
  const coins = new Map<string, Stablecoin>();
  const saved = loadSaved(raw, out, "stablecoins");
  const list = saved && listOf(out, "stablecoins", saved.body, "peggedAssets");
  if (saved && list) {
    for (const coin of parseEach(list, stablecoinSchema, (item, issue) => out.reject(`stablecoin ${label(item, "id", "name")}`, issue))) coins.set(coin.id, coin);
    const prominence = prominenceByRank([...coins.values()], (coin) => circulatingUsd(coin.circulating, coin.pegType, priceOf(coin.price)));
    for (const coin of coins.values()) {
      const own = stablecoinKey(coin.id);
      const gecko = usable(coin.gecko_id);
      const relations = new Relations();
      for (const chain of coin.chains ?? []) relations.add("deployedOn", chainKey(chain));
      const detail = record(loadSaved(raw, quiet, `stablecoin/${coin.id}`)?.body);
      out.entity({
        type: "Token",
        labels: ["Stablecoin"],
        keys: [own, ...(gecko ? [geckoKey(gecko)] : [])],
        name: coin.name,
        symbol: coin.symbol,
        attributes: attributes([
          ["pegCurrency", pegCurrency(coin.pegType)],
          ["pegMechanism", usable(coin.pegMechanism ?? (typeof detail.pegMechanism === "string" ? detail.pegMechanism : undefined))],
          ["schema:description", descriptionOf(detail)],
          ["schema:url", typeof detail.url === "string" ? usable(detail.url) : undefined],
        ]),
        relations: relations.list,
        sameAs: [`https://defillama.com/stablecoin/${llamaSlug(coin.name)}`],
        prominence: prominence.get(coin),
      });
      const price = priceOf(coin.price);
      out.row("stablecoin", { entity_id: own, date: saved.day, price, circulatingUsd: circulatingUsd(coin.circulating, coin.pegType, price), pegCurrency: pegCurrency(coin.pegType) });
    }
  }

  const prices = stablecoinPrices(raw, out, coins);
  // The list's row speaks for its day where it gives a price.
  if (saved) for (const coin of coins.values()) if (priceOf(coin.price) !== null) prices.get(coin.id)?.delete(saved.day);

  for (const history of savedHistories(raw, out, "stablecoin/", "tokens")) {
    const { id, rawKey } = history;
    const bodyPeg = record(history.saved.body).pegType;
    const pegType = typeof bodyPeg === "string" ? bodyPeg : coins.get(id)?.pegType;
    if (!pegType) {
      out.reject(rawKey, "no pegType");
      continue;
    }
    // The list's row speaks for its day.
    const listDay = saved && coins.has(id) ? saved.day : undefined;
    const pricesOf = prices.get(id);
    for (const [day, point] of pointsByDay(out, rawKey, history.points, stablecoinPoint, (p) => p.date, after(history.saved.since, listDay))) {
      // Histories have no price: the day's price comes from the price history, when it has one.
      const price = pricesOf?.get(day) ?? null;
      pricesOf?.delete(day);
      out.row("stablecoin", { entity_id: stablecoinKey(id), date: day, price, circulatingUsd: circulatingUsd(point.circulating, pegType, price), pegCurrency: pegCurrency(pegType) });
    }
  }

  // Days with a price and no supply history (coins past the largest, days before their history).
  for (const [id, byDay] of prices) {
    const pegType = coins.get(id)!.pegType;
    for (const [day, price] of byDay) out.row("stablecoin", { entity_id: stablecoinKey(id), date: day, price, circulatingUsd: null, pegCurrency: pegCurrency(pegType) });
  }
}
