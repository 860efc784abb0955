/**
 * The replay's wider CoinGecko catalogue: 138 real coins (their CoinGecko ids, names, tickers and
 * contracts) with records SHAPED blind (test/fixtures/shaped/coingecko-records.json: descriptions,
 * categories and homepages written in CoinGecko's manner by someone who never saw the search
 * evaluation set, so the set stays an honest test of search on an ingested world). Contracts come
 * from the labelled identities (test/ingest/identities.json, checked against the bundled token
 * lists) and, for a few coins outside it, from their public deployments. Market caps follow a
 * rough real order (the largest coins first) and are otherwise made up: they only rank the coins.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Coin } from "./cast.ts";

const FIXTURES = join(import.meta.dir, "..", "..");
const records = JSON.parse(readFileSync(join(FIXTURES, "fixtures", "shaped", "coingecko-records.json"), "utf8")) as Record<string, { name: string; symbol: string; categories: string[]; description: string; homepage: string }>;
const identities = JSON.parse(readFileSync(join(FIXTURES, "ingest", "identities.json"), "utf8")) as { coingecko_tokens: { id: string; ethereum: string }[] };

/** Contracts of coins the labelled identities do not hold (platform -> address). */
const MORE_CONTRACTS: Record<string, Record<string, string>> = {
  "pax-gold": { ethereum: "0x45804880de22913dafe09f4980848ece6ecbaf78" },
  "tether-gold": { ethereum: "0x68749665ff8d2d112fa859aa293f07a622782f38" },
  floki: { ethereum: "0xcf0c122c6b73ff809c693db761e7baebe62b6a2e" },
  "ripple-usd": { ethereum: "0x8292bb45bf1ee4d140127049757c2e0ff06317ed" },
  "ether-fi-staked-eth": { ethereum: "0x35fa164735182de50811e8e2e824cfb9b6118ac2" },
  bonk: { solana: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263" },
  dogwifcoin: { solana: "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm" },
};

/** The largest coins roughly in their real order; the rest follow in the records' order. */
const LARGEST = ["bitcoin", "ethereum", "tether", "ripple", "binancecoin", "solana", "usd-coin", "tron", "dogecoin", "cardano", "staked-ether", "wrapped-bitcoin", "hyperliquid", "chainlink", "wrapped-steth", "ethena-usde", "stellar", "sui", "avalanche-2", "wrapped-eeth", "hedera-hashgraph", "litecoin", "shiba-inu", "the-open-network", "polkadot", "dai", "uniswap", "aave", "bittensor", "near", "pepe", "ethena"];

const ethereumOf = new Map(identities.coingecko_tokens.map((t) => [t.id, t.ethereum]));
const ids = Object.keys(records);
const rank = new Map([...LARGEST, ...ids.filter((id) => !LARGEST.includes(id))].map((id, i) => [id, i + 1]));

export const CATALOGUE: Coin[] = ids.map((id) => {
  const r = records[id]!;
  const stable = r.categories.some((c) => /stablecoin/i.test(c));
  const price = stable ? 1 : 10;
  const marketCap = 1.5e12 / rank.get(id)! ** 1.3;
  const platforms = MORE_CONTRACTS[id] ?? (ethereumOf.has(id) ? { ethereum: ethereumOf.get(id)! } : undefined);
  return {
    id,
    symbol: r.symbol,
    name: r.name,
    address: platforms?.ethereum,
    platforms,
    supply: (marketCap / price) * 1.2,
    circulating: marketCap / price,
    price: () => price,
    categories: r.categories,
    description: r.description,
    homepage: r.homepage,
  };
});
