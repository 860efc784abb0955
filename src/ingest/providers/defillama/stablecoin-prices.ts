/**
 * @module ingest/providers/defillama/stablecoin-prices
 * Every stablecoin's daily price, from one request: `stablecoins.llama.fi/stablecoinprices`
 * answers the whole history, `[{"date": <unix seconds, 00:00 UTC>, "prices": {gecko_id: price}}]`.
 * The stablecoin histories (`/stablecoin/<id>`) carry supply only and the list carries today's
 * price only, so without this a stablecoin had a price on the days the list was read, and a
 * non-dollar stablecoin never had the 30 days of prices whose median the depeg check takes as
 * its peg (signals/detectors/stablecoin-depeg.ts).
 *
 * Prices are keyed by CoinGecko id: each coin of the list with that `gecko_id` takes them (two
 * coins of one gecko_id, a token and its bridged twin, both do). A price that is not a positive
 * number is no price (DefiLlama writes 0 and null for "unknown").
 *
 * The answer is whole every time; parse keeps the days after its `since`: the earliest day any
 * coin of the list still needs (the least of their price cursors), or every day while some coin of
 * the list has none yet (new to the list: its whole price history, once). Each coin's price cursor
 * (`priceCursor`, apart from its rows' cursor, which the list's row of the day advances anyway) is
 * the answer's last day, set only when an answer was read: after a refused or unreadable answer the
 * next run asks from the same day again, so no day is left without its price.
 */
import { z } from "zod";
import { parseEach, dayOf } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import type { ProviderOutput } from "../../records.ts";
import { stablecoinKey } from "./keys.ts";
import { listOf, loadSaved } from "./parse-common.ts";
import { record, type Stablecoin } from "./schemas.ts";

export const PRICES_KEY = "stablecoinprices";
/** The cursor of a coin's price history (its id as DefiLlama's stablecoin list gives it). */
export const priceCursor = (id: string) => `${PRICES_KEY}|${stablecoinKey(id)}`;

/** One day of the answer (the prices are read one by one: one bad price does not lose the day). */
const priceDay = z.object({ date: z.union([z.number(), z.string()]), prices: z.record(z.string(), z.unknown()) });

/**
 * The `since` of the prices request: the least of the price cursors (`since`, by key) of the
 * list's coins that have a gecko_id, or undefined (every day) when one of them has none or the
 * list is missing.
 */
export function pricesSince(list: unknown, since: (key: string) => string | undefined): string | undefined {
  const coins = record(list).peggedAssets;
  if (!Array.isArray(coins)) return undefined;
  let earliest: string | undefined;
  for (const coin of coins.map(record)) {
    if (typeof coin.gecko_id !== "string" || !coin.gecko_id || (typeof coin.id !== "string" && typeof coin.id !== "number")) continue;
    const cursor = since(priceCursor(String(coin.id)));
    if (!cursor) return undefined;
    if (!earliest || cursor < earliest) earliest = cursor;
  }
  return earliest;
}

/** A positive finite price, or null (0, null, text and negatives are no price). */
function positive(value: unknown): number | null {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : null;
}

/**
 * Each listed coin's prices by day (days after the answer's `since`), by coin id.
 * Empty when the answer is absent; a malformed answer or day is rejected with its reason.
 */
export function stablecoinPrices(raw: RawStore, out: ProviderOutput, coins: Map<string, Stablecoin>): Map<string, Map<string, number>> {
  const byCoin = new Map<string, Map<string, number>>();
  const saved = loadSaved(raw, out, PRICES_KEY);
  const days = saved && listOf(out, PRICES_KEY, saved.body);
  if (!saved || !days) return byCoin;
  let last: string | undefined;
  const coinsOf = new Map<string, string[]>();
  for (const coin of coins.values()) if (coin.gecko_id) coinsOf.set(coin.gecko_id, [...(coinsOf.get(coin.gecko_id) ?? []), coin.id]);
  for (const entry of parseEach(days, priceDay, (item, issue) => out.reject(`${PRICES_KEY} day ${JSON.stringify(record(item).date ?? null)}`, issue))) {
    const day = dayOf(entry.date);
    if (!day) {
      out.reject(`${PRICES_KEY} day ${JSON.stringify(entry.date)}`, "not a time");
      continue;
    }
    if (!last || day > last) last = day;
    if (saved.since !== null && day <= saved.since) continue;
    for (const [gecko, value] of Object.entries(entry.prices)) {
      const price = positive(value);
      if (price === null) continue;
      for (const id of coinsOf.get(gecko) ?? []) {
        let prices = byCoin.get(id);
        if (!prices) byCoin.set(id, (prices = new Map()));
        prices.set(day, price);
      }
    }
  }
  // Every listed coin was priced up to the answer's last day, or has no price there: asked from it next time.
  if (last) for (const ids of coinsOf.values()) for (const id of ids) out.reach(priceCursor(id), last);
  return byCoin;
}
