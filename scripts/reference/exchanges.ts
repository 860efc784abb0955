/**
 * exchanges.json: every exchange id in `ccxt.exchanges`, described offline.
 *
 * `new ccxt[id]()` plus `describe()` only builds the static description; no
 * request is made (we never call load/fetch methods). ccxt marks a few
 * classes as `alias: true` (another id for the same venue); those are skipped
 * because they would duplicate the exchange they point to.
 */
import ccxt from "ccxt";
import { arr, cmp, field, isObj, str, type Obj, type Report, type SourceId } from "./common.ts";

const FILE = "exchanges.json";

/** Unified API methods worth naming individually; the rest are only counted. */
const KEY_FEATURES = [
  "fetchTicker",
  "fetchTickers",
  "fetchOrderBook",
  "fetchOHLCV",
  "fetchTrades",
  "fetchBalance",
  "createOrder",
  "cancelOrder",
  "fetchMyTrades",
  "fetchDepositAddress",
  "withdraw",
  "fetchFundingRate",
  "fetchPositions",
] as const;

/** Market types ccxt reports under `has`. */
const MARKET_TYPES = ["spot", "margin", "swap", "future", "option"] as const;

export interface ExchangeRecord {
  key: string;
  id: string;
  name: string;
  countries: string[];
  www: string | null;
  doc: string[];
  /** API version ccxt targets (e.g. "v3"). */
  version: string | null;
  certified: boolean;
  /** ccxt.pro (WebSocket) support. */
  pro: boolean;
  dex: boolean;
  market_types: string[];
  /** How many unified API features are `true` (emulated ones not counted). */
  features_count: number;
  features: string[];
  sources: SourceId[];
}

type ExchangeCtor = new (config?: Obj) => { describe(): unknown };

function urlList(v: unknown): string[] {
  if (typeof v === "string") return str(v) ? [v.trim()] : [];
  return arr(v)
    .map((x) => str(x))
    .filter((x): x is string => x !== null);
}

/** ccxt keeps `{hostname}` placeholders in some URLs; fill them like the library does. */
function fillHostname(url: string | null, hostname: string | null): string | null {
  if (!url) return null;
  return hostname ? url.replace(/\{hostname\}/g, hostname) : url;
}

function describeExchange(id: string, report: Report): ExchangeRecord | null {
  const ctor = (ccxt as unknown as Record<string, unknown>)[id];
  if (typeof ctor !== "function") {
    report.drop(FILE, "id listed in ccxt.exchanges but no class exported", id);
    return null;
  }
  const d = new (ctor as ExchangeCtor)().describe();
  if (!isObj(d)) return null;
  if (d.alias === true) {
    report.drop(FILE, "ccxt alias of another exchange", id);
    return null;
  }
  const has = isObj(d.has) ? d.has : {};
  const trueFeatures = Object.keys(has).filter((k) => has[k] === true && !(MARKET_TYPES as readonly string[]).includes(k));
  const hostname = str(d.hostname);
  const version = d.version;
  return {
    key: id,
    id: str(d.id) ?? id,
    name: str(d.name) ?? id,
    countries: arr(d.countries)
      .map((c) => str(c))
      .filter((c): c is string => c !== null),
    www: fillHostname(str(field(d, "urls", "www")), hostname),
    doc: urlList(field(d, "urls", "doc")).map((u) => fillHostname(u, hostname) ?? u),
    version: typeof version === "number" ? String(version) : str(version),
    certified: d.certified === true,
    pro: d.pro === true,
    dex: d.dex === true,
    market_types: MARKET_TYPES.filter((t) => has[t] === true),
    features_count: trueFeatures.length,
    features: KEY_FEATURES.filter((f) => has[f] === true),
    sources: ["ccxt"],
  };
}

export function buildExchanges(report: Report): ExchangeRecord[] {
  const ids = arr((ccxt as unknown as Obj).exchanges)
    .map((x) => str(x))
    .filter((x): x is string => x !== null);
  const out: ExchangeRecord[] = [];
  for (const id of ids) {
    report.count("exchanges: source records read", "ccxt");
    const rec = describeExchange(id, report);
    if (!rec) continue;
    out.push(rec);
    if (rec.dex) report.count("exchanges: records", "dex: true");
    if (rec.certified) report.count("exchanges: records", "certified: true");
    if (rec.pro) report.count("exchanges: records", "pro (WebSocket): true");
  }
  report.count("exchanges: records", "total", out.length);
  return out.sort((a, b) => cmp(a.key, b.key));
}
