/**
 * @module ingest/providers/coingecko/parse-details
 * The records of the largest coins (`/coins/{id}` with its tickers): each coin's description,
 * categories and homepage for its claim, and its listings, a `listings` row per exchange and pair
 * with the spread and the day's volume, and the exchanges themselves.
 *
 * Categories are kept when CoinGecko's categories list of the same run names them: a coin's record
 * also carries translated duplicates ("Laag 1 (L1)" beside "Layer 1 (L1)"). Tickers CoinGecko flags
 * stale (no trade for a while) or anomalous (a price far from the others) are left out, as are
 * those without a spread or a volume: a listing nobody trades says nothing of its liquidity.
 */
import { z } from "zod";
import { parseEach } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import { type ProviderOutput, key, webUrl } from "../../records.ts";
import { isDay, P, tokenKey } from "./keys.ts";
import { load } from "./saved.ts";

/** What a coin's record adds to its claim. */
export interface CoinDetail {
  description?: string;
  categories: string[];
  homepage?: string;
}

const tickerSchema = z.object({
  base: z.string(),
  target: z.string(),
  market: z.object({ name: z.string().min(1), identifier: z.string().min(1) }),
  converted_volume: z.object({ usd: z.number().nullish() }).nullish(),
  bid_ask_spread_percentage: z.number().nullish(),
  is_anomaly: z.boolean().nullish(),
  is_stale: z.boolean().nullish(),
  coin_id: z.string().nullish(),
  target_coin_id: z.string().nullish(),
});

const detailSchema = z.object({
  id: z.string().min(1),
  symbol: z.string(),
  categories: z.array(z.string().nullable()).nullish(),
  description: z.object({ en: z.string().nullish() }).nullish(),
  links: z.object({ homepage: z.array(z.string()).nullish() }).nullish(),
  tickers: z.array(z.unknown()).nullish(),
});

const categorySchema = z.object({ name: z.string().min(1) });

/** Longest description kept: the first paragraphs say what a coin is; the rest is history and links. */
const DESCRIPTION_CHARS = 1200;

/** The saved records by coin, each its latest day's (`coin/<id>/<day>`). */
function latestRecords(raw: RawStore): Map<string, { k: string; day: string }> {
  const latest = new Map<string, { k: string; day: string }>();
  for (const k of raw.keys(P, "coin/")) {
    const m = /^coin\/([^/]+)\/(\d{4}-\d{2}-\d{2})$/.exec(k);
    if (!m || !isDay(m[2]!)) continue;
    const id = decodeURIComponent(m[1]!);
    if ((latest.get(id)?.day ?? "") < m[2]!) latest.set(id, { k, day: m[2]! });
  }
  return latest;
}

/**
 * Category names of the latest saved categories list (`/coins/categories/list`; the list with market
 * data has the same `name`s); undefined when there is none, and then every category is kept.
 */
function knownCategories(raw: RawStore, out: ProviderOutput): Set<string> | undefined {
  const days = raw.keys(P, "categories/").map((k) => k.slice("categories/".length)).filter(isDay).sort();
  if (days.length === 0) return undefined;
  const list = load(raw, out, `categories/${days.at(-1)}`);
  if (!Array.isArray(list)) return undefined;
  return new Set([...parseEach(list, categorySchema)].map((c) => c.name));
}

export function parseDetails(raw: RawStore, out: ProviderOutput): Map<string, CoinDetail> {
  const details = new Map<string, CoinDetail>();
  const categories = knownCategories(raw, out);
  const exchanges = new Set<string>();
  for (const [id, { k, day }] of latestRecords(raw)) {
    const parsed = detailSchema.safeParse(load(raw, out, k));
    if (!parsed.success) {
      out.reject(k, "not a coin record");
      continue;
    }
    const coin = parsed.data;
    const kept = (coin.categories ?? []).filter((c): c is string => typeof c === "string" && c.trim() !== "" && (!categories || categories.has(c)));
    const homepage = (coin.links?.homepage ?? []).map((h) => webUrl(h)).find((h) => h !== undefined);
    details.set(id, { description: plainText(coin.description?.en), categories: [...new Set(kept)], homepage });
    parseTickers(out, id, coin.symbol, day, coin.tickers ?? [], exchanges);
  }
  return details;
}

/** `claimed`: exchanges claimed already (by an earlier coin's tickers). */
function parseTickers(out: ProviderOutput, id: string, symbol: string, day: string, tickers: unknown[], claimed: Set<string>): void {
  const token = tokenKey(id);
  const linked = new Set<string>();
  const seen = new Set<string>();
  for (const t of parseEach(tickers, tickerSchema, (item, issue) => out.reject(`ticker of ${id}`, issue))) {
    if (t.is_stale || t.is_anomaly) continue;
    const volume = t.converted_volume?.usd ?? null;
    const spread = t.bid_ask_spread_percentage ?? null;
    if (spread === null || volume === null || volume <= 0) continue;
    const exchange = key("Exchange", "coingecko", t.market.identifier);
    // DEX pairs name tokens by contract: the coin's own ticker reads better.
    const base = /^0x[0-9a-f]{40}$/i.test(t.base) ? symbol.toUpperCase() : t.base;
    const target = /^0x[0-9a-f]{40}$/i.test(t.target) ? (t.target_coin_id ?? t.target) : t.target;
    const pair = `${base}/${target}`;
    if (seen.has(`${exchange} ${pair}`)) continue;
    seen.add(`${exchange} ${pair}`);
    out.row("listings", { entity_id: token, date: day, exchange_id: exchange, pair, spreadPct: spread, volumeUsd: volume });
    if (!claimed.has(exchange)) {
      claimed.add(exchange);
      out.entity({ type: "Exchange", keys: [exchange], name: t.market.name, sameAs: [`https://www.coingecko.com/en/exchanges/${encodeURIComponent(t.market.identifier)}`] });
    }
    if (!linked.has(exchange)) {
      linked.add(exchange);
      out.link(token, "listedOn", exchange);
    }
  }
}

/** A description as plain text: tags dropped, entities read, whitespace folded, at most DESCRIPTION_CHARS at a sentence end. */
function plainText(html: string | null | undefined): string | undefined {
  if (!html) return undefined;
  const text = html
    .replace(/<[^>]*>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&rsquo;/g, "'")
    .replace(/\s+/g, " ")
    .trim();
  if (!text) return undefined;
  if (text.length <= DESCRIPTION_CHARS) return text;
  const cut = text.slice(0, DESCRIPTION_CHARS);
  const end = cut.lastIndexOf(". ");
  return end > DESCRIPTION_CHARS / 2 ? cut.slice(0, end + 1) : cut;
}
