/**
 * @module config/providers/coingecko
 * CoinGecko (API v3, free, demo or pro): its id and settings.
 */
import { z } from "zod";
import { defineProvider } from "../provider.ts";
import { setting } from "../setting.ts";

export const coingeckoProvider = defineProvider({
  id: "coingecko",
  title: "CoinGecko",
  settings: {
    coingecko_url: setting("string", z.url(), "https://api.coingecko.com/api/v3", "CoinGecko API base URL (https://pro-api.coingecko.com/api/v3 with a pro key)"),
    coingecko_api_key: setting("string", z.string().min(1).optional(), undefined, "CoinGecko API key (demo or pro; optional)", { secret: true }),
    coingecko_min_interval_ms: setting(
      "integer",
      z.number().int().min(0).max(60_000),
      2500,
      "least time between two CoinGecko requests (the free tier allows about 30 a minute)",
    ),
    coingecko_details_limit: setting(
      "integer",
      z.number().int().min(0).max(100_000),
      100,
      "largest coins whose CoinGecko record is read each ingest (description, categories, exchange listings and spreads)",
    ),
  },
});
