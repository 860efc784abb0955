/**
 * @module signals/sources
 * The provider requests that feed signal types, named once: each detector's `realData.sources`
 * lists them, and the catalog and docs/guide/signals.md show them.
 */
export const SOURCES = {
  DL_RAISES: "DefiLlama /protocol/{slug} (each large protocol's own raises, free) and /raises (every raise, paid plan)",
  DL_CATEGORY: "DefiLlama /protocols (categories)",
  DL_POOLS: "DefiLlama yields /pools and /chart/{pool}",
  DL_LEND: "DefiLlama yields /lendBorrow (listed among the paid endpoints, answered without a key; /yields/poolsBorrow with a key)",
  DL_FEES: "DefiLlama /summary/fees/{slug} (daily fees and revenue)",
  DL_TVL: "DefiLlama /protocol/{slug} (TVL)",
  DL_STABLE: "DefiLlama stablecoins /stablecoins and /stablecoin/{id}",
  DL_TREASURY: "DefiLlama /treasury/{slug}",
  DL_UNLOCKS: "DefiLlama datasets /emissionsProtocolsList and /emissions/{slug} (unlock schedules, free)",
  CG_MARKETS: "CoinGecko /coins/markets and /coins/{id}/market_chart/range",
  CG_TICKERS: "CoinGecko /coins/{id} (its tickers: exchanges, pairs, spreads, volumes)",
  BS_HOLDERS: "Blockscout /api/v2/tokens/{address}/holders (top holders, kept daily by ckg)",
  GH: "GitHub /orgs/{org}/repos and /repos/{owner}/{repo}/contributors (organizations named by DefiLlama /protocols)",
  SNAP: "Snapshot hub GraphQL (spaces, proposals with their tallies)",
  SIGNALS: "the other types' signals",
} as const;
