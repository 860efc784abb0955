/**
 * DefiLlama's hosts as the replay serves them: the recorded lists from shared/real-api/defillama
 * (protocols, stablecoins, chains: recorded by others, no licence, so read in place and never
 * copied here) with the shaped cast's records after them, and shaped answers for the rest. The paid
 * API refuses as DefiLlama does without a plan: 402 with its upgrade message.
 */
import { addDays } from "../../../src/time.ts";
import { haveRecording, readRecording } from "../shared-recordings.ts";
import { daysBetween, offset, unix, wobble } from "./cast.ts";
import { recordedOrShapedHacks } from "../defillama-hacks.ts";
import { CAST_PROTOCOLS, figures, LENDING, PARENTS, POOLS, RAISES, RECORDED_FALLBACK, SCHEDULES, STABLECOINS } from "./defillama-cast.ts";

/** The recorded DefiLlama answers are here (CI and this workplace have them; a clone elsewhere may not). */
export const haveRecordedDefillama = () => haveRecording("defillama/protocols.json");
const recorded = (name: string): unknown => readRecording(`defillama/${name}`);

/** Histories start here (the chart answers are whole histories, as DefiLlama's are). */
const HISTORY_FROM = "2025-06-01";
const PAID_REFUSAL = "Upgrade to the paid API plan at https://defillama.com/subscription";

function protocols(): unknown[] {
  const list = haveRecordedDefillama() ? (recorded("protocols.json") as unknown[]) : RECORDED_FALLBACK;
  return [...list, ...CAST_PROTOCOLS];
}

function history(slug: string, day: string) {
  const days = daysBetween(HISTORY_FROM, day);
  if (!figures(slug, day)) return undefined;
  const tvl = days.map((d) => ({ date: unix(d) + 3600, totalLiquidityUSD: figures(slug, d)!.tvl }));
  return { name: slug, tvl, chainTvls: { Ethereum: { tvl } }, raises: RAISES[slug] ?? [] };
}

function feesChart(slug: string, day: string, kind: "fees" | "revenue") {
  if (!figures(slug, day)) return undefined;
  return { totalDataChart: daysBetween(HISTORY_FROM, day).map((d) => [unix(d), figures(slug, d)![kind]]) };
}

/** Treasuries: Uniswap's is nearly all UNI (as the real one is); Lido's mostly its own LDO and ether. */
function treasury(slug: string, day: string) {
  const shape: Record<string, { own: number; usdc: number; other: number }> = { uniswap: { own: 2.4e9, usdc: 30e6, other: 45e6 }, lido: { own: 120e6, usdc: 20e6, other: 60e6 } };
  const s = shape[slug];
  if (!s) return undefined;
  const days = daysBetween(addDays(day, -60), day);
  const series = (value: number) => days.map((d) => ({ date: unix(d), totalLiquidityUSD: value * (1 + 0.01 * wobble(slug, d)) }));
  return {
    name: `${slug} (treasury)`,
    chainTvls: {
      Ethereum: { tvl: series(s.usdc + s.other), tokensInUsd: days.map((d) => ({ date: unix(d), tokens: { USDC: s.usdc, WETH: s.other } })) },
      OwnTokens: { tvl: series(s.own) },
      "Ethereum-OwnTokens": { tvl: series(s.own) },
    },
  };
}

function pools(day: string) {
  return {
    status: "success",
    data: POOLS.map((p) => {
      const v = p.values(day);
      return { pool: p.pool, chain: p.chain, project: p.project, symbol: p.symbol, tvlUsd: v.tvlUsd, apyBase: v.apyBase, apyReward: v.apyReward, apy: v.apyBase + v.apyReward, underlyingTokens: p.underlying, exposure: "single" };
    }),
  };
}

function poolChart(uuid: string, day: string) {
  const p = POOLS.find((x) => x.pool === uuid);
  if (!p) return undefined;
  return {
    status: "success",
    data: daysBetween(HISTORY_FROM, day).map((d) => {
      const v = p.values(d);
      return { timestamp: `${d}T00:00:00.000Z`, tvlUsd: v.tvlUsd, apy: v.apyBase + v.apyReward, apyBase: v.apyBase, apyReward: v.apyReward };
    }),
  };
}

/** The fields a stablecoin's record has in the list and in its own answer alike. */
function stablecoinHead(s: (typeof STABLECOINS)[number]) {
  return { id: s.id, name: s.name, symbol: s.symbol, gecko_id: s.gecko_id, pegType: "peggedUSD", pegMechanism: s.pegMechanism };
}

function stablecoins(day: string) {
  const shaped = STABLECOINS.map((s) => ({
    ...stablecoinHead(s),
    circulating: { peggedUSD: s.circulating(day) },
    chains: ["Ethereum"],
    price: s.price(day),
  }));
  const list = haveRecordedDefillama() ? ((recorded("stablecoins.json") as { peggedAssets: unknown[] }).peggedAssets ?? []) : [];
  return { peggedAssets: [...list, ...shaped] };
}

/**
 * `/stablecoinprices`: every day's price by gecko_id, whole history (as DefiLlama's answer is):
 * the cast's stablecoins at their figures; the recorded list's coins (non-dollar pegs among them)
 * at their recorded price moved by at most 0.2% a day (SHAPED: their history was not recorded).
 */
function stablecoinPrices(day: string) {
  const list = haveRecordedDefillama() ? ((recorded("stablecoins.json") as { peggedAssets: { gecko_id?: string | null; price?: number | null }[] }).peggedAssets ?? []) : [];
  const priced = list.filter((c): c is { gecko_id: string; price: number } => typeof c.gecko_id === "string" && typeof c.price === "number");
  return daysBetween(HISTORY_FROM, day).map((d) => ({
    date: unix(d),
    prices: Object.fromEntries([...STABLECOINS.map((s) => [s.gecko_id, s.price(d)]), ...priced.map((c) => [c.gecko_id, c.price * (1 + 0.002 * wobble(c.gecko_id, d))])]),
  }));
}

function stablecoin(id: string, day: string) {
  const s = STABLECOINS.find((x) => x.id === id);
  if (!s) return undefined;
  return {
    ...stablecoinHead(s),
    description: s.description,
    url: `https://example.org/stablecoin/${s.symbol.toLowerCase()}`,
    tokens: daysBetween(addDays(day, -90), day).map((d) => ({ date: unix(d), circulating: { peggedUSD: s.circulating(d) } })),
  };
}

function schedule(slug: string, day: string) {
  const s = SCHEDULES[slug];
  if (!s) return undefined;
  const cliff = addDays(day, s.cliffDay - offset(day));
  const points = daysBetween(addDays(day, -30), addDays(day, 120)).map((d) => ({ timestamp: unix(d), unlocked: d >= cliff ? s.before + s.amount : s.before, rawEmission: 0, burned: 0 }));
  return {
    documentedData: { data: [{ label: s.label, data: points }] },
    metadata: { token: `coingecko:${s.token}`, name: s.name, sources: [], categories: { [s.category]: [s.label] }, events: [] },
    supplyMetrics: { maxSupply: s.maxSupply },
    gecko_id: s.token,
  };
}

/** DefiLlama's answer to a path under one of its hosts (/api, /yields, /stablecoins, /datasets, /pro) on `day`. */
export function defillamaAnswer(path: string, day: string): unknown {
  if (path.startsWith("/pro/")) return new Response(PAID_REFUSAL, { status: 402 });
  if (path === "/api/v2/chains") return haveRecordedDefillama() ? recorded("v2_chains.json") : [{ name: "Ethereum", chainId: 1, gecko_id: "ethereum", tokenSymbol: "ETH", tvl: 6e10 }];
  if (path === "/api/protocols") return protocols();
  if (path === "/api/lite/protocols2") return { protocols: [], parentProtocols: PARENTS };
  if (path === "/api/hacks") return recordedOrShapedHacks();
  if (path === "/yields/pools") return pools(day);
  if (path === "/yields/lendBorrow") return LENDING;
  if (path === "/stablecoins/stablecoins") return stablecoins(day);
  if (path === "/stablecoins/stablecoinprices") return stablecoinPrices(day);
  if (path === "/datasets/emissionsProtocolsList") return Object.keys(SCHEDULES);
  let m: RegExpExecArray | null;
  if ((m = /^\/api\/protocol\/([^/]+)$/.exec(path))) return history(m[1]!, day);
  if ((m = /^\/api\/summary\/fees\/([^/]+)$/.exec(path))) return undefined; // answered by feesAnswer (needs the query)
  if ((m = /^\/api\/treasury\/([^/]+)$/.exec(path))) return treasury(m[1]!, day);
  if ((m = /^\/yields\/chart\/([^/]+)$/.exec(path))) return poolChart(m[1]!, day);
  if ((m = /^\/stablecoins\/stablecoin\/([^/]+)$/.exec(path))) return stablecoin(m[1]!, day);
  if ((m = /^\/datasets\/emissions\/([^/]+)$/.exec(path))) return schedule(m[1]!, day);
  return undefined;
}

export function feesAnswer(path: string, q: URLSearchParams, day: string): unknown {
  const m = /^\/api\/summary\/fees\/([^/]+)$/.exec(path);
  if (!m) return undefined;
  return feesChart(m[1]!, day, q.get("dataType") === "dailyRevenue" ? "revenue" : "fees");
}
