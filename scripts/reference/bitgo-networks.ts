/**
 * How @bitgo/statics coin families map to chain keys.
 *
 * BitGo describes every network it supports as a "coin family" (btc, sol,
 * trx, ...). EVM families carry a numeric chain id and map to `eip155:<id>`;
 * Cosmos-SDK families carry a bech32 address prefix and map to the matching
 * chain-registry chain (`cosmos:<chain_id>`). Everything else is a non-EVM
 * network and gets a key of the form `<slug>:mainnet`.
 *
 * BitGo's own labels are wallet tickers and class names ("Xrp", "AdaCardano",
 * "Gram", "ARBETH"), so the table below gives each known non-EVM family a
 * readable slug and display name, and fixes native tickers that are BitGo
 * internal ("KASPA" -> "KAS"). Entries here only rename; the existence of the
 * network and its native coin always come from BitGo's coin list. Families not
 * listed still get a record (`<family>:mainnet`, BitGo's names) and are
 * reported, so a new BitGo release cannot silently lose a network.
 */

export interface NonEvmNetwork {
  /** First part of the chain key: `<slug>:mainnet`. */
  slug: string;
  /** Display name of the network. */
  name: string;
  nativeSymbol?: string;
  nativeName?: string;
  /** Settlement layer, for networks that are not L1s. */
  parent?: string;
  layer?: "L2" | "L3";
}

export const NON_EVM_NETWORKS: Readonly<Record<string, NonEvmNetwork>> = {
  btc: { slug: "bitcoin", name: "Bitcoin", nativeName: "Bitcoin" },
  bch: { slug: "bitcoin-cash", name: "Bitcoin Cash", nativeName: "Bitcoin Cash" },
  bcha: { slug: "ecash", name: "eCash", nativeName: "eCash" },
  bsv: { slug: "bitcoin-sv", name: "Bitcoin SV", nativeName: "Bitcoin SV" },
  btg: { slug: "bitcoin-gold", name: "Bitcoin Gold", nativeName: "Bitcoin Gold" },
  ltc: { slug: "litecoin", name: "Litecoin", nativeName: "Litecoin" },
  dash: { slug: "dash", name: "Dash", nativeName: "Dash" },
  zec: { slug: "zcash", name: "Zcash", nativeName: "Zcash" },
  doge: { slug: "dogecoin", name: "Dogecoin", nativeName: "Dogecoin" },
  pearl: { slug: "pearl", name: "Pearl", nativeName: "Pearl" },
  // Lightning settles on Bitcoin; its balances are BTC (BitGo counts millisatoshis).
  lnbtc: {
    slug: "lightning",
    name: "Lightning Network",
    nativeSymbol: "BTC",
    nativeName: "Bitcoin",
    parent: "bitcoin:mainnet",
    layer: "L2",
  },
  avaxp: { slug: "avalanche-p", name: "Avalanche P-Chain", nativeSymbol: "AVAX", nativeName: "Avalanche" },
  flrp: { slug: "flare-p", name: "Flare P-Chain", nativeSymbol: "FLR", nativeName: "Flare" },
  kaspa: { slug: "kaspa", name: "Kaspa", nativeSymbol: "KAS", nativeName: "Kaspa" },
  ada: { slug: "cardano", name: "Cardano", nativeSymbol: "ADA", nativeName: "Cardano" },
  algo: { slug: "algorand", name: "Algorand", nativeName: "Algorand" },
  cspr: { slug: "casper", name: "Casper", nativeName: "Casper" },
  dot: { slug: "polkadot", name: "Polkadot", nativeName: "Polkadot" },
  eos: { slug: "eos", name: "EOS", nativeName: "EOS" },
  trx: { slug: "tron", name: "TRON", nativeName: "TRON" },
  xrp: { slug: "xrpl", name: "XRP Ledger", nativeName: "XRP" },
  xlm: { slug: "stellar", name: "Stellar", nativeName: "Stellar Lumens" },
  xtz: { slug: "tezos", name: "Tezos", nativeName: "Tezos" },
  stx: { slug: "stacks", name: "Stacks", nativeName: "Stacks" },
  sol: { slug: "solana", name: "Solana", nativeName: "Solana" },
  sui: { slug: "sui", name: "Sui", nativeName: "Sui" },
  iota: { slug: "iota", name: "IOTA", nativeName: "IOTA" },
  near: { slug: "near", name: "NEAR Protocol", nativeName: "NEAR" },
  ton: { slug: "ton", name: "TON", nativeSymbol: "TON", nativeName: "Toncoin" },
  apt: { slug: "aptos", name: "Aptos", nativeName: "Aptos" },
  tao: { slug: "bittensor", name: "Bittensor", nativeName: "Bittensor" },
  icp: { slug: "internet-computer", name: "Internet Computer", nativeName: "Internet Computer" },
  // Starknet is a validity rollup on Ethereum; its fee token is STRK.
  starknet: {
    slug: "starknet",
    name: "Starknet",
    nativeSymbol: "STRK",
    nativeName: "Starknet Token",
    parent: "eip155:1",
    layer: "L2",
  },
  polyx: { slug: "polymesh", name: "Polymesh", nativeName: "Polymesh" },
  canton: { slug: "canton", name: "Canton Network", nativeSymbol: "CC", nativeName: "Canton Coin" },
  hbar: { slug: "hedera", name: "Hedera", nativeName: "HBAR" },
  hyperliquid: { slug: "hyperliquid", name: "Hyperliquid", nativeSymbol: "HYPE", nativeName: "Hyperliquid" },
};

/** Families that are not blockchains: fiat balances, BitGo's off-chain trading ledger, a bank token. */
export const NOT_A_NETWORK: ReadonlySet<string> = new Set(["fiat", "ofc", "susd"]);

/**
 * Cosmos families whose BitGo network lacks an address prefix, mapped to the
 * chain-registry `chain_name` (BitGo's "fetchai" is the Fetch.ai hub).
 */
export const COSMOS_CHAIN_NAME: Readonly<Record<string, string>> = {
  fetchai: "fetchhub",
};
