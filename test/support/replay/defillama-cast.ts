/**
 * The replay's DefiLlama cast: protocols and their families, raises, histories (TVL, fees, revenue),
 * treasuries, pools and lending markets, stablecoins and unlock schedules, all SHAPED (real names,
 * ids and slugs; figures written to give each type something to find).
 */
import { AS_OF, offset, wobble } from "./cast.ts";

export interface CastProtocol {
  id: string;
  name: string;
  slug: string;
  category: string;
  chains: string[];
  tvl: number;
  symbol?: string;
  parentProtocol?: string;
  parentProtocolSlug?: string;
  gecko_id?: string | null;
  address?: string | null;
  github?: string[];
  governanceID?: string[];
  treasury?: string;
  url: string;
  description: string;
}

/** Protocols the recorded list (shared/real-api/defillama/protocols.json) carries: used only when it is absent. */
export const RECORDED_FALLBACK: CastProtocol[] = [
  { id: "182", name: "Lido", slug: "lido", category: "Liquid Staking", chains: ["Ethereum"], tvl: 16.9e9, symbol: "LDO", gecko_id: "lido-dao", address: "0x5a98fcbea516cf06857215779fd812ca3bef1b32", governanceID: ["snapshot:lido-snapshot.eth"], github: ["lidofinance"], treasury: "lido.js", url: "https://lido.fi", description: "Liquid staking for Ethereum." },
  { id: "1599", name: "Aave V3", slug: "aave-v3", category: "Lending", chains: ["Ethereum"], tvl: 13.6e9, symbol: "AAVE", parentProtocol: "parent#aave", parentProtocolSlug: "aave", address: "0x7fc66500c84a76ad7e9c93437bfc5ac33e2ddae9", url: "https://aave.com", description: "Earn interest, borrow assets, and build applications." },
  { id: "118", name: "Sky Lending", slug: "sky-lending", category: "CDP", chains: ["Ethereum"], tvl: 5.9e9, symbol: "SKY", parentProtocol: "parent#maker", parentProtocolSlug: "sky", url: "https://sky.money", description: "Sky (formerly MakerDAO) lets users borrow USDS and DAI against collateral." },
];

export const CAST_PROTOCOLS: CastProtocol[] = [
  { id: "2198", name: "Uniswap V3", slug: "uniswap-v3", category: "Dexes", chains: ["Ethereum", "Arbitrum", "Base"], tvl: 4.2e9, symbol: "UNI", parentProtocol: "parent#uniswap", parentProtocolSlug: "uniswap", github: ["Uniswap"], governanceID: ["snapshot:uniswapgovernance.eth"], url: "https://uniswap.org", description: "A fully decentralized protocol for automated liquidity provision on Ethereum, with concentrated liquidity." },
  { id: "1", name: "Uniswap V2", slug: "uniswap-v2", category: "Dexes", chains: ["Ethereum"], tvl: 1.5e9, symbol: "UNI", parentProtocol: "parent#uniswap", parentProtocolSlug: "uniswap", github: ["Uniswap"], url: "https://uniswap.org", description: "The second version of the Uniswap automated market maker." },
  { id: "2742", name: "Compound V3", slug: "compound-v3", category: "Lending", chains: ["Ethereum", "Base"], tvl: 2.6e9, symbol: "COMP", parentProtocol: "parent#compound-finance", parentProtocolSlug: "compound-finance", github: ["compound-finance"], url: "https://compound.finance", description: "Compound III lends one borrowable asset against collateral in each market." },
  { id: "4067", name: "dYdX V4", slug: "dydx-v4", category: "Derivatives", chains: ["dYdX"], tvl: 300e6, symbol: "DYDX", parentProtocol: "parent#dydx", parentProtocolSlug: "dydx", github: ["dydxprotocol"], url: "https://dydx.exchange", description: "A decentralized exchange for perpetual futures on its own chain." },
];

export const PARENTS = [
  { id: "parent#uniswap", name: "Uniswap", gecko_id: "uniswap", address: "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984", symbol: "UNI", treasury: "uniswap.js", governanceID: ["snapshot:uniswapgovernance.eth"], url: "https://uniswap.org", description: "Uniswap is a decentralized exchange protocol.", chains: ["Ethereum"] },
  { id: "parent#compound-finance", name: "Compound Finance", gecko_id: "compound-governance-token", address: "0xc00e94cb662c3520282e6f5717214004a7f26888", symbol: "COMP", url: "https://compound.finance", description: "Compound money markets.", chains: ["Ethereum"] },
  { id: "parent#dydx", name: "dYdX", gecko_id: "dydx", address: "0x92d6c1e31e14520e676a687f0a93788b716beff5", symbol: "DYDX", url: "https://dydx.exchange", description: "The dYdX derivatives exchanges.", chains: ["Ethereum"] },
  { id: "parent#aave", name: "AAVE", gecko_id: "aave", address: "0x7fc66500c84a76ad7e9c93437bfc5ac33e2ddae9", symbol: "AAVE", treasury: "aave.js", url: "https://aave.com", description: "Aave lending markets.", chains: ["Ethereum"] },
  { id: "parent#maker", name: "Sky", gecko_id: "maker", address: "0x9f8f72aa9304c8b593d555f12ef6589cc3a579a2", symbol: "MKR", url: "https://sky.money", description: "Sky, formerly MakerDAO.", chains: ["Ethereum"] },
  { id: "parent#morpho", name: "Morpho", url: "https://morpho.org", description: "Morpho lending.", chains: ["Ethereum"] },
  { id: "parent#layerzero", name: "LayerZero", url: "https://layerzero.network", description: "LayerZero messaging.", chains: ["Ethereum"] },
  { id: "parent#hyperliquid", name: "Hyperliquid", url: "https://hyperliquid.xyz", description: "Hyperliquid.", chains: ["Hyperliquid L1"] },
];

/** Funding rounds in DefiLlama's shape (amount in millions), by the slug whose history lists them. */
const raise = (date: string, name: string, round: string, amount: number, lead: string[], others: string[], defillamaId: string) => ({
  date: Date.parse(`${date}T00:00:00Z`) / 1000,
  name,
  round,
  amount,
  chains: ["Ethereum"],
  sector: name,
  category: "DeFi",
  categoryGroup: "DeFi & CeFi",
  source: `https://example.org/raises/${encodeURIComponent(name.toLowerCase())}`,
  leadInvestors: lead,
  otherInvestors: others,
  valuation: null,
  defillamaId,
});
const UNISWAP = [
  raise("2020-08-07", "Uniswap", "Series A", 11, ["a16z crypto"], ["Paradigm", "Union Square Ventures", "SV Angel"], "parent#uniswap"),
  raise("2022-10-13", "Uniswap", "Series B", 165, ["Polychain Capital"], ["a16z crypto", "Paradigm", "SV Angel"], "parent#uniswap"),
];
export const RAISES: Record<string, ReturnType<typeof raise>[]> = {
  "uniswap-v3": UNISWAP,
  "uniswap-v2": UNISWAP,
  "compound-v3": [raise("2019-11-14", "Compound", "Series A", 25, ["a16z crypto"], ["Bain Capital Ventures", "Polychain Capital", "Paradigm", "Coinbase Ventures"], "parent#compound-finance")],
  "dydx-v4": [
    raise("2021-01-19", "dYdX", "Series B", 10, ["Three Arrows Capital", "DeFiance Capital"], ["a16z crypto", "Polychain Capital", "Paradigm"], "parent#dydx"),
    raise("2021-06-29", "dYdX", "Series C", 65, ["Paradigm"], ["a16z crypto", "Polychain Capital", "Three Arrows Capital", "Delphi Digital"], "parent#dydx"),
  ],
  "sky-lending": [raise("2018-09-24", "MakerDAO", "Strategic", 15, ["a16z crypto"], ["Polychain Capital", "Paradigm", "Dragonfly"], "parent#maker")],
  "aave-v3": [
    raise("2020-07-15", "Aave", "Strategic", 3, ["Three Arrows Capital", "Framework Ventures"], ["ParaFi Capital"], "parent#aave"),
    raise("2020-10-26", "Aave", "Strategic", 25, ["Blockchain Capital"], ["Standard Crypto", "Framework Ventures"], "parent#aave"),
  ],
  lido: [
    raise("2020-12-17", "Lido", "Seed", 2, ["Paradigm"], ["Three Arrows Capital", "Framework Ventures", "ParaFi Capital"], "182"),
    raise("2022-03-03", "Lido", "Strategic", 70, ["Paradigm"], ["Dragonfly"], "182"),
  ],
};

/** Daily TVL, fees and revenue of a protocol, USD. */
export function figures(slug: string, day: string): { tvl: number; fees: number | null; revenue: number | null } | undefined {
  const t = offset(day);
  const w = (k: string) => 1 + 0.03 * wobble(`${slug} ${k}`, day);
  switch (slug) {
    case "uniswap-v3":
      // Revenue rising through the 90 days before the last 30, then jumping; fees up in the last week.
      return { tvl: 4.2e9 * w("tvl"), fees: (t > -7 ? 1.8e6 : 1.2e6) * w("fees"), revenue: (t > -30 ? 250_000 : t > -120 ? 80_000 + (40_000 * (t + 120)) / 90 : 80_000) * w("revenue") };
    case "uniswap-v2":
      return { tvl: 1.5e9 * w("tvl"), fees: 300_000 * w("fees"), revenue: 0 };
    case "compound-v3":
      return { tvl: 2.6e9 * w("tvl"), fees: 60_000 * w("fees"), revenue: 20_000 * w("revenue") };
    case "dydx-v4":
      return { tvl: 300e6 * w("tvl"), fees: 200_000 * w("fees"), revenue: 200_000 * w("revenue") };
    case "lido":
      return { tvl: 17e9 * w("tvl"), fees: 2.5e6 * w("fees"), revenue: 250_000 * w("revenue") };
    case "aave-v3":
      return { tvl: 13.6e9 * w("tvl"), fees: 1.5e6 * w("fees"), revenue: 300_000 * w("revenue") };
    case "sky-lending":
      return { tvl: 5.9e9 * w("tvl"), fees: 500_000 * w("fees"), revenue: 500_000 * w("revenue") };
    default:
      return undefined;
  }
}

export interface CastPool {
  pool: string;
  project: string;
  symbol: string;
  chain: string;
  underlying: string[];
  values: (day: string) => { tvlUsd: number; apyBase: number; apyReward: number };
}

const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";
const USDE = "0x4c9edd5852cd905f086c759e8383e09bff1e68b3";
export const POOLS: CastPool[] = [
  // Compound V3 pays out more in rewards than it earns, more so each month.
  { pool: "7da72d09-56ca-4ec5-a45f-59114353e487", project: "compound-v3", symbol: "USDC", chain: "Ethereum", underlying: [USDC], values: (d) => ({ tvlUsd: 500e6, apyBase: 0.5, apyReward: 3 + 1.5 * Math.min(1, Math.max(0, (offset(d) + 60) / 60)) }) },
  { pool: "0c8567f8-ba5b-41ad-80de-00a71895eb19", project: "compound-v3", symbol: "WETH", chain: "Ethereum", underlying: [WETH], values: () => ({ tvlUsd: 300e6, apyBase: 0.8, apyReward: 3 }) },
  // Uniswap V3's USDC-WETH pool: its fee yield triples on the last day.
  { pool: "747c1d2a-c668-4682-b9f9-296708a3dd90", project: "uniswap-v3", symbol: "USDC-WETH", chain: "Ethereum", underlying: [USDC, WETH], values: (d) => ({ tvlUsd: 150e6, apyBase: offset(d) === 0 ? 36 : 12 * (1 + 0.05 * wobble("uni pool", d)), apyReward: 0 }) },
  { pool: "aa70268e-4b52-42bf-a116-608b370f9501", project: "aave-v3", symbol: "USDC", chain: "Ethereum", underlying: [USDC], values: () => ({ tvlUsd: 3e9, apyBase: 4.2, apyReward: 0 }) },
  { pool: "e880e828-ca59-4ec6-8d4f-27182a4dc23d", project: "aave-v3", symbol: "USDE", chain: "Ethereum", underlying: [USDE], values: () => ({ tvlUsd: 60e6, apyBase: 6, apyReward: 0 }) },
  { pool: "b3f1302b-4d1e-4e6b-8d3a-7a1a8c8f6f0a", project: "lido", symbol: "STETH", chain: "Ethereum", underlying: [WETH], values: () => ({ tvlUsd: 17e9, apyBase: 2.9, apyReward: 0 }) },
];

/** Lending markets (lendBorrow) on the pools above: Aave V3's USDC nearly all borrowed, its USDe near its debt ceiling. */
export const LENDING = [
  { pool: "aa70268e-4b52-42bf-a116-608b370f9501", totalSupplyUsd: 3e9, totalBorrowUsd: 2.79e9, apyBaseBorrow: 5.6, apyRewardBorrow: 0, debtCeilingUsd: null },
  { pool: "e880e828-ca59-4ec6-8d4f-27182a4dc23d", totalSupplyUsd: 60e6, totalBorrowUsd: 47.6e6, apyBaseBorrow: 8, apyRewardBorrow: 0, debtCeilingUsd: 50e6 },
  { pool: "7da72d09-56ca-4ec5-a45f-59114353e487", totalSupplyUsd: 500e6, totalBorrowUsd: 350e6, apyBaseBorrow: 5, apyRewardBorrow: 1, debtCeilingUsd: null },
];

export interface CastStablecoin {
  id: string;
  name: string;
  symbol: string;
  gecko_id: string;
  pegMechanism: string;
  description: string;
  price: (day: string) => number;
  circulating: (day: string) => number;
}
export const STABLECOINS: CastStablecoin[] = [
  { id: "1", name: "Tether", symbol: "USDT", gecko_id: "tether", pegMechanism: "fiat-backed", description: "Tether tokens are backed by Tether's reserves.", price: () => 1.0002, circulating: () => 180e9 },
  { id: "2", name: "USD Coin", symbol: "USDC", gecko_id: "usd-coin", pegMechanism: "fiat-backed", description: "USDC is issued by Circle and redeemable one to one for US dollars.", price: () => 0.9999, circulating: () => 75e9 },
  { id: "146", name: "Ethena USDe", symbol: "USDe", gecko_id: "ethena-usde", pegMechanism: "crypto-backed", description: "USDe is a synthetic dollar backed by delta-hedged staked ether and bitcoin positions.", price: (d) => (offset(d) === 0 ? 0.984 : 0.9995), circulating: () => 6e9 },
  // PayPal USD mints fast in the last week.
  { id: "120", name: "PayPal USD", symbol: "PYUSD", gecko_id: "paypal-usd", pegMechanism: "fiat-backed", description: "PayPal USD is issued by Paxos for PayPal and backed by dollar deposits and treasuries.", price: () => 1.0, circulating: (d) => (offset(d) > -7 ? 1.0e9 + 0.04e9 * (offset(d) + 7) : 1.0e9) },
];

/** Unlock schedules (datasets host), by slug: a cliff of each within the 30 days after AS_OF. */
export const SCHEDULES: Record<string, { token: string; name: string; label: string; category: string; cliffDay: number; amount: number; before: number; maxSupply: number }> = {
  dydx: { token: "dydx", name: "dYdX", label: "Investors", category: "privateSale", cliffDay: 10, amount: 56e6, before: 300e6, maxSupply: 1e9 },
  "compound-finance": { token: "compound-governance-token", name: "Compound", label: "Team", category: "insiders", cliffDay: 20, amount: 540e3, before: 2.2e6, maxSupply: 10e6 },
};
