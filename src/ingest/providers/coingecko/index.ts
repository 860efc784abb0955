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
 * - `/coins/categories/list` -> `categories/<day>`: the category names (a coin's record also
 *   carries translated duplicates, which are left out).
 * - `/coins/{id}` with its tickers for the `coingecko_details_limit` largest coins ->
 *   `coin/<id>/<day>`: description, categories and homepage of the coin, and its listings (exchange,
 *   pair, spread, volume) for the `listings` series and `listedOn` links.
 *
 * Lists and market pages are keyed by the day they were asked on, so a killed run resumes without
 * asking again and the next day's run asks afresh; parse uses the latest lists and every saved day.
 * Parse merges every saved chart answer of a coin by day (later answers win), keeping only the days
 * of the range each was asked for; a day's market snapshot supplies the supply figures a chart lacks.
 */
import { coingeckoProvider } from "../../../config/providers/coingecko.ts";
import { defineConnector } from "../../connector.ts";
import { fetchAll } from "./fetch.ts";
import { loadMarkets, stablecoinIds } from "./markets.ts";
import { emitRows, loadCharts } from "./parse-charts.ts";
import { parseCoins, parsePlatforms } from "./parse-coins.ts";
import { parseDetails } from "./parse-details.ts";

export const coingecko = defineConnector(coingeckoProvider, {
  source: {
    name: "CoinGecko API v3",
    license: "CoinGecko API Terms of Service (attribution required)",
    attribution: "Price and market data by CoinGecko (https://www.coingecko.com).",
    homepage: "https://www.coingecko.com/en/api",
  },
  configure: (settings) => ({
    settings: { urls: { api: settings.coingecko_url }, apiKey: settings.coingecko_api_key, limits: { details: settings.coingecko_details_limit } },
    minIntervalMs: settings.coingecko_min_interval_ms,
  }),

  fetch: fetchAll,

  parse(raw, out) {
    try {
      parsePlatforms(raw, out);
      const { latest, byDay } = loadMarkets(raw, out);
      parseCoins(raw, out, latest, stablecoinIds(raw), parseDetails(raw, out));
      emitRows(out, loadCharts(raw, out), byDay);
    } catch (error) {
      // A bug here must not stop the other providers' parse: reported like a bad record.
      out.reject("coingecko answers", `parse failed: ${(error as Error).message}`);
    }
  },
});
