/**
 * The cast of the provider replay: real entities (their real names, CoinGecko and DefiLlama ids,
 * Ethereum contracts and GitHub organizations) whose figures are SHAPED, written here in the
 * providers' answer shapes (test/fixtures/SOURCES.md says so), so that each signal type a free
 * source feeds has something to find on a real entity. Every figure is a function of the day, so
 * an answer "as of" any day is the same however often it is asked: histories grow a day at a time.
 *
 * The replay's days run up to AS_OF; the scan reads the data as of AS_OF.
 */
import { addDays } from "../../../src/time.ts";
import { haveRecording } from "../shared-recordings.ts";
import { CATALOGUE } from "./catalogue.ts";

/** CoinGecko answers recorded by coingecko_ruby (MIT), read in place under ../shared/real-api. */
export const RUBY = "third-party/coingecko/ruby";

export const AS_OF = "2026-11-20";
/** Days before AS_OF (negative) or after (positive). */
export const offset = (day: string) => Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${AS_OF}T00:00:00Z`)) / 86_400_000);
export const unix = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;
/** Every day from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) out.push(day);
  return out;
}
/** A small deterministic wobble in -1..1 (the same for the same key and day). */
export function wobble(key: string, day: string): number {
  let h = 2166136261;
  for (const ch of `${key}|${day}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return ((h >>> 0) % 2001) / 1000 - 1;
}

export interface Coin {
  id: string;
  symbol: string;
  name: string;
  /** Ethereum contract (none for a chain's own coin). */
  address?: string;
  /** Contracts by CoinGecko platform (default: the Ethereum one). */
  platforms?: Record<string, string>;
  supply: number;
  circulating: number;
  price: (day: string) => number;
  categories: string[];
  description: string;
  homepage: string;
  /** Exchanges and pairs it trades on, with the spread, % (the rest of the tickers are CoinGecko's large venues). */
  tickers?: { exchange: string; name: string; target: string; spread: number; volume: number }[];
  /** A CoinGecko record recorded from the real API serves instead of a shaped one (RUBY, where it is there). */
  recorded?: string;
}

const flat = (value: number, drift = 0.01) => (day: string) => value * (1 + drift * wobble("price", day));

const CAST: Coin[] = [
  { id: "bitcoin", symbol: "btc", name: "Bitcoin", supply: 21e6, circulating: 19.9e6, price: flat(91_000), categories: [], description: "", homepage: "", recorded: "coin_bitcoin.json" },
  { id: "ethereum", symbol: "eth", name: "Ethereum", supply: 120.5e6, circulating: 120.5e6, price: flat(3_100), categories: ["Smart Contract Platform", "Layer 1 (L1)"], description: "Ethereum is a decentralized smart contract platform and the native coin, ether, pays for its computation.", homepage: "https://ethereum.org" },
  { id: "tether", symbol: "usdt", name: "Tether", address: "0xdac17f958d2ee523a2206206994597c13d831ec7", supply: 180e9, circulating: 180e9, price: flat(1, 0.0005), categories: [], description: "", homepage: "", recorded: "coin_tether_by_contract.json" },
  { id: "usd-coin", symbol: "usdc", name: "USDC", address: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", supply: 75e9, circulating: 75e9, price: flat(1, 0.0005), categories: ["Stablecoins", "USD Stablecoin"], description: "USDC is a fully reserved US dollar stablecoin issued by Circle.", homepage: "https://www.circle.com/usdc" },
  { id: "uniswap", symbol: "uni", name: "Uniswap", address: "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984", supply: 1e9, circulating: 630e6, price: flat(7.5), categories: ["Decentralized Exchange (DEX)", "Governance"], description: "UNI is the governance token of the Uniswap decentralized exchange protocol.", homepage: "https://uniswap.org" },
  { id: "aave", symbol: "aave", name: "Aave", address: "0x7fc66500c84a76ad7e9c93437bfc5ac33e2ddae9", supply: 16e6, circulating: 15.2e6, price: flat(180), categories: ["Lending/Borrowing", "Governance"], description: "AAVE governs the Aave lending protocol and backs its safety module.", homepage: "https://aave.com" },
  { id: "lido-dao", symbol: "ldo", name: "Lido DAO", address: "0x5a98fcbea516cf06857215779fd812ca3bef1b32", supply: 1e9, circulating: 895e6, price: flat(1.1), categories: ["Liquid Staking", "Governance"], description: "LDO governs Lido, the liquid staking protocol for ether.", homepage: "https://lido.fi" },
  { id: "compound-governance-token", symbol: "comp", name: "Compound", address: "0xc00e94cb662c3520282e6f5717214004a7f26888", supply: 10e6, circulating: 9e6, price: flat(45), categories: ["Lending/Borrowing", "Governance"], description: "COMP governs the Compound money markets.", homepage: "https://compound.finance" },
  { id: "maker", symbol: "mkr", name: "Maker", address: "0x9f8f72aa9304c8b593d555f12ef6589cc3a579a2", supply: 870e3, circulating: 870e3, price: flat(1_500), categories: ["Governance"], description: "MKR governs the Maker protocol, issuer of the DAI stablecoin.", homepage: "https://makerdao.com" },
  { id: "dydx", symbol: "dydx", name: "dYdX", address: "0x92d6c1e31e14520e676a687f0a93788b716beff5", supply: 1e9, circulating: 700e6, price: flat(0.6), categories: ["Derivatives", "Governance"], description: "DYDX governs the dYdX perpetuals exchange.", homepage: "https://dydx.exchange" },
  { id: "ethena-usde", symbol: "usde", name: "Ethena USDe", address: "0x4c9edd5852cd905f086c759e8383e09bff1e68b3", supply: 6e9, circulating: 6e9, price: (day) => (offset(day) === 0 ? 0.984 : 0.9995), categories: ["Stablecoins", "USD Stablecoin"], description: "USDe is a synthetic dollar from Ethena, backed by hedged crypto positions.", homepage: "https://ethena.fi" },
  {
    id: "alchemix",
    symbol: "alcx",
    name: "Alchemix",
    address: "0xdbdb4d16eda451d0503b854cf79d55697f90c8df",
    supply: 3e6,
    circulating: 2.4e6,
    price: flat(9),
    categories: ["Lending/Borrowing"],
    description: "ALCX governs Alchemix, self-repaying loans against yield-bearing collateral.",
    homepage: "https://alchemix.fi",
    tickers: [
      { exchange: "uniswap_v3", name: "Uniswap V3 (Ethereum)", target: "WETH", spread: 3.2, volume: 140_000 },
      { exchange: "sushiswap", name: "Sushiswap", target: "WETH", spread: 4.1, volume: 20_000 },
    ],
  },
];

/**
 * The cast, then the rest of the catalogue. A coin in both keeps the cast's figures (the signals
 * rest on them) and takes the catalogue's blind description and categories (search rests on them).
 */
export const COINS: Coin[] = [
  ...CAST.map((c) => {
    const blind = CATALOGUE.find((x) => x.id === c.id);
    // Without its recording (a clone without ../shared) a recorded coin is shaped like the others.
    const recorded = c.recorded && haveRecording(`${RUBY}/${c.recorded}`) ? c.recorded : undefined;
    return blind && !recorded ? { ...c, recorded, description: blind.description, categories: blind.categories, homepage: blind.homepage } : { ...c, recorded };
  }),
  ...CATALOGUE.filter((x) => !CAST.some((c) => c.id === x.id)),
];

export const coin = (id: string) => COINS.find((c) => c.id === id)!;
