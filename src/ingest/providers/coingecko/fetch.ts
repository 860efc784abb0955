/**
 * @module ingest/providers/coingecko/fetch
 * What CoinGecko is asked, every request on its own (a refusal is a skipped line in the report):
 * the platform, coin and category lists, the markets pages, the stablecoins' page, the daily
 * histories of the largest coins (from the day after the last stored one), and the records of the
 * largest coins with their tickers.
 */
import type { FetchContext } from "../../connector.ts";
import { answered, ask, parseEach, unixOf } from "../../connector.ts";
import { addDays } from "../../../time.ts";
import { chartKey, isDay, P, tokenKey } from "./keys.ts";
import { type Market, marketSchema, positiveOrNull } from "./schemas.ts";

const DEFAULT_API = "https://api.coingecko.com/api/v3";
/** Coins per `/coins/markets` page (the API's maximum). */
const PER_PAGE = 250;
/** Pages of `/coins/markets` asked at most, whatever `detailLimit` says. */
const MAX_PAGES = 100;
/** Days of history asked for a coin with none stored yet (the demo plan's limit). */
export const HISTORY_DAYS = 365;

/** The header carrying the API key: pro keys go to pro-api.coingecko.com, demo keys elsewhere. */
export function apiKeyHeaders(settings: { urls: Record<string, string>; apiKey?: string }): Record<string, string> {
  if (!settings.apiKey) return {};
  let host = "";
  try {
    host = new URL(apiBase(settings)).hostname;
  } catch {
    // an unreadable URL fails at the request; the header choice does not matter then
  }
  return { [host === "pro-api.coingecko.com" ? "x-cg-pro-api-key" : "x-cg-demo-api-key"]: settings.apiKey };
}

function apiBase(settings: { urls: Record<string, string> }): string {
  return (settings.urls.api ?? DEFAULT_API).replace(/\/+$/, "");
}

function marketsUrl(base: string, page: number, category?: string): string {
  const params = new URLSearchParams({ vs_currency: "usd", ...(category ? { category } : {}), order: "market_cap_desc", per_page: String(PER_PAGE), page: String(page) });
  return `${base}/coins/markets?${params}`;
}

export async function fetchAll(ctx: FetchContext): Promise<void> {
  const base = apiBase(ctx.settings);
  const headers = apiKeyHeaders(ctx.settings);
  const get = (path: string) => () => ctx.http.getJson(path.startsWith("http") ? path : `${base}${path}`, { headers });
  const day = ctx.today;
  const detailsLimit = Math.max(0, Number(ctx.settings.limits?.details ?? ctx.detailLimit));

  const pageLimit = Math.min(MAX_PAGES, Math.max(1, Math.ceil(Math.max(ctx.detailLimit, detailsLimit) / PER_PAGE)));
  let done = 0;
  let total = 4 + pageLimit + Math.max(0, ctx.detailLimit) + detailsLimit;
  const step = () => ctx.progress(++done, total);

  await ask(ctx, P, `asset_platforms/${day}`, get("/asset_platforms"));
  step();
  await ask(ctx, P, `coins_list/${day}`, get("/coins/list?include_platform=true"));
  step();
  await ask(ctx, P, `categories/${day}`, get("/coins/categories/list"));
  step();
  // Market pages until an empty one (or enough for the coins asked about); a refused page ends them.
  const markets: Market[] = [];
  for (let page = 1; page <= pageLimit; page++) {
    const k = `markets/${day}/${page}`;
    if (!answered(await ask(ctx, P, k, get(marketsUrl(base, page))))) break;
    step();
    let answer: unknown;
    try {
      answer = ctx.raw.load(P, k);
    } catch {
      break;
    }
    if (!Array.isArray(answer) || answer.length === 0) break;
    markets.push(...parseEach(answer, marketSchema));
  }

  await ask(ctx, P, `stablecoins/${day}`, get(marketsUrl(base, 1, "stablecoins")));
  step();

  const seen = new Set<string>();
  const byCap = markets
    .filter((m) => !seen.has(m.id) && seen.add(m.id))
    .map((m, order) => ({ m, order }))
    .sort((a, b) => (positiveOrNull(b.m.market_cap) ?? -1) - (positiveOrNull(a.m.market_cap) ?? -1) || a.order - b.order)
    .map(({ m }) => m.id);

  // Histories of the largest coins.
  const top = byCap.slice(0, Math.max(0, ctx.detailLimit));
  const details = byCap.slice(0, detailsLimit);
  total = done + top.length + details.length;
  const end = unixOf(day) + 86_399;
  for (const id of top) {
    const since = ctx.since(tokenKey(id));
    const from = since && isDay(since) ? addDays(since, 1) : addDays(day, -HISTORY_DAYS);
    if (from <= day) {
      const path = `/coins/${encodeURIComponent(id)}/market_chart/range?vs_currency=usd&from=${unixOf(from)}&to=${end}`;
      await ask(ctx, P, chartKey(id, from, day), get(path));
    }
    step();
  }
  // Each large coin's record: its description and categories, and its first page of tickers
  // (the exchanges and pairs it trades on, with their spreads) in the same answer.
  for (const id of details) {
    await ask(ctx, P, `coin/${encodeURIComponent(id)}/${day}`, get(`/coins/${encodeURIComponent(id)}?${DETAIL_PARAMS}`), { absentOn: [404] });
    step();
  }
}

/** A coin's record without what other requests give (prices, localized names, social counts), with its tickers. */
const DETAIL_PARAMS = "localization=false&tickers=true&market_data=false&community_data=false&developer_data=false&sparkline=false";
