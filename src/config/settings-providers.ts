/**
 * @module config/settings-providers
 * The ingest settings of the table in settings.ts: which providers `ckg ingest` reads and how much,
 * and each provider's hosts, keys and pace.
 */
import { z } from "zod";
import { PROVIDER_IDS } from "./providers.ts";
import { type Setting, setting } from "./setting.ts";

/** Blockscout's public instances by EVM chain id: Ethereum, Base, OP Mainnet, Arbitrum One, Gnosis, Polygon. */
const BLOCKSCOUT_INSTANCES =
  "1=https://eth.blockscout.com,8453=https://base.blockscout.com,10=https://optimism.blockscout.com,42161=https://arbitrum.blockscout.com,100=https://gnosis.blockscout.com,137=https://polygon.blockscout.com";

const providerList = z.string().refine(
  (text) => {
    const names = text.split(",").map((s) => s.trim());
    return names.length > 0 && names.every((n) => (PROVIDER_IDS as readonly string[]).includes(n));
  },
  { message: `a comma-separated list of ${PROVIDER_IDS.join(", ")}` },
);

/** `<chain id>=<url>` pairs, comma-separated. */
const instanceList = z.string().refine(
  (text) =>
    text.split(",").every((pair) => {
      const m = /^\s*(\d+)\s*=\s*(\S+)\s*$/.exec(pair);
      return m !== null && URL.canParse(m[2]!) && /^https?:$/.test(new URL(m[2]!).protocol);
    }),
  { message: "comma-separated <EVM chain id>=<explorer base URL> pairs, e.g. 1=https://eth.blockscout.com" },
);

export const PROVIDER_SETTINGS = {
  ingest_providers: setting("string", providerList, PROVIDER_IDS.join(","), "providers `ckg ingest` reads by default (comma-separated)"),
  ingest_detail_limit: setting(
    "integer",
    z.number().int().min(1).max(100_000),
    200,
    "most detail requests per provider list (protocol histories, treasuries, unlock schedules, coin charts, pool charts, governance spaces, GitHub orgs), largest first",
  ),
  defillama_url: setting("string", z.url(), "https://api.llama.fi", "DefiLlama API base URL (protocols with their raises, TVL, fees, treasuries, chains)"),
  defillama_yields_url: setting("string", z.url(), "https://yields.llama.fi", "DefiLlama yields API base URL (pools, lending)"),
  defillama_stablecoins_url: setting("string", z.url(), "https://stablecoins.llama.fi", "DefiLlama stablecoins API base URL"),
  defillama_datasets_url: setting("string", z.url(), "https://defillama-datasets.llama.fi", "DefiLlama datasets host (token unlock schedules, free)"),
  defillama_pro_url: setting("string", z.url(), "https://pro-api.llama.fi", "DefiLlama paid API base URL (the whole raises list and lending markets; used only with a key)"),
  defillama_api_key: setting("string", z.string().min(1).optional(), undefined, "DefiLlama paid API key (optional: adds every raise, not only the largest protocols')", { secret: true }),
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
  chainlist_url: setting("string", z.url(), "https://chainid.network", "chain list base URL (serves /chains.json, ethereum-lists/chains)"),
  snapshot_url: setting("string", z.url(), "https://hub.snapshot.org/graphql", "Snapshot governance GraphQL endpoint"),
  github_url: setting("string", z.url(), "https://api.github.com", "GitHub REST API base URL"),
  github_token: setting("string", z.string().min(1).optional(), undefined, "GitHub token (optional; raises the rate limit)", { secret: true }),
  blockscout_urls: setting("string", instanceList, BLOCKSCOUT_INSTANCES, "Blockscout explorers token holders are read from, as <EVM chain id>=<base URL> pairs (first listed chain first)"),
  blockscout_api_key: setting("string", z.string().min(1).optional(), undefined, "Blockscout API key (optional; sent as apikey, raises the rate limit)", { secret: true }),
  blockscout_tokens: setting("integer", z.number().int().min(0).max(10_000), 50, "largest tokens (by market cap) whose top holders are read each ingest"),
  blockscout_min_interval_ms: setting(
    "integer",
    z.number().int().min(0).max(60_000),
    250,
    "least time between two Blockscout requests (the public instances allow a few a second without a key)",
  ),
} as const satisfies Record<string, Setting>;
