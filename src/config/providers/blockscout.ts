/**
 * @module config/providers/blockscout
 * Blockscout explorers (API v2) on several EVM chains: its id and settings.
 */
import { z } from "zod";
import { defineProvider } from "../provider.ts";
import { setting } from "../setting.ts";

/** Blockscout's public instances by EVM chain id: Ethereum, Base, OP Mainnet, Arbitrum One, Gnosis, Polygon. */
const PUBLIC_INSTANCES =
  "1=https://eth.blockscout.com,8453=https://base.blockscout.com,10=https://optimism.blockscout.com,42161=https://arbitrum.blockscout.com,100=https://gnosis.blockscout.com,137=https://polygon.blockscout.com";

/** `<chain id>=<url>` pairs, comma-separated. */
const instanceList = z.string().refine(
  (text) =>
    text.split(",").every((pair) => {
      const m = /^\s*(\d+)\s*=\s*(\S+)\s*$/.exec(pair);
      return m !== null && URL.canParse(m[2]!) && /^https?:$/.test(new URL(m[2]!).protocol);
    }),
  { message: "comma-separated <EVM chain id>=<explorer base URL> pairs, e.g. 1=https://eth.blockscout.com" },
);

export const blockscoutProvider = defineProvider({
  id: "blockscout",
  title: "Blockscout",
  settings: {
    blockscout_urls: setting("string", instanceList, PUBLIC_INSTANCES, "Blockscout explorers token holders are read from, as <EVM chain id>=<base URL> pairs (first listed chain first)"),
    blockscout_api_key: setting("string", z.string().min(1).optional(), undefined, "Blockscout API key (optional; sent as apikey, raises the rate limit)", { secret: true }),
    blockscout_tokens: setting("integer", z.number().int().min(0).max(10_000), 50, "largest tokens (by market cap) whose top holders are read each ingest"),
    blockscout_min_interval_ms: setting(
      "integer",
      z.number().int().min(0).max(60_000),
      250,
      "least time between two Blockscout requests (the public instances allow a few a second without a key)",
    ),
  },
});
