/**
 * @module demo/synthetic/chain-weights
 * How likely a synthetic protocol or token is to live on each real chain: roughly the share of
 * DeFi activity by chain, so the demo world has Ethereum-heavy, long-tailed deployments. Chains not
 * listed get a small weight (they exist, few things deploy there).
 */

const WEIGHTS: Record<string, number> = {
  "eip155:1": 30, // Ethereum
  "eip155:56": 14, // BNB Smart Chain
  "eip155:42161": 14, // Arbitrum One
  "eip155:8453": 14, // Base
  "solana:mainnet": 14,
  "eip155:137": 10, // Polygon
  "eip155:10": 9, // OP Mainnet
  "eip155:43114": 8, // Avalanche C-Chain
  "tron:mainnet": 4,
  "sui:mainnet": 4,
  "eip155:324": 4, // zkSync Era
  "eip155:59144": 4, // Linea
  "eip155:146": 3, // Sonic
  "eip155:80094": 3, // Berachain
  "eip155:999": 3, // HyperEVM
  "aptos:mainnet": 3,
  "eip155:250": 3, // Fantom
  "eip155:534352": 3, // Scroll
  "eip155:5000": 3, // Mantle
  "eip155:81457": 3, // Blast
  "eip155:100": 3, // Gnosis
  "eip155:130": 2, // Unichain
  "eip155:1101": 2, // Polygon zkEVM
  "eip155:25": 2, // Cronos
  "eip155:42220": 2, // Celo
  "eip155:1329": 2, // Sei EVM
  "near:mainnet": 2,
  "ton:mainnet": 2,
  "starknet:mainnet": 2,
  "cosmos:osmosis-1": 2,
  "cosmos:injective-1": 1.5,
  "eip155:1284": 1.5, // Moonbeam
  "cosmos:cosmoshub-4": 1,
  "cosmos:neutron-1": 1,
  "cosmos:pacific-1": 1, // Sei
  "eip155:1088": 1, // Metis
  "eip155:34443": 1, // Mode
  "eip155:7777777": 1, // Zora
  "eip155:169": 1, // Manta Pacific
  "eip155:252": 1, // Fraxtal
  "eip155:480": 1, // World Chain
  "eip155:2741": 1, // Abstract
  "bitcoin:mainnet": 1,
  "cardano:mainnet": 1,
  "polkadot:mainnet": 1,
  "algorand:mainnet": 0.5,
  "tezos:mainnet": 0.5,
  "stellar:mainnet": 0.5,
  "xrpl:mainnet": 0.5,
};

const LONG_TAIL = 0.02;

export function chainWeight(key: string): number {
  return WEIGHTS[key] ?? LONG_TAIL;
}
