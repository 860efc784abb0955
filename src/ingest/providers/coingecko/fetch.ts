/**
 * @module ingest/providers/coingecko/fetch
 * What CoinGecko is asked: the platform and coin lists, the markets pages, the stablecoins' page,
 * and the daily histories of the largest coins (from the day after the last stored one).
 */
import type { FetchContext } from "../../connector.ts";
import { fetchOnce, parseEach, unixOf } from "../../connector.ts";
import { ProviderError } from "../../http.ts";
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
  const failures: Error[] = [];
  /** Runs a step; a failure is remembered (the run rejects at the end), a rate limit stops the run. */
  const attempt = async (run: () => Promise<unknown>): Promise<boolean> => {
    try {
      await run();
      return true;
    } catch (error) {
      if (error instanceof ProviderError && error.status === 429) throw error;
      failures.push(error as Error);
      ctx.log.warn({ provider: P, err: (error as Error).message }, "coingecko request failed");
      return false;
    }
  };

  const pageLimit = Math.min(MAX_PAGES, Math.max(1, Math.ceil(ctx.detailLimit / PER_PAGE)));
  let done = 0;
  let total = 3 + pageLimit + Math.max(0, ctx.detailLimit);
  const step = () => ctx.progress(++done, total);

  await attempt(() => fetchOnce(ctx, P, `asset_platforms/${day}`, get("/asset_platforms")));
  step();
  await attempt(() => fetchOnce(ctx, P, `coins_list/${day}`, get("/coins/list?include_platform=true")));
  step();
  // Market pages until an empty one (or enough for detailLimit coins).
  const markets: Market[] = [];
  for (let page = 1; page <= pageLimit; page++) {
    const k = `markets/${day}/${page}`;
    if (!(await attempt(() => fetchOnce(ctx, P, k, get(marketsUrl(base, page)))))) break;
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

  await attempt(() => fetchOnce(ctx, P, `stablecoins/${day}`, get(marketsUrl(base, 1, "stablecoins"))));
  step();

  // Histories of the largest coins.
  const seen = new Set<string>();
  const top = markets
    .filter((m) => !seen.has(m.id) && seen.add(m.id))
    .map((m, order) => ({ m, order }))
    .sort((a, b) => (positiveOrNull(b.m.market_cap) ?? -1) - (positiveOrNull(a.m.market_cap) ?? -1) || a.order - b.order)
    .slice(0, Math.max(0, ctx.detailLimit))
    .map(({ m }) => m.id);
  total = done + top.length;
  const end = unixOf(day) + 86_399;
  for (const id of top) {
    const since = ctx.since(tokenKey(id));
    const from = since && isDay(since) ? addDays(since, 1) : addDays(day, -HISTORY_DAYS);
    if (from <= day) {
      const path = `/coins/${encodeURIComponent(id)}/market_chart/range?vs_currency=usd&from=${unixOf(from)}&to=${end}`;
      await attempt(() => fetchOnce(ctx, P, chartKey(id, from, day), get(path)));
    }
    step();
  }

  if (failures.length > 0) {
    const first = failures[0]!;
    throw new ProviderError(
      failures.length === 1 ? first.message : `${failures.length} coingecko requests failed; first: ${first.message}`,
      first instanceof ProviderError ? first.status : undefined,
    );
  }
}
