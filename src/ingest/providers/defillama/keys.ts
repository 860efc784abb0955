/**
 * @module ingest/providers/defillama/keys
 * Keys and ids shared by DefiLlama's fetch and parse.
 */
import { defillamaProvider } from "../../../config/providers/defillama.ts";
import { slugify } from "../../../entities/vocabulary.ts";
import { key } from "../../records.ts";

export const P = defillamaProvider.id;
/**
 * Days before a protocol's cursor that are taken again. A day's fees and revenue are published
 * after the day while its TVL is there at once, so the last stored day has TVL but no fees yet;
 * taking the cursor's day (and the one before, for adapters that run late) again replaces those
 * rows whole with complete ones. Pools and stablecoins have no such lag.
 */
export const PROTOCOL_LOOKBACK_DAYS = 2;

export const protocolKey = (slug: string) => key("Protocol", P, slug);
export const chainKey = (name: string) => key("Chain", P, name);
export const poolKey = (uuid: string) => key("Pool", P, uuid);
export const marketKey = (uuid: string) => key("LendingMarket", P, uuid);
export const stablecoinKey = (id: string) => key("Token", "defillama-stablecoin", id);
export const investorKey = (name: string) => key("Organization", "defillama-investor", slugify(name));
export const geckoKey = (id: string) => key("Token", "coingecko", id);

/** DefiLlama's own slug of a name (utils/sluggify): lower case, spaces to dashes, no apostrophes. */
export function llamaSlug(name: string): string {
  return name.toLowerCase().split(" ").join("-").split("'").join("");
}
