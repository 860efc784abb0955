/**
 * @module ingest/providers/coingecko/keys
 * Keys of CoinGecko's records, and the names its answers are saved under.
 */
import { coingeckoProvider } from "../../../config/providers/coingecko.ts";
import { key } from "../../records.ts";

export const P = coingeckoProvider.id;

export const tokenKey = (id: string) => key("Token", "coingecko", id);
export const chainKey = (id: string) => key("Chain", "coingecko", id);

export const isDay = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s) && Number.isFinite(Date.parse(`${s}T00:00:00Z`));

/** Chart key segments: `market_chart/<id>/<from>_<to>` (the id percent-encoded, as in the URL). */
export function chartKey(id: string, from: string, to: string): string {
  return `market_chart/${encodeURIComponent(id)}/${from}_${to}`;
}

export function parseChartKey(k: string): { id: string; from: string; to: string } | undefined {
  const m = /^market_chart\/([^/]+)\/(\d{4}-\d{2}-\d{2})_(\d{4}-\d{2}-\d{2})$/.exec(k);
  if (!m) return undefined;
  try {
    return { id: decodeURIComponent(m[1]!), from: m[2]!, to: m[3]! };
  } catch {
    return undefined;
  }
}
