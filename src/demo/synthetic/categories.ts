/**
 * @module demo/synthetic/categories
 * The DeFi sector mix of the synthetic world: each protocol category with its share of protocols,
 * the name suffixes it takes, what kind of pools it runs, and a sentence that says what it does
 * (used in descriptions, so free-text search finds "liquid staking on ethereum").
 */

export interface CategorySpec {
  name: string;
  /** Relative share of protocols in this category. */
  weight: number;
  suffixes: string[];
  /** A phrase completing "<Name> is ...". */
  what: string;
  /** Kinds of pools the category runs; empty when it runs none. */
  pools: ("amm" | "stable" | "concentrated" | "staking" | "vault" | "farm")[];
  /** Runs lending markets (supply/borrow per asset). */
  lending?: boolean;
  /** Typical TVL scale (median, USD) before the power-law spread. */
  tvlMedian: number;
}

export const CATEGORIES: CategorySpec[] = [
  { name: "Dexes", weight: 22, suffixes: ["Swap", "Exchange", "DEX", "Trade", "AMM"], what: "a decentralized exchange (DEX) where users swap tokens against automated market maker liquidity pools", pools: ["amm", "stable", "concentrated"], tvlMedian: 4e6 },
  { name: "Lending", weight: 9, suffixes: ["Lend", "Finance", "Money Market", "Credit", "Lending"], what: "a lending protocol: a money market where users supply assets to earn interest and borrow against collateral", pools: [], lending: true, tvlMedian: 8e6 },
  { name: "Liquid Staking", weight: 5, suffixes: ["Stake", "Staking", "Liquid"], what: "a liquid staking protocol that stakes the chain's native token and issues a liquid staking token (LST) earning validator rewards", pools: ["staking"], tvlMedian: 1.2e7 },
  { name: "Restaking", weight: 2, suffixes: ["Restake", "Restaking"], what: "a restaking protocol that lets staked assets secure additional services for extra yield", pools: ["staking"], tvlMedian: 1.5e7 },
  { name: "Bridge", weight: 5, suffixes: ["Bridge", "Portal", "Link", "Relay"], what: "a cross-chain bridge that moves tokens and messages between blockchains", pools: ["stable"], tvlMedian: 6e6 },
  { name: "CDP", weight: 3, suffixes: ["Vaults", "Mint", "Stable"], what: "a collateralized debt position (CDP) protocol that mints a stablecoin against deposited collateral", pools: [], lending: true, tvlMedian: 1e7 },
  { name: "Derivatives", weight: 7, suffixes: ["Perps", "Futures", "Derivatives", "Markets"], what: "a derivatives exchange for perpetual futures trading with leverage", pools: ["vault"], tvlMedian: 5e6 },
  { name: "Options", weight: 2, suffixes: ["Options", "Vol"], what: "an on-chain options protocol for buying and writing calls and puts", pools: ["vault"], tvlMedian: 2e6 },
  { name: "Yield", weight: 9, suffixes: ["Yield", "Farm", "Harvest", "Earn"], what: "a yield farming protocol that rewards liquidity providers with token incentives", pools: ["farm", "vault"], tvlMedian: 2e6 },
  { name: "Yield Aggregator", weight: 6, suffixes: ["Vaults", "Optimizer", "Auto", "Aggregator"], what: "a yield aggregator whose vaults auto-compound farming rewards across DeFi protocols", pools: ["vault"], tvlMedian: 3e6 },
  { name: "RWA", weight: 3, suffixes: ["RWA", "Treasury", "Credit"], what: "a real-world asset (RWA) protocol that brings tokenized treasuries and private credit on chain", pools: ["vault"], tvlMedian: 9e6 },
  { name: "Launchpad", weight: 3, suffixes: ["Pad", "Launch", "Starter"], what: "a launchpad where new token projects run public sales", pools: ["staking"], tvlMedian: 5e5 },
  { name: "NFT Marketplace", weight: 3, suffixes: ["Market", "NFT", "Gallery"], what: "an NFT marketplace for trading collectibles", pools: [], tvlMedian: 3e5 },
  { name: "Gaming", weight: 4, suffixes: ["Games", "Play", "Arena", "Quest"], what: "a blockchain gaming platform with play-to-earn rewards", pools: ["staking"], tvlMedian: 3e5 },
  { name: "Insurance", weight: 2, suffixes: ["Cover", "Shield", "Insurance"], what: "a decentralized insurance protocol covering smart contract risk", pools: ["staking"], tvlMedian: 1.5e6 },
  { name: "Algo-Stables", weight: 1, suffixes: ["Dollar", "Stable"], what: "an algorithmic stablecoin protocol", pools: ["stable"], tvlMedian: 2e6 },
  { name: "Payments", weight: 2, suffixes: ["Pay", "Payments"], what: "a crypto payments network for merchants and remittances", pools: [], tvlMedian: 4e5 },
  { name: "Prediction Market", weight: 2, suffixes: ["Predict", "Markets", "Odds"], what: "a prediction market where users trade on the outcome of events", pools: [], tvlMedian: 8e5 },
  { name: "Indexes", weight: 1, suffixes: ["Index", "Baskets"], what: "an index protocol issuing tokenized baskets of crypto assets", pools: ["vault"], tvlMedian: 1e6 },
  { name: "Services", weight: 5, suffixes: ["Labs", "Tools", "Services", "Hub"], what: "a DeFi infrastructure service providing tooling, automation and analytics", pools: [], tvlMedian: 3e5 },
  { name: "Oracle", weight: 1, suffixes: ["Oracle", "Feeds"], what: "a decentralized oracle network that delivers price feeds to smart contracts", pools: ["staking"], tvlMedian: 2e6 },
  { name: "Privacy", weight: 1, suffixes: ["Privacy", "Shield", "Mixer"], what: "a privacy protocol for shielded transfers", pools: [], tvlMedian: 5e5 },
  { name: "SoFi", weight: 1, suffixes: ["Social", "Friends"], what: "a social finance (SoFi) app where creators issue social tokens", pools: [], tvlMedian: 2e5 },
];

export function categorySpec(name: string): CategorySpec {
  const spec = CATEGORIES.find((c) => c.name === name);
  if (!spec) throw new Error(`unknown category ${name}`);
  return spec;
}
