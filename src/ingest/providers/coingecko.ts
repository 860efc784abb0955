/**
 * @module ingest/providers/coingecko
 * Tokens, chains and daily market data from the CoinGecko API v3 (public, demo or pro key).
 *
 * Requests, each saved under a key in the raw store:
 * - `/asset_platforms` -> `asset_platforms/<day>`: chains (EVM ones with their CAIP-2 key) and
 *   their native coins.
 * - `/coins/list?include_platform=true` -> `coins_list/<day>`: every coin with its contract
 *   addresses per platform.
 * - `/coins/markets` (by market cap, 250 a page, until an empty page or enough pages for
 *   `detailLimit` coins) -> `markets/<day>/<page>`: the day's price, market cap, volume and supply
 *   of each coin, and its rank (prominence).
 * - `/coins/markets?category=stablecoins` (one page) -> `stablecoins/<day>`: which coins are
 *   stablecoins (the list endpoints do not say).
 * - `/coins/{id}/market_chart/range` for the `detailLimit` largest coins ->
 *   `market_chart/<id>/<fromDay>_<toDay>`: daily history. Incremental: from the day after the last
 *   stored day (`since`), else a year back, to the end of `today`.
 *
 * Lists and market pages are keyed by the day they were asked on, so a killed run resumes without
 * asking again and the next day's run asks afresh; parse uses the latest lists and every saved day.
 * Parse merges every saved chart answer of a coin by day (later answers win), keeping only the days
 * of the range each was asked for; a day's market snapshot supplies the supply figures a chart lacks.
 */
import { z } from "zod";
import type { ClassName } from "../../entities/vocabulary.ts";
import type { Connector, FetchContext } from "../connector.ts";
import { dayOf, fetchOnce, parseEach, unixOf, zodIssue } from "../connector.ts";
import { ProviderError } from "../http.ts";
import type { ProviderOutput, SeriesRow } from "../records.ts";
import { addressKey, key } from "../records.ts";
import type { RawStore } from "../raw-store.ts";
import { addDays } from "../../time.ts";

export const DEFAULT_API = "https://api.coingecko.com/api/v3";
/** Coins per `/coins/markets` page (the API's maximum). */
export const PER_PAGE = 250;
/** Pages of `/coins/markets` asked at most, whatever `detailLimit` says. */
const MAX_PAGES = 100;
/** Days of history asked for a coin with none stored yet (the demo plan's limit). */
export const HISTORY_DAYS = 365;

const P = "coingecko" as const;

// ---- response shapes (CoinGecko API v3) ----

const platformSchema = z.object({
  id: z.string().trim().min(1, "empty id"),
  chain_identifier: z.number().int().nonnegative().nullable().optional(),
  name: z.string().trim().min(1, "empty name"),
  shortname: z.string().nullable().optional(),
  native_coin_id: z.string().nullable().optional(),
});

const coinSchema = z.object({
  id: z.string().trim().min(1, "empty id"),
  symbol: z.string(),
  name: z.string().trim().min(1, "empty name"),
  platforms: z.record(z.string(), z.string().nullable()).nullable().optional(),
});

const amount = z.number().nullable().optional();
const marketSchema = z.object({
  id: z.string().trim().min(1, "empty id"),
  symbol: z.string(),
  name: z.string().trim().min(1, "empty name"),
  current_price: amount,
  market_cap: amount,
  market_cap_rank: z.number().int().positive().nullable().optional(),
  total_volume: amount,
  circulating_supply: amount,
  total_supply: amount,
});
type Market = z.infer<typeof marketSchema>;

const chartSchema = z.object({
  prices: z.array(z.unknown()),
  market_caps: z.array(z.unknown()).optional(),
  total_volumes: z.array(z.unknown()).optional(),
});
const pointSchema = z.tuple([z.number().nonnegative(), z.number().nullable()]);

// ---- helpers ----

const tokenKey = (id: string) => key("Token", "coingecko", id);
const chainKey = (id: string) => key("Chain", "coingecko", id);

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

/** 1 for the largest coin, 0.8 for the 10th, 0.6 for the 100th, 0.4 for the 1000th, at least 0.01. */
export function prominenceOfRank(rank: number): number {
  return Math.max(0.01, Math.min(1, 1 - Math.log10(rank) / 5));
}

const isDay = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s) && Number.isFinite(Date.parse(`${s}T00:00:00Z`));


function idOf(item: unknown): string {
  const id = item && typeof item === "object" ? (item as { id?: unknown }).id : undefined;
  return JSON.stringify(id ?? null);
}

/** Zero market caps and supplies mean "unknown" at CoinGecko. */
const positiveOrNull = (v: number | null | undefined) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : null);
const finiteOrNull = (v: number | null | undefined) => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** A saved answer, or undefined (with a rejection) when the file cannot be read. */
function load(raw: RawStore, out: ProviderOutput, k: string): unknown {
  try {
    return raw.load(P, k);
  } catch (error) {
    out.reject(k, `unreadable saved answer: ${(error as Error).message}`);
    return undefined;
  }
}

/** The latest day saved under `<prefix>/<day>`. */
function latestDay(raw: RawStore, prefix: string): string | undefined {
  const days = raw
    .keys(P, `${prefix}/`)
    .map((k) => k.slice(prefix.length + 1).split("/")[0]!)
    .filter(isDay);
  return days.sort().at(-1);
}

function marketsUrl(base: string, page: number, category?: string): string {
  const params = new URLSearchParams({ vs_currency: "usd", ...(category ? { category } : {}), order: "market_cap_desc", per_page: String(PER_PAGE), page: String(page) });
  return `${base}/coins/markets?${params}`;
}

/** Chart key segments: `market_chart/<id>/<from>_<to>` (the id percent-encoded, as in the URL). */
function chartKey(id: string, from: string, to: string): string {
  return `market_chart/${encodeURIComponent(id)}/${from}_${to}`;
}

function parseChartKey(k: string): { id: string; from: string; to: string } | undefined {
  const m = /^market_chart\/([^/]+)\/(\d{4}-\d{2}-\d{2})_(\d{4}-\d{2}-\d{2})$/.exec(k);
  if (!m) return undefined;
  try {
    return { id: decodeURIComponent(m[1]!), from: m[2]!, to: m[3]! };
  } catch {
    return undefined;
  }
}

// ---- fetch ----

async function fetchAll(ctx: FetchContext): Promise<void> {
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

// ---- parse ----

function parsePlatforms(raw: RawStore, out: ProviderOutput): void {
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

/** Market records of every saved day (for rows), and each coin's latest (for claims). */
function loadMarkets(raw: RawStore, out: ProviderOutput): { latest: Map<string, Market>; byDay: Map<string, Map<string, Market>> } {
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

function stablecoinIds(raw: RawStore): Set<string> {
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

function parseCoins(raw: RawStore, out: ProviderOutput, latest: Map<string, Market>, stablecoins: Set<string>): void {
  const prominence = (id: string) => {
    const rank = latest.get(id)?.market_cap_rank;
    return typeof rank === "number" ? prominenceOfRank(rank) : undefined;
  };
  const labels = (id: string): ClassName[] | undefined => (stablecoins.has(id) ? ["Stablecoin"] : undefined);
  const sameAs = (id: string) => [`https://www.coingecko.com/en/coins/${encodeURIComponent(id)}`];
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
      sameAs: sameAs(m.id),
      prominence: prominence(m.id),
    });
  }
}

type DayValues = { price: number | null; marketCap: number | null; volume: number | null };

/** One value per UTC day, the last of the day; malformed points rejected. */
function lastOfDay(points: unknown[] | undefined, what: string, out: ProviderOutput, into: Map<string, Map<string, [number, number]>>, field: string): void {
  for (const [ms, value] of parseEach(points ?? [], pointSchema, (point, issue) => out.reject(what, `${field} point ${JSON.stringify(point)}: ${issue}`))) {
    if (value === null || !Number.isFinite(value)) continue;
    const day = dayOf(ms);
    if (!day) continue;
    let byField = into.get(day);
    if (!byField) into.set(day, (byField = new Map()));
    const previous = byField.get(field);
    if (!previous || previous[0] <= ms) byField.set(field, [ms, value]);
  }
}

/** Every saved chart answer per coin, merged by day: later ranges win, each keeps only its own days. */
function loadCharts(raw: RawStore, out: ProviderOutput): Map<string, Map<string, DayValues>> {
  const answers = raw
    .keys(P, "market_chart/")
    .map((k) => ({ k, ...parseChartKey(k) }))
    .filter((a): a is { k: string; id: string; from: string; to: string } => {
      if (a.id === undefined) out.reject(a.k, "not a market_chart/<id>/<from>_<to> key");
      return a.id !== undefined;
    })
    .sort((a, b) => (a.to !== b.to ? (a.to < b.to ? -1 : 1) : a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const charts = new Map<string, Map<string, DayValues>>();
  for (const a of answers) {
    const answer = load(raw, out, a.k);
    if (answer === undefined) continue;
    const parsed = chartSchema.safeParse(answer);
    if (!parsed.success) {
      out.reject(a.k, `not a market chart: ${zodIssue(parsed.error)}`);
      continue;
    }
    const days = new Map<string, Map<string, [number, number]>>();
    const what = `market_chart ${JSON.stringify(a.id)}`;
    lastOfDay(parsed.data.prices, what, out, days, "price");
    lastOfDay(parsed.data.market_caps, what, out, days, "marketCap");
    lastOfDay(parsed.data.total_volumes, what, out, days, "volume");
    let chart = charts.get(a.id);
    if (!chart) charts.set(a.id, (chart = new Map()));
    for (const [day, values] of days) {
      if (day < a.from || day > a.to) continue;
      chart.set(day, {
        price: finiteOrNull(values.get("price")?.[1]),
        marketCap: positiveOrNull(values.get("marketCap")?.[1]),
        volume: finiteOrNull(values.get("volume")?.[1]),
      });
    }
  }
  return charts;
}

function emitRows(out: ProviderOutput, charts: Map<string, Map<string, DayValues>>, byDay: Map<string, Map<string, Market>>): void {
  const rows = new Map<string, Map<string, SeriesRow>>();
  const rowFor = (id: string, day: string) => {
    let coin = rows.get(id);
    if (!coin) rows.set(id, (coin = new Map()));
    let row = coin.get(day);
    if (!row) {
      row = { entity_id: tokenKey(id), date: day, currentPrice: null, marketCap: null, totalVolume: null, circulatingSupply: null, totalSupply: null };
      coin.set(day, row);
    }
    return row;
  };
  for (const [id, chart] of charts) {
    for (const [day, v] of chart) {
      const row = rowFor(id, day);
      row.currentPrice = v.price;
      row.marketCap = v.marketCap;
      row.totalVolume = v.volume;
      row.circulatingSupply = v.price !== null && v.price > 0 && v.marketCap !== null ? v.marketCap / v.price : null;
    }
  }
  // A day's market snapshot: supply figures (the chart has none), and whatever the chart lacks.
  for (const [day, records] of byDay) {
    for (const m of records.values()) {
      const row = rowFor(m.id, day);
      row.currentPrice ??= finiteOrNull(m.current_price);
      row.marketCap ??= positiveOrNull(m.market_cap);
      row.totalVolume ??= finiteOrNull(m.total_volume);
      row.circulatingSupply = positiveOrNull(m.circulating_supply) ?? row.circulatingSupply ?? null;
      row.totalSupply = positiveOrNull(m.total_supply);
    }
  }
  for (const id of [...rows.keys()].sort()) {
    const coin = rows.get(id)!;
    for (const day of [...coin.keys()].sort()) out.row("token", coin.get(day)!);
  }
}

export const coingecko: Connector = {
  id: P,
  source: {
    id: P,
    name: "CoinGecko API v3",
    kind: "provider",
    synthetic: false,
    license: "CoinGecko API Terms of Service (attribution required)",
    attribution: "Price and market data by CoinGecko (https://www.coingecko.com).",
    homepage: "https://www.coingecko.com/en/api",
  },

  fetch: fetchAll,

  parse(raw, out) {
    try {
      parsePlatforms(raw, out);
      const { latest, byDay } = loadMarkets(raw, out);
      parseCoins(raw, out, latest, stablecoinIds(raw));
      emitRows(out, loadCharts(raw, out), byDay);
    } catch (error) {
      // A bug here must not stop the other providers' parse: reported like a bad record.
      out.reject("coingecko answers", `parse failed: ${(error as Error).message}`);
    }
  },
};
