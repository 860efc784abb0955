/**
 * CoinGecko's API v3 as the replay serves it: recorded answers where one answers the request
 * (/asset_platforms, /coins/categories/list, the records of Bitcoin and Tether: coingecko_ruby, MIT,
 * read in place from ../shared/real-api/third-party/coingecko/ruby), shaped answers of the cast
 * otherwise. Where that folder is absent the shaped answers stand in for the recorded ones too (the
 * platforms of test/ingest/fixtures, the cast's categories, Bitcoin's and Tether's shaped records).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { haveRecording, readRecording } from "../shared-recordings.ts";
import { AS_OF, COINS, type Coin, RUBY, coin, daysBetween, unix, wobble } from "./cast.ts";

const recordedCoingecko = (name: string): unknown => readRecording(`${RUBY}/${name}`);
const SHAPED_PLATFORMS = join(import.meta.dir, "..", "..", "ingest", "fixtures", "coingecko", "asset_platforms.json");
const platforms = () => (haveRecording(`${RUBY}/asset_platforms.json`) ? recordedCoingecko("asset_platforms.json") : JSON.parse(readFileSync(SHAPED_PLATFORMS, "utf8")));

/** A coin's figures on a day: price, market cap and volume as the markets answer gives them. */
function market(c: Coin, day: string) {
  const price = c.price(day);
  return {
    id: c.id,
    symbol: c.symbol,
    name: c.name,
    current_price: price,
    market_cap: price * c.circulating,
    total_volume: price * c.circulating * 0.02 * (1 + 0.2 * wobble(`${c.id} volume`, day)),
    circulating_supply: c.circulating,
    total_supply: c.supply,
  };
}

/** Categories the cast's records name that the recorded (2021) categories list does not: CoinGecko added them since. */
function categoriesList(): unknown[] {
  const recorded = (haveRecording(`${RUBY}/categories_list.json`) ? recordedCoingecko("categories_list.json") : []) as { category_id: string; name: string }[];
  const known = new Set(recorded.map((c) => c.name));
  const added = [...new Set(COINS.flatMap((c) => c.categories))].filter((name) => !known.has(name));
  return [...recorded, ...added.map((name) => ({ category_id: name.toLowerCase().replace(/[^a-z0-9]+/g, "-"), name }))];
}

function record(c: Coin, day: string): unknown {
  if (c.recorded) return recordedCoingecko(c.recorded);
  const venues = c.tickers ?? [
    { exchange: "binance", name: "Binance", target: "USDT", spread: 0.02, volume: 40e6 },
    { exchange: "gdax", name: "Coinbase Exchange", target: "USD", spread: 0.03, volume: 25e6 },
    { exchange: "kraken", name: "Kraken", target: "USD", spread: 0.05, volume: 8e6 },
  ];
  return {
    id: c.id,
    symbol: c.symbol,
    name: c.name,
    asset_platform_id: c.address ? "ethereum" : null,
    platforms: c.platforms ?? (c.address ? { ethereum: c.address } : { "": "" }),
    categories: c.categories,
    description: { en: c.description },
    links: { homepage: [c.homepage, "", ""] },
    tickers: venues.map((v) => ({
      base: c.symbol.toUpperCase(),
      target: v.target,
      market: { name: v.name, identifier: v.exchange, has_trading_incentive: false },
      last: c.price(day),
      volume: v.volume / c.price(day),
      converted_volume: { usd: v.volume },
      trust_score: "green",
      bid_ask_spread_percentage: v.spread,
      timestamp: `${day}T12:00:00+00:00`,
      is_anomaly: false,
      is_stale: false,
      coin_id: c.id,
    })),
  };
}

/** Daily points of a coin's chart between two unix seconds (the day's 12:00 UTC point). */
function chart(c: Coin, from: number, to: number): unknown {
  const first = new Date(Math.max(from, unix("2024-01-01")) * 1000).toISOString().slice(0, 10);
  const last = new Date(Math.min(to, unix(AS_OF) + 86_399) * 1000).toISOString().slice(0, 10);
  const days = first <= last ? daysBetween(first, last).filter((d) => unix(d) + 43_200 >= from && unix(d) + 43_200 <= to) : [];
  const at = (d: string) => (unix(d) + 43_200) * 1000;
  return {
    prices: days.map((d) => [at(d), market(c, d).current_price]),
    market_caps: days.map((d) => [at(d), market(c, d).market_cap]),
    total_volumes: days.map((d) => [at(d), market(c, d).total_volume]),
  };
}

/** CoinGecko's answer to a path under /api/v3 on `day`, or undefined (404). */
export function coingeckoAnswer(path: string, q: URLSearchParams, day: string): unknown {
  if (path === "/asset_platforms") return platforms();
  if (path === "/coins/categories/list") return categoriesList();
  if (path === "/coins/list") return COINS.map((c) => ({ id: c.id, symbol: c.symbol, name: c.name, platforms: c.platforms ?? (c.address ? { ethereum: c.address } : {}) }));
  if (path === "/coins/markets") {
    if (q.get("page") !== "1") return [];
    const list = q.get("category") === "stablecoins" ? COINS.filter((c) => c.categories.some((x) => /stablecoin/i.test(x)) || c.id === "tether") : COINS;
    return list
      .map((c) => market(c, day))
      .sort((a, b) => b.market_cap - a.market_cap)
      .map((m, i) => ({ ...m, market_cap_rank: i + 1 }));
  }
  const chartPath = /^\/coins\/([^/]+)\/market_chart\/range$/.exec(path);
  if (chartPath) {
    const c = COINS.find((x) => x.id === decodeURIComponent(chartPath[1]!));
    return c ? chart(c, Number(q.get("from")), Math.min(Number(q.get("to")), unix(day) + 86_399)) : undefined;
  }
  const recordPath = /^\/coins\/([^/]+)$/.exec(path);
  if (recordPath) {
    const c = COINS.find((x) => x.id === decodeURIComponent(recordPath[1]!));
    return c ? record(c, day) : undefined;
  }
  return undefined;
}
