/**
 * @module ingest/providers/coingecko/markets
 * The saved markets answers: each day's market record of every coin (price, market cap, volume,
 * supply, rank), and which coins are stablecoins. The Snapshot connector reads circulating supplies
 * from here too.
 */
import { parseEach } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import type { ProviderOutput } from "../../records.ts";
import { isDay, P } from "./keys.ts";
import { idOf, latestDay, load } from "./saved.ts";
import { type Market, marketSchema } from "./schemas.ts";

/** The saved `/coins/markets` pages (`markets/<day>/<page>`), by day and page. */
function marketPages(raw: RawStore): { k: string; day: string; page: number }[] {
  return raw
    .keys(P, "markets/")
    .map((k) => {
      const m = /^markets\/(\d{4}-\d{2}-\d{2})\/(\d+)$/.exec(k);
      return m ? { k, day: m[1]!, page: Number(m[2]) } : undefined;
    })
    .filter((x) => x !== undefined)
    .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.page - b.page));
}

/**
 * The market records of a saved markets answer, or undefined when there is no readable list. With
 * `out`, an unreadable answer, one that is not a list and each malformed record are rejected;
 * without, they are skipped.
 */
function marketRecords(raw: RawStore, k: string, what: string, out?: ProviderOutput): Market[] | undefined {
  const answer = load(raw, out, k);
  if (answer === undefined) return undefined;
  if (!Array.isArray(answer)) {
    out?.reject(k, `not a list of ${what}`);
    return undefined;
  }
  return [...parseEach(answer, marketSchema, (item, issue) => out?.reject(`market ${idOf(item)} (${k})`, issue))];
}

/** The market records of the latest day with saved markets pages, page by page (what is malformed is skipped: CoinGecko's parse reports it). */
export function latestMarkets(raw: RawStore): Market[] {
  const pages = marketPages(raw);
  const latest = pages.at(-1)?.day;
  return pages.filter((p) => p.day === latest).flatMap((p) => marketRecords(raw, p.k, "markets") ?? []);
}

/** Market records of every saved day (for rows), and each coin's latest (for claims). */
export function loadMarkets(raw: RawStore, out: ProviderOutput): { latest: Map<string, Market>; byDay: Map<string, Map<string, Market>> } {
  const byDay = new Map<string, Map<string, Market>>();
  const read = (k: string, day: string, what: string) => {
    const markets = marketRecords(raw, k, what, out);
    if (!markets) return;
    let records = byDay.get(day);
    if (!records) byDay.set(day, (records = new Map()));
    for (const m of markets) if (!records.has(m.id)) records.set(m.id, m);
  };
  for (const { k, day } of marketPages(raw)) read(k, day, "markets");
  // Stablecoins beyond the pages asked still have a market record for the day.
  for (const k of raw.keys(P, "stablecoins/")) {
    const day = k.slice("stablecoins/".length);
    if (isDay(day)) read(k, day, "stablecoin markets");
  }
  // For claims: each coin's most recent record over the saved days.
  const latest = new Map<string, Market>();
  for (const day of [...byDay.keys()].sort()) for (const [id, m] of byDay.get(day)!) latest.set(id, m);
  return { latest, byDay };
}

/** Which coins are stablecoins: those of the latest saved stablecoins page. */
export function stablecoinIds(raw: RawStore): Set<string> {
  const day = latestDay(raw, "stablecoins");
  // Without `out`: what is wrong with the answer was rejected once already by loadMarkets.
  const markets = day ? marketRecords(raw, `stablecoins/${day}`, "stablecoin markets") : undefined;
  return new Set((markets ?? []).map((m) => m.id));
}
