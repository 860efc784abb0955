/**
 * tokens.json: fungible tokens from @metamask/contract-metadata,
 * @eth-optimism/tokenlist, @bgd-labs/aave-address-book (underlying assets)
 * and @bitgo/statics (tokens and native coins), merged into one record per
 * real token.
 *
 * Merge rule (union-find over every source observation). Two observations
 * belong to the same token when ANY of these holds, transitively:
 *   1. same deployment: same chain key and same address (EVM addresses
 *      compared lower-case; a chain's native coin counts as one deployment);
 *   2. same normalised symbol AND same normalised name (symbol: upper-case
 *      alphanumerics, "USDC.e" -> "USDCE"; name: lower-case alphanumerics,
 *      "Dai Stablecoin" -> "daistablecoin"), unless that would put two
 *      different addresses on one chain into one token, or join a chain's
 *      native coin with a contract token (see TokenGroups);
 *      Native coins (BitGo's per-chain coins) compare on symbol alone, since
 *      chains spell their gas coin's name differently ("Ether", "ETH",
 *      "Linea Ether") but ETH on every rollup is the same ether;
 *   3. same Superchain token-list id (`extensions.opTokenId`), which that list
 *      uses to tie one token's deployments together across OP chains even when
 *      a chain's entry spells the name differently ("USD Coin" vs "USDC").
 * Rules 1 and 3 are applied first, then rule 2. Observations are processed
 * in a fixed order (most curated source first, Ethereum first) so the result
 * is deterministic. Name and symbol of a merged record come from the most curated source
 * (MetaMask > Superchain list > Aave > BitGo), taking that source's
 * deployment on the lowest chain id (Ethereum first).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import opTokenListModule from "@eth-optimism/tokenlist";
import type { ChainsResult } from "./chains.ts";
import { bitgoClass, bitgoCoins, bitgoFeatures, bitgoNetwork } from "./bitgo.ts";
import { NOT_A_NETWORK } from "./bitgo-networks.ts";
import {
  arr,
  cmp,
  compareChainKeys,
  EVM_ADDRESS,
  evmKey,
  field,
  isObj,
  normName,
  normSymbol,
  num,
  str,
  type LoadedSource,
  type Obj,
  type Report,
  type SourceId,
} from "./common.ts";

const require = createRequire(import.meta.url);
const FILE = "tokens.json";

/**
 * Well-known fiat-pegged (USD/EUR) stablecoins, by normalised symbol. Kept
 * short on purpose: yield-bearing wrappers (sDAI, sUSDe, ...) are not listed.
 */
export const STABLECOIN_SYMBOLS: ReadonlySet<string> = new Set([
  // USD
  "USDT", "USDT0", "USDC", "USDCE", "USDBC", "DAI", "XDAI", "WXDAI", "BUSD", "TUSD", "USDP", "PYUSD", "GUSD",
  "FDUSD", "USDS", "USDE", "LUSD", "FRAX", "GHO", "CRVUSD", "USDD", "RLUSD", "USD1", "USDG", "SUSD", "DOLA",
  "MIM", "USDB", "USDM", "AUSD", "USDY", "USDTB",
  // EUR
  "EURC", "EUROC", "EURS", "EURT", "EURA", "AGEUR", "EURE", "EURCV",
]);

/**
 * BitGo's "stablecoin" feature is also set on things that are not pegged to a
 * currency (tokenised stocks "NVDA goStock", "Wrapped Flare", game chips). We
 * accept a source's flag only when the symbol or name names a currency or says
 * "stable"; the rejects are reported.
 */
const PEG_HINT = /usd|eur|dollar|euro|stable|lira|brl|brz|sgd|gbp|chf|jpy|mxn|peso|rupiah/i;

/** Lower number wins when a merged token's sources disagree on name/symbol. */
const PRIORITY: Readonly<Record<string, number>> = {
  "metamask-contract-metadata": 0,
  "optimism-tokenlist": 1,
  "aave-address-book": 2,
  "bitgo-statics": 3,
};

const NATIVE_SENTINELS = new Set(["0x0000000000000000000000000000000000000000", "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"]);

export interface Deployment {
  chain: string;
  /** Contract/mint/asset id on that chain; null for the chain's native coin. */
  address: string | null;
  /** Only present when it differs from the record's `decimals`. */
  decimals?: number;
}

export interface TokenRecord {
  key: string;
  name: string;
  symbol: string;
  decimals: number | null;
  stablecoin: boolean;
  /** Why `stablecoin` is true: "source:<id>" flags and/or "symbol-list". */
  stablecoin_basis?: string[];
  deployments: Deployment[];
  sources: SourceId[];
}

export interface TokensResult {
  records: TokenRecord[];
  /** "<chain>|<address>" -> token key, for aave-markets.json. */
  byDeployment: Map<string, string>;
}

interface Obs {
  source: SourceId;
  chain: string;
  address: string | null;
  symbol: string;
  name: string;
  decimals: number | null;
  stable: boolean;
  /** Extra merge key (rule 3). */
  group?: string;
  /** Sources behind name/symbol when they are not `source` (native coins named by chains.json). */
  extraSources?: SourceId[];
}

export function deploymentKey(chain: string, address: string | null): string {
  return `${chain}|${address ?? "native"}`;
}

// ---------------------------------------------------------------- observation helpers

/** Validates chain + address and adds the observation, or records why not. */
class ObsSink {
  readonly list: Obs[] = [];
  constructor(
    private readonly chains: ChainsResult,
    private readonly report: Report,
  ) {}

  add(o: Omit<Obs, "chain"> & { chain: string | null }, what: string): void {
    const label = `${o.source}`;
    if (!o.chain) return this.report.drop(FILE, `${label}: network has no chain key`, what);
    if (!this.chains.byKey.has(o.chain)) return this.report.drop(FILE, `${label}: chain not in chains.json (testnet or unknown)`, `${what} on ${o.chain}`);
    if (!o.name || !o.symbol) return this.report.drop(FILE, `${label}: no name or symbol`, what);
    let address = o.address;
    if (address !== null && o.chain.startsWith("eip155:")) {
      address = address.toLowerCase();
      if (!EVM_ADDRESS.test(address)) return this.report.drop(FILE, `${label}: invalid EVM address`, `${what} ${address}`);
      // Token lists write the chain's native coin as the zero address or 0xeee...e: no contract, and the
      // native coin itself comes from chains.json, so these entries would only duplicate it.
      if (NATIVE_SENTINELS.has(address)) return this.report.drop(FILE, `${label}: native-coin sentinel address (the native coin comes from chains.json)`, `${what} ${address}`);
    }
    this.report.count("tokens: observations accepted", o.source);
    this.list.push({ ...o, chain: o.chain, address });
  }
}

// ---------------------------------------------------------------- sources

function readMetamask(sink: ObsSink, report: Report): void {
  const map = require("@metamask/contract-metadata") as unknown;
  if (!isObj(map)) return;
  for (const [address, meta] of Object.entries(map)) {
    report.count("tokens: source records read", "metamask-contract-metadata");
    if (field(meta, "erc721") === true || field(meta, "erc20") !== true) {
      report.drop(FILE, "metamask-contract-metadata: not an ERC-20 (NFT)", str(field(meta, "name")) ?? address);
      continue;
    }
    sink.add(
      {
        source: "metamask-contract-metadata",
        chain: evmKey(1), // the contract map describes Ethereum mainnet only
        address,
        symbol: str(field(meta, "symbol")) ?? "",
        name: str(field(meta, "name")) ?? "",
        decimals: num(field(meta, "decimals")),
        stable: false,
      },
      address,
    );
  }
}

/** One entry of a token list in the Uniswap token-list format (chainId, address, symbol, name, decimals). */
function tokenListEntry(t: unknown, source: SourceId): Omit<Obs, "chain"> & { chain: string | null } {
  const chainId = num(field(t, "chainId"));
  return {
    source,
    chain: chainId === null ? null : evmKey(chainId),
    address: str(field(t, "address")),
    symbol: str(field(t, "symbol")) ?? "",
    name: str(field(t, "name")) ?? "",
    decimals: num(field(t, "decimals")),
    stable: false,
  };
}

function readOptimism(sink: ObsSink, report: Report): void {
  const mod: unknown = opTokenListModule;
  const list = isObj(mod) && Array.isArray(mod.tokens) ? mod : field(mod, "default");
  for (const t of arr(field(list, "tokens"))) {
    report.count("tokens: source records read", "optimism-tokenlist");
    const opId = str(field(t, "extensions", "opTokenId"));
    sink.add({ ...tokenListEntry(t, "optimism-tokenlist"), ...(opId ? { group: `op:${opId}` } : {}) }, str(field(t, "symbol")) ?? "?");
  }
}

function readAave(src: LoadedSource, sink: ObsSink, report: Report): void {
  // tokenlist.json is not in the package's `exports`, so read the shipped file directly.
  const list = JSON.parse(readFileSync(join(src.packageDir, "tokenlist.json"), "utf8")) as unknown;
  for (const t of arr(field(list, "tokens"))) {
    const tags = arr(field(t, "tags"));
    if (!tags.includes("underlying")) continue; // aTokens, debt tokens, stata wrappers are not underlying assets
    report.count("tokens: source records read", "aave-address-book (underlying assets)");
    sink.add(tokenListEntry(t, "aave-address-book"), str(field(t, "symbol")) ?? "?");
  }
}

/**
 * The on-chain identifier of a non-EVM BitGo token. Each family names it
 * differently; the fallbacks keep ids unique per token (an EOS contract can
 * hold several tokens, so EOS ids are "<contract>::<symbol>").
 */
function bitgoAddress(coin: Obj, family: string, symbol: string): string | null {
  const name = str(coin.name) ?? "";
  if (family === "xlm") {
    // "xlm:CODE-ISSUER" -> Stellar's usual "CODE:ISSUER" asset id
    const m = /^xlm:([^-]+)-(G[A-Z0-9]{55})$/.exec(name);
    return m ? `${m[1]}:${m[2]}` : null;
  }
  if (family === "algo") {
    const m = /(\d+)$/.exec(str(coin.alias) ?? name);
    return m ? (m[1] ?? null) : null;
  }
  if (family === "eos") {
    const contract = str(coin.contractName) ?? str(coin.contractAddress);
    return contract ? `${contract}::${symbol}` : null;
  }
  return (
    str(coin.tokenAddress) ??
    str(coin.contractAddress) ??
    str(coin.assetId) ??
    str(coin.tokenId) ??
    str(coin.denom) ??
    null
  );
}

function isNftClass(coin: Obj): boolean {
  return /nft|721|1155/i.test(bitgoClass(coin)) || ["erc721", "erc1155"].includes(str(coin.asset) ?? "");
}

function readBitgo(chains: ChainsResult, sink: ObsSink, report: Report): void {
  for (const coin of bitgoCoins()) {
    const network = bitgoNetwork(coin);
    const family = str(coin.family);
    if (!network || !family || NOT_A_NETWORK.has(family)) continue;
    if (str(network.type) !== "mainnet") {
      report.count("tokens: bitgo-statics skipped", "testnet coin");
      continue;
    }
    report.count("tokens: source records read", "bitgo-statics (mainnet)");
    const chain = chains.familyToKey.get(family) ?? null;
    const suffix = str(coin.suffix) ?? "";
    const ticker = suffix.split(":").pop() ?? "";
    const fullName = str(coin.fullName) ?? "";
    const decimals = num(coin.decimalPlaces);
    const stable = bitgoFeatures(coin).has("stablecoin");

    if (coin.isToken !== true) {
      // Native coin: name it like chains.json does, so L2 ETH merges with L1 ETH.
      const rec = chain ? chains.byKey.get(chain) : undefined;
      const fromChain = Boolean(rec?.native_symbol && rec.native_name);
      sink.add(
        {
          source: "bitgo-statics",
          chain,
          address: null,
          symbol: (fromChain ? rec?.native_symbol : null) ?? ticker,
          name: (fromChain ? rec?.native_name : null) ?? fullName,
          decimals,
          stable,
          ...(fromChain && chain ? { extraSources: (chains.nativeSources.get(chain) ?? []).filter((s) => s !== "bitgo-statics") } : {}),
        },
        `${str(coin.name) ?? "?"} (native)`,
      );
      continue;
    }
    if (isNftClass(coin)) {
      report.drop(FILE, "bitgo-statics: NFT collection", str(coin.name) ?? "?");
      continue;
    }
    const symbol = str(coin.symbol) ?? ticker;
    if (/^0X[0-9A-F]{16,}$/i.test(symbol) || /\btest token\b/i.test(fullName)) {
      report.drop(FILE, "bitgo-statics: placeholder/test token", str(coin.name) ?? "?");
      continue;
    }
    const address = chain?.startsWith("eip155:") ? str(coin.contractAddress) : bitgoAddress(coin, family, symbol);
    if (!address) {
      report.drop(FILE, "bitgo-statics: token without an on-chain id", str(coin.name) ?? "?");
      continue;
    }
    sink.add({ source: "bitgo-statics", chain, address, symbol, name: fullName, decimals, stable }, str(coin.name) ?? "?");
  }
}

// ---------------------------------------------------------------- merge

/**
 * Union-find over observations that also tracks, per group, the chains it is
 * deployed on and whether it is a native coin. Rule 2 (same symbol + name)
 * must not join
 *  - two groups that both have a deployment on the same chain: two contracts
 *    on one chain called "Uniswap V2"/"UNI-V2" are different tokens (LP
 *    pairs), and bridged vs native "USD Coin" on one chain are not
 *    interchangeable either;
 *  - a native coin with a contract token: ETH on Ethereum and ETH on Base are
 *    one record, but wrapped/bridged contracts (SOL on Ethereum, USDC as Arc's
 *    gas coin vs USDC contracts) stay separate records.
 */
class TokenGroups {
  private readonly parent: number[];
  private readonly chains: Set<string>[];
  private readonly native: boolean[];
  constructor(obs: Obs[]) {
    this.parent = obs.map((_, i) => i);
    this.chains = obs.map((o) => new Set([o.chain]));
    this.native = obs.map((o) => o.address === null);
  }
  find(i: number): number {
    let r = i;
    while (this.parent[r] !== r) r = this.parent[r] ?? r;
    let c = i;
    while (this.parent[c] !== r) {
      const next = this.parent[c] ?? r;
      this.parent[c] = r;
      c = next;
    }
    return r;
  }
  /** Returns "merged", "same" (already one group) or "conflict" (only when `strict`). */
  union(a: number, b: number, strict: boolean): "merged" | "same" | "conflict" {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return "same";
    const ca = this.chains[ra] ?? new Set<string>();
    const cb = this.chains[rb] ?? new Set<string>();
    if (strict && (this.native[ra] !== this.native[rb] || [...ca].some((c) => cb.has(c)))) return "conflict";
    // Keep the smaller index as root so grouping does not depend on union order.
    const [root, child] = ra < rb ? [ra, rb] : [rb, ra];
    this.parent[child] = root;
    this.chains[root] = new Set([...ca, ...cb]);
    return "merged";
  }
}

function groupObservations(input: Obs[], report: Report): Obs[][] {
  // Curated sources first, Ethereum first: they seed the groups the others join.
  const obs = [...input].sort(compareObs);
  const uf = new TokenGroups(obs);
  // Per merge key, one representative observation per group already carrying that key.
  const seen = new Map<string, number[]>();
  const link = (key: string, i: number, rule: string, strict: boolean): void => {
    const reps = seen.get(key) ?? [];
    seen.set(key, reps);
    let conflict = false;
    for (const j of reps) {
      const r = uf.union(i, j, strict);
      if (r === "conflict") {
        conflict = true;
        continue; // maybe another group with this key accepts it
      }
      if (r === "merged") report.count("tokens: merges (unions performed)", rule);
      return;
    }
    reps.push(i);
    if (conflict) {
      const o = obs[i];
      report.tally("tokens: merges", "NOT merged (kept apart): same (symbol, name) but native vs contract, or another address on a shared chain", o ? `${o.symbol} "${o.name}" ${o.chain}` : undefined);
    }
  };
  // Rules 1 and 3 first, so rule 2 sees complete deployment sets.
  obs.forEach((o, i) => link(`d:${deploymentKey(o.chain, o.address)}`, i, "same deployment (chain, address)", false));
  obs.forEach((o, i) => {
    if (o.group) link(`g:${o.group}`, i, "same Superchain opTokenId", false);
  });
  obs.forEach((o, i) =>
    o.address === null
      ? link(`n:${normSymbol(o.symbol)}`, i, "native coins with the same normalised symbol", true)
      : link(`s:${normSymbol(o.symbol)}|${normName(o.name)}`, i, "same normalised (symbol, name)", true),
  );
  const groups = new Map<number, Obs[]>();
  obs.forEach((o, i) => {
    const r = uf.find(i);
    groups.set(r, [...(groups.get(r) ?? []), o]);
  });
  return [...groups.values()];
}

function compareObs(a: Obs, b: Obs): number {
  return (
    (PRIORITY[a.source] ?? 9) - (PRIORITY[b.source] ?? 9) ||
    compareChainKeys(a.chain, b.chain) ||
    cmp(a.address ?? "", b.address ?? "") ||
    cmp(a.symbol, b.symbol) ||
    cmp(a.name, b.name)
  );
}

function compareDeployments(a: Deployment, b: Deployment): number {
  // Native coin first on a chain, then addresses.
  return compareChainKeys(a.chain, b.chain) || cmp(a.address ?? "", b.address ?? "");
}

function buildRecord(group: Obs[], report: Report): TokenRecord {
  const sorted = [...group].sort(compareObs);
  const primary = sorted[0];
  if (!primary) throw new Error("empty token group");

  const deps = new Map<string, Deployment>();
  for (const o of sorted) {
    const k = deploymentKey(o.chain, o.address);
    const d = deps.get(k);
    if (!d) deps.set(k, { chain: o.chain, address: o.address, ...(o.decimals !== null ? { decimals: o.decimals } : {}) });
    else if (d.decimals === undefined && o.decimals !== null) d.decimals = o.decimals;
  }
  const deployments = [...deps.values()].sort(compareDeployments);
  const native = deployments.find((d) => d.address === null);
  const first = native ?? deployments[0];
  if (!first) throw new Error("token without deployments");
  const key = first.address === null ? `native:${first.chain}` : `${first.chain}:${first.address}`;
  const decimals = first.decimals ?? deployments.find((d) => d.decimals !== undefined)?.decimals ?? null;

  const basis = new Set<string>();
  for (const o of group) {
    if (!o.stable) continue;
    if (PEG_HINT.test(`${o.symbol} ${o.name}`)) basis.add(`source:${o.source}`);
    else report.tally("tokens: merges", "source stablecoin flag ignored (no currency in symbol/name)", `${o.symbol} "${o.name}"`);
  }
  if (STABLECOIN_SYMBOLS.has(normSymbol(primary.symbol))) basis.add("symbol-list");

  const sources = new Set<SourceId>();
  for (const o of group) {
    sources.add(o.source);
    for (const s of o.extraSources ?? []) sources.add(s);
  }

  const symbols = new Set(group.map((o) => o.symbol));
  if (new Set([...symbols].map(normSymbol)).size > 1) {
    report.tally("tokens: merges", "records whose sources use different symbols (joined by address or opTokenId)", [...symbols].sort(cmp).join("/"));
  }
  if (new Set(group.map((o) => o.source)).size > 1) report.count("tokens: merges", "records combining several sources");
  if (new Set(deployments.map((d) => d.chain)).size > 1) report.count("tokens: merges", "records with deployments on several chains");

  const record: TokenRecord = {
    key,
    name: primary.name,
    symbol: primary.symbol,
    decimals,
    stablecoin: basis.size > 0,
    deployments: deployments.map((d) =>
      d.decimals !== undefined && d.decimals !== decimals ? d : { chain: d.chain, address: d.address },
    ),
    sources: [...sources].sort(cmp),
  };
  if (basis.size > 0) {
    // Keep `stablecoin_basis` right after `stablecoin` for readability.
    const { deployments: dep, sources: src, ...head } = record;
    return { ...head, stablecoin_basis: [...basis].sort(cmp), deployments: dep, sources: src };
  }
  return record;
}

export function buildTokens(
  chains: ChainsResult,
  enabled: ReadonlyMap<SourceId, LoadedSource>,
  report: Report,
): TokensResult {
  const sink = new ObsSink(chains, report);
  if (enabled.has("metamask-contract-metadata")) readMetamask(sink, report);
  if (enabled.has("optimism-tokenlist")) readOptimism(sink, report);
  const aave = enabled.get("aave-address-book");
  if (aave) readAave(aave, sink, report);
  if (enabled.has("bitgo-statics")) readBitgo(chains, sink, report);

  const records = groupObservations(sink.list, report)
    .map((g) => buildRecord(g, report))
    .sort((a, b) => cmp(a.key, b.key));

  const byDeployment = new Map<string, string>();
  for (const r of records) {
    for (const d of r.deployments) byDeployment.set(deploymentKey(d.chain, d.address), r.key);
    report.count("tokens: records", r.deployments.some((d) => d.address === null) ? "with a native-coin deployment" : "contract tokens");
    if (r.stablecoin) report.count("tokens: records", "stablecoin: true");
    for (const s of r.sources) report.count("tokens: records citing source", s);
  }
  report.count("tokens: records", "total", records.length);
  return { records, byDeployment };
}

/** The largest merged groups, printed so over-merging is easy to spot by eye. */
export function largestTokens(records: TokenRecord[], n: number): string[] {
  return [...records]
    .sort((a, b) => b.deployments.length - a.deployments.length || cmp(a.key, b.key))
    .slice(0, n)
    .map((r) => `${r.symbol} "${r.name}" ${r.deployments.length} deployments on ${new Set(r.deployments.map((d) => d.chain)).size} chains`);
}
