/**
 * @module model/test-network
 * One rule for what is a test, development or canary network, used by the reference refresh
 * (scripts/reference/chains.ts) and the chains connector (ingest/providers/chains.ts), so the
 * bundled data and an ingest keep the same chains. A chain is a test network when
 * - a word of its name, title or short name marks one: any word containing "test" (kektest,
 *   DFKTEST) but ordinary English words, a named testnet (Sepolia, Holesky, Fuji, Amoy, ...), a
 *   devnet, localnet or staging network, a development node or a canary network (where upgrades
 *   are tried before the mainnet: Songbird, BEVM Canary);
 * - its name holds a known testnet codename that says none of that (Taiko's Katla, Hekla, Jolnir,
 *   Grimsvotn and Eldfell; Berachain's Artio and bArtio);
 * - it is a local development chain (Anvil, Hardhat, chain ids 1337, 31337, 13370), or its list
 *   marks it (viem's `testnet: true`).
 * Faucets say nothing: Gnosis (chain 100) and many mainnets list one for gas. Nor does
 * ethereum-lists' `slip44: 1` (BIP-44's testnet coin type): Bitlayer, zkLink Nova, Omni and some
 * thirty other mainnets carry it.
 */

/** Words that mark a test, dev or canary network on their own. */
const TESTNET_WORD =
  /^(sepolia|goerli|görli|holesky|hoodi|rinkeby|ropsten|kovan|morden|kotti|mordor|fuji|mumbai|amoy|chiado|apothem|puppynet|moonbase|previewnet|devnet|localnet|local|localhost|staging|sandbox|demo|dusknet|alphanet|betanet|dev|development|mainnetdev|tesnet|canary)$/i;
/** Testnet codenames that do not say "test" (Taiko's testnets are Icelandic volcanoes; Berachain's Artio). */
const TESTNET_CODENAMES: ReadonlySet<string> = new Set(["katla", "hekla", "jolnir", "grimsvotn", "eldfell", "artio", "bartio"]);
/** English words that merely contain "test". */
const NOT_TESTNET_WORDS: ReadonlySet<string> = new Set(["contest", "protest", "latest", "attest", "fastest", "greatest", "testament"]);
const DEV_CHAIN_NAMES: ReadonlySet<string> = new Set(["anvil", "hardhat", "foundry", "localhost", "cannon"]);
/** Chain ids reserved by convention for local nodes (Geth dev 1337, Hardhat/Anvil 31337, Cannon 13370). */
const LOCAL_CHAIN_IDS: ReadonlySet<number> = new Set([1337, 31337, 13370]);

export interface NetworkLabels {
  name: string;
  title?: string | null;
  shortName?: string | null;
  chainId?: number | null;
  /** A list's own testnet flag (viem's `testnet`). */
  testnet?: boolean | null;
}

/** Whether any of the texts has a word that marks a test, dev or canary network. */
function looksLikeTestnet(...texts: (string | null | undefined)[]): boolean {
  for (const text of texts) {
    if (!text) continue;
    for (const word of text.toLowerCase().split(/[^a-z0-9äöüé]+/)) {
      if (word === "") continue;
      if (word.includes("test") && !NOT_TESTNET_WORDS.has(word)) return true;
      if (TESTNET_WORD.test(word) || TESTNET_CODENAMES.has(word)) return true;
      if (/(sepolia|goerli|holesky|hoodi|devnet|testnet)/.test(word)) return true;
    }
  }
  return false;
}

export function isTestNetwork(chain: NetworkLabels): boolean {
  return (
    chain.testnet === true ||
    DEV_CHAIN_NAMES.has(chain.name.toLowerCase()) ||
    (chain.chainId != null && LOCAL_CHAIN_IDS.has(chain.chainId)) ||
    looksLikeTestnet(chain.name, chain.title, chain.shortName)
  );
}
