/**
 * aave-markets.json: every Aave V2/V3 market instance exported by
 * @bgd-labs/aave-address-book (AaveV3Arbitrum, AaveV3EthereumLido, ...).
 *
 * A market is an export named AaveV2<...> or AaveV3<...> that has POOL, CHAIN_ID and
 * ASSETS. Governance, Misc, Chainlink, Gho, Umbrella and Safety Module
 * exports are not markets; AaveV1 predates the V2/V3 layout and is skipped.
 * Testnet markets (Sepolia, Fuji, ...) fall out because their chain is not in
 * chains.json.
 */
import * as addressBook from "@bgd-labs/aave-address-book";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChainsResult } from "./chains.ts";
import { deploymentKey } from "./tokens.ts";
import { arr, cmp, EVM_ADDRESS, evmKey, field, isObj, num, str, type LoadedSource, type Obj, type Report, type SourceId } from "./common.ts";

const FILE = "aave-markets.json";

export interface AaveAsset {
  symbol: string;
  /** Reserve id inside the pool (order in which the reserve was listed). */
  reserve_id: number | null;
  underlying: string;
  a_token: string | null;
  v_token: string | null;
  decimals: number | null;
  oracle: string | null;
  /** Key of the underlying in tokens.json, when it is there. */
  token: string | null;
}

export interface AaveMarket {
  key: string;
  name: string;
  version: "v2" | "v3";
  chain: string;
  pool: string;
  pool_addresses_provider: string | null;
  oracle: string | null;
  assets: AaveAsset[];
  sources: SourceId[];
}

/** Camel-case splitting gets these brand names wrong ("Ether Fi", "Zk Sync"). */
const NAME_FIXES: Readonly<Record<string, string>> = {
  "Ether Fi": "EtherFi",
  "Zk Sync": "ZKsync",
  "Mega Eth": "MegaETH",
};

/** "EthereumEtherFi" -> "Ethereum EtherFi", "EthereumAMM" -> "Ethereum AMM". */
function humanize(rest: string): string {
  let s = rest.replace(/([a-z0-9])([A-Z])/g, "$1 $2");
  for (const [wrong, right] of Object.entries(NAME_FIXES)) s = s.replace(wrong, right);
  return s;
}

function addr(v: unknown): string | null {
  const a = str(v)?.toLowerCase() ?? null;
  return a && EVM_ADDRESS.test(a) ? a : null;
}

/** Real ticker of each underlying from the package's own token list ("ONE_INCH" is "1INCH"). */
function underlyingSymbols(src: LoadedSource): Map<string, string> {
  const list = JSON.parse(readFileSync(join(src.packageDir, "tokenlist.json"), "utf8")) as unknown;
  const out = new Map<string, string>();
  for (const t of arr(field(list, "tokens"))) {
    const chainId = num(field(t, "chainId"));
    const a = addr(field(t, "address"));
    const sym = str(field(t, "symbol"));
    if (chainId !== null && a && sym && arr(field(t, "tags")).includes("underlying")) out.set(deploymentKey(evmKey(chainId), a), sym);
  }
  return out;
}

function readAssets(assets: Obj, chain: string, symbols: Map<string, string>, tokenKeys: Map<string, string>, report: Report): AaveAsset[] {
  const out: AaveAsset[] = [];
  for (const [assetKey, a] of Object.entries(assets)) {
    const underlying = addr(field(a, "UNDERLYING"));
    if (!underlying) {
      report.drop(FILE, "asset without a valid UNDERLYING address", assetKey);
      continue;
    }
    const dk = deploymentKey(chain, underlying);
    const token = tokenKeys.get(dk) ?? null;
    if (!token) report.count("aave: notes", "asset underlying not found in tokens.json");
    out.push({
      symbol: symbols.get(dk) ?? assetKey,
      reserve_id: num(field(a, "id")),
      underlying,
      a_token: addr(field(a, "A_TOKEN")),
      v_token: addr(field(a, "V_TOKEN")),
      decimals: num(field(a, "decimals")),
      oracle: addr(field(a, "ORACLE")),
      token,
    });
  }
  return out.sort((x, y) => (x.reserve_id ?? 1e9) - (y.reserve_id ?? 1e9) || cmp(x.symbol, y.symbol));
}

export function buildAaveMarkets(
  src: LoadedSource,
  chains: ChainsResult,
  tokenKeys: Map<string, string>,
  report: Report,
): AaveMarket[] {
  const symbols = underlyingSymbols(src);
  const out: AaveMarket[] = [];
  for (const [exportName, m] of Object.entries(addressBook as Record<string, unknown>)) {
    const match = /^AaveV([123])(.*)$/.exec(exportName);
    if (!match || !isObj(m)) continue; // governance, misc, oracles, GHO, ...
    report.count("aave: source records read", "AaveV* exports");
    if (match[1] === "1") {
      report.drop(FILE, "Aave V1 (legacy layout, not a v2/v3 market)", exportName);
      continue;
    }
    const chainId = num(m.CHAIN_ID);
    const pool = addr(m.POOL);
    if (chainId === null || !pool || !isObj(m.ASSETS)) {
      report.drop(FILE, "export without CHAIN_ID/POOL/ASSETS", exportName);
      continue;
    }
    const chain = evmKey(chainId);
    if (!chains.byKey.has(chain)) {
      report.drop(FILE, "testnet market (chain not in chains.json)", exportName);
      continue;
    }
    const version = match[1] === "2" ? "v2" : "v3";
    const rest = match[2] ?? "";
    const assets = readAssets(m.ASSETS, chain, symbols, tokenKeys, report);
    out.push({
      key: exportName,
      name: `Aave ${version.toUpperCase()}${rest ? ` ${humanize(rest)}` : ""}`,
      version,
      chain,
      pool,
      pool_addresses_provider: addr(m.POOL_ADDRESSES_PROVIDER),
      oracle: addr(m.ORACLE),
      assets,
      sources: ["aave-address-book"],
    });
    report.count("aave: records", `markets ${version}`);
    report.count("aave: records", "assets", assets.length);
  }
  return out.sort((a, b) => cmp(a.key, b.key));
}
