/**
 * @module ingest/providers/coingecko/markets
 * The saved markets answers: each day's market record of every coin (price, market cap, volume,
 * supply, rank), and which coins are stablecoins.
 */
import { parseEach } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import type { ProviderOutput } from "../../records.ts";
import { isDay, P } from "./keys.ts";
import { idOf, latestDay, load } from "./saved.ts";
import { type Market, marketSchema } from "./schemas.ts";

/** Market records of every saved day (for rows), and each coin's latest (for claims). */
export function loadMarkets(raw: RawStore, out: ProviderOutput): { latest: Map<string, Market>; byDay: Map<string, Map<string, Market>> } {
  const byDay = new Map<string, Map<string, Market>>();
  const pages = raw
    .keys(P, "markets/")
    .map((k) => {
      const m = /^markets\/(\d{4}-\d{2}-\d{2})\/(\d+)$/.exec(k);
      return m ? { k, day: m[1]!, page: Number(m[2]) } : undefined;
    })
    .filter((x) => x !== undefined)
    .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.page - b.page));
  const read = (k: string, day: string, what: string) => {
    const answer = load(raw, out, k);
    if (answer === undefined) return;
    if (!Array.isArray(answer)) return out.reject(k, `not a list of ${what}`);
    let records = byDay.get(day);
    if (!records) byDay.set(day, (records = new Map()));
    for (const m of parseEach(answer, marketSchema, (item, issue) => out.reject(`market ${idOf(item)} (${k})`, issue))) {
      if (!records.has(m.id)) records.set(m.id, m);
    }
  };
  for (const { k, day } of pages) read(k, day, "markets");
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

export function stablecoinIds(raw: RawStore): Set<string> {
  const ids = new Set<string>();
  const day = latestDay(raw, "stablecoins");
  if (!day) return ids;
  let answer: unknown;
  try {
    answer = raw.load(P, `stablecoins/${day}`);
  } catch {
    return ids; // rejected once already by loadMarkets
  }
  if (!Array.isArray(answer)) return ids;
  for (const m of parseEach(answer, marketSchema)) ids.add(m.id);
  return ids;
}
