/**
 * The DefiLlama connector against DefiLlama's API served on localhost from fixtures in its real
 * response shapes (api, yields, stablecoins and pro hosts under path prefixes of one fake server):
 * claims, links and series rows; malformed records and answers; network faults; resuming from
 * saved answers; incremental histories.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { FetchContext, SkippedRequest } from "../../src/ingest/connector.ts";
import { ProviderHttp } from "../../src/ingest/http.ts";
import { PROTOCOL_LOOKBACK_DAYS, defillama } from "../../src/ingest/providers/defillama/index.ts";
import { priceCursor } from "../../src/ingest/providers/defillama/stablecoin-prices.ts";
import { RawStore } from "../../src/ingest/raw-store.ts";
import { type EntityClaim, ProviderOutput, type SeriesRow, addressKey, key } from "../../src/ingest/records.ts";
import { type Logger, silentLogger } from "../../src/log.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts";
import { defillamaFixture } from "../support/provider-fixtures.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { recordingLog } from "../support/recording-log.ts";

const FIXTURES = join(import.meta.dir, "fixtures", "defillama");
const TODAY = "2025-01-10";
const API_KEY = "test-key";

const LIDO_POOL = "747c1d2a-c668-4682-b9f9-296708a3dd90";
const AAVE_USDC = "aa70268e-4b52-42bf-a116-608b370f9501";
const AAVE_WETH = "e302de4d-952e-4e18-9749-0a9dc86e98bc";
const UNI_POOL = "665dc8bc-c79d-4800-97f7-304bf368e547";
const MSOL = "b3f1302b-4d1e-4e6b-8d3a-7a1a8c8f6f0a";

const fixtureCache = new Map<string, unknown>();
function fixture(name: string): unknown | undefined {
  if (!fixtureCache.has(name)) {
    const file = join(FIXTURES, name);
    fixtureCache.set(name, existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined);
  }
  return fixtureCache.get(name);
}

/** DefiLlama's hosts under path prefixes: /api, /yields, /stablecoins, /datasets, /pro. */
const route = (url: URL): unknown => defillamaFixture(url.pathname, url.searchParams, API_KEY);

const servers: FakeProvider[] = [];
function fakeServer(): FakeProvider {
  const fake = startFakeProvider(route);
  servers.push(fake);
  return fake;
}
afterEach(() => {
  for (const fake of servers.splice(0)) fake.stop();
});

interface Options {
  since?: Record<string, string>;
  apiKey?: string;
  detailLimit?: number;
  progress?: [number, number][];
  /** Where the connector's HTTP client logs (its retries and their waits). */
  log?: Logger;
}

function context(fake: FakeProvider, rawDir: string, options: Options = {}): FetchContext & { skipped: SkippedRequest[] } {
  const skipped: SkippedRequest[] = [];
  return {
    skipped,
    skip: (request) => skipped.push(request),
    http: new ProviderHttp("defillama", { log: options.log ?? silentLogger, retries: 3, backoffMs: 5, timeoutMs: 500, maxRetryAfterMs: 5000 }),
    raw: new RawStore(rawDir),
    settings: {
      urls: { api: `${fake.url}/api`, yields: `${fake.url}/yields`, stablecoins: `${fake.url}/stablecoins`, datasets: `${fake.url}/datasets`, pro: `${fake.url}/pro` },
      apiKey: options.apiKey,
    },
    log: silentLogger,
    today: TODAY,
    detailLimit: options.detailLimit ?? 3,
    since: (k) => options.since?.[k],
    progress: (done, total) => options.progress?.push([done, total]),
  };
}

function parse(rawDir: string): ProviderOutput {
  const out = new ProviderOutput("defillama", silentLogger);
  defillama.parse(new RawStore(rawDir), out);
  return out;
}

const claim = (out: ProviderOutput, k: string): EntityClaim => {
  const found = out.claims.filter((c) => c.keys[0] === k);
  expect(found).toHaveLength(1);
  return found[0]!;
};
const rows = (out: ProviderOutput, kind: string, entity?: string): SeriesRow[] =>
  (out.series.get(kind as never) ?? []).filter((r) => entity === undefined || r.entity_id === entity);
const days = (list: SeriesRow[]) => list.map((r) => r.date);

const protocol = (slug: string) => key("Protocol", "defillama", slug);
const chain = (name: string) => key("Chain", "defillama", name);
const pool = (uuid: string) => key("Pool", "defillama", uuid);

describe("defillama connector", () => {
  let fake: FakeProvider;
  let rawDir: string;
  let out: ProviderOutput;
  const progress: [number, number][] = [];
  let skipped: SkippedRequest[] = [];

  beforeAll(async () => {
    fake = startFakeProvider(route);
    rawDir = tempDir("ckg-defillama-");
    const ctx = context(fake, rawDir, { apiKey: API_KEY, progress });
    await defillama.fetch(ctx);
    skipped = ctx.skipped;
    out = parse(rawDir);
  });
  afterAll(() => fake.stop());

  test("asks each endpoint once, the histories of the largest only, and reports progress", () => {
    const asked = (path: string) => fake.requests.filter((r) => r === `GET ${path}`).length;
    for (const path of [
      "/api/v2/chains",
      "/api/protocols",
      "/api/lite/protocols2",
      "/api/hacks",
      `/pro/${API_KEY}/api/raises`,
      "/yields/pools",
      `/pro/${API_KEY}/yields/poolsBorrow`,
      "/stablecoins/stablecoins?includePrices=true",
      "/stablecoins/stablecoinprices",
      "/datasets/emissionsProtocolsList",
    ]) {
      expect(asked(path)).toBe(1);
    }
    // With a key the paid host serves lending markets; the free host is not asked.
    expect(asked("/yields/lendBorrow")).toBe(0);
    // detailLimit 3: the three largest protocols, treasuries, pools, stablecoins and unlock schedules.
    for (const slug of ["lido", "aave-v3", "uniswap-v3"]) {
      expect(asked(`/api/protocol/${slug}`)).toBe(1);
      expect(asked(`/api/summary/fees/${slug}?dataType=dailyFees`)).toBe(1);
      expect(asked(`/api/summary/fees/${slug}?dataType=dailyRevenue`)).toBe(1);
    }
    expect(asked("/api/protocol/uniswap-v2")).toBe(0);
    // Treasuries: Lido's (its record names one) and the families' (AAVE, Uniswap), largest first.
    expect(fake.requests.filter((r) => r.startsWith("GET /api/treasury/")).sort()).toEqual(["GET /api/treasury/aave", "GET /api/treasury/lido", "GET /api/treasury/uniswap"]);
    expect(fake.requests.filter((r) => r.startsWith("GET /datasets/emissions/")).sort()).toEqual(["GET /datasets/emissions/arbitrum", "GET /datasets/emissions/lido", "GET /datasets/emissions/uniswap"]);
    expect(fake.requests.filter((r) => r.startsWith("GET /yields/chart/")).sort()).toEqual([AAVE_USDC, LIDO_POOL, MSOL].map((u) => `GET /yields/chart/${u}`).sort());
    expect(fake.requests.filter((r) => r.startsWith("GET /stablecoins/stablecoin/")).sort()).toEqual(["GET /stablecoins/stablecoin/1", "GET /stablecoins/stablecoin/2", "GET /stablecoins/stablecoin/50"]);
    // uniswap-v3 has no revenue, AAVE no treasury, Lido no unlock schedule (404): normal, nothing saved, nothing skipped.
    const raw = new RawStore(rawDir);
    expect(raw.has("defillama", "revenue/uniswap-v3")).toBe(false);
    expect(raw.has("defillama", "treasury/aave")).toBe(false);
    expect(raw.has("defillama", "fees/uniswap-v3")).toBe(true);
    expect(skipped).toEqual([]);
    expect(progress).toContainEqual([3, 3]);
  });

  test("without a key: the paid raises list is skipped with the setting to set, lending markets come from the free host", async () => {
    const fake2 = fakeServer();
    const ctx = context(fake2, tempDir("ckg-defillama-"));
    await defillama.fetch(ctx);
    expect(fake2.requests.some((r) => r.includes("/pro/"))).toBe(false);
    expect(fake2.requests).toContain("GET /yields/lendBorrow");
    expect(ctx.skipped).toEqual([{ request: "raises", reason: expect.stringMatching(/paid plan only: set CKG_DEFILLAMA_API_KEY/) }]);
  });

  test("chains: DefiLlama name and CAIP-2 keys, symbol, native token", () => {
    const eth = claim(out, chain("Ethereum"));
    expect(eth.keys).toEqual([chain("Ethereum"), key("Chain", "caip2", "eip155:1")]);
    expect(eth.symbol).toBe("ETH");
    expect(eth.relations).toContainEqual(["nativeToken", key("Token", "coingecko", "ethereum")]);
    expect(eth.prominence).toBe(1);
    expect(claim(out, chain("Solana")).keys).toEqual([chain("Solana")]);
    const base = claim(out, chain("Base"));
    expect(base.keys).toEqual([chain("Base"), key("Chain", "caip2", "eip155:8453")]);
    expect(base.symbol).toBeUndefined();
  });

  test("protocols: chains, parent, fork, token, governance space, page, prominence", () => {
    const v2 = claim(out, protocol("uniswap-v2"));
    expect(v2.name).toBe("Uniswap V2");
    expect(v2.symbol).toBe("UNI");
    expect(v2.relations).toEqual([
      ["deployedOn", chain("Ethereum")],
      ["deployedOn", chain("Arbitrum")],
      ["deployedOn", chain("Base")],
      ["parentProtocol", protocol("uniswap")],
      ["governanceToken", key("Token", "coingecko", "uniswap")],
      ["governanceToken", addressKey(chain("Ethereum"), "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984")],
      ["governedBy", key("Organization", "snapshot", "uniswapgovernance.eth")],
    ]);
    expect(v2.sameAs).toEqual(["https://defillama.com/protocol/uniswap-v2"]);
    expect(v2.attributes).toContainEqual(["category", "Dexs"]);

    const sushi = claim(out, protocol("sushiswap"));
    expect(sushi.relations).toContainEqual(["forkOf", protocol("uniswap-v2")]);
    // "arbitrum:0x.." is the token on Arbitrum (lower-cased EVM address).
    expect(sushi.relations).toContainEqual(["governanceToken", addressKey(chain("Arbitrum"), "0xd4d42f0b6def4ce0383636770ef773390d85c61a")]);
    expect(sushi.relations).toContainEqual(["governedBy", key("Organization", "snapshot", "sushigov.eth")]);

    const lido = claim(out, protocol("lido"));
    expect(lido.prominence).toBe(1);
    expect(lido.symbol).toBe("LDO");
    expect(lido.attributes).toEqual([
      ["category", "Liquid Staking"],
      ["schema:url", "https://lido.fi/"],
      ["schema:description", "Liquid staking for Ethereum and Solana. Daily rewards, no lock ups."],
    ]);
    expect(lido.relations).toContainEqual(["governanceToken", addressKey(chain("Ethereum"), "0x5a98fcbea516cf06857215779fd812ca3bef1b32")]);
    expect(lido.relations).toContainEqual(["governanceToken", key("Token", "coingecko", "lido-dao")]);
    expect(claim(out, protocol("sushiswap")).prominence!).toBeLessThan(claim(out, protocol("uniswap-v2")).prominence!);

    // A fork of a protocol not in the list is skipped; a Solana token address keeps its case.
    const marinade = claim(out, protocol("marinade-liquid-staking"));
    expect(marinade.relations!.filter(([r]) => r === "forkOf")).toEqual([]);
    expect(marinade.relations).toContainEqual(["governanceToken", addressKey(chain("Solana"), "MNDEFzGvMt87ueuHvVU9VcTqsAP5b3fTGPsHuuPA5ey")]);

    // On-chain governors are not Snapshot spaces.
    const aave = claim(out, protocol("aave-v3"));
    expect(aave.relations!.filter(([r]) => r === "governedBy")).toEqual([["governedBy", key("Organization", "snapshot", "aave.eth")]]);
    expect(aave.relations).toContainEqual(["parentProtocol", protocol("aave")]);
    expect(aave.symbol).toBe("AAVE");
  });

  test("parent protocols are claimed under their slugs, with token and governance", () => {
    const uniswap = claim(out, protocol("uniswap"));
    expect(uniswap.name).toBe("Uniswap");
    expect(uniswap.relations).toContainEqual(["governanceToken", key("Token", "coingecko", "uniswap")]);
    expect(uniswap.relations).toContainEqual(["governedBy", key("Organization", "snapshot", "uniswapgovernance.eth")]);
    expect(uniswap.sameAs).toEqual(["https://defillama.com/protocol/uniswap"]);
    expect(uniswap.prominence).toBe(claim(out, protocol("uniswap-v3")).prominence!);
    const aave = claim(out, protocol("aave"));
    expect(aave.name).toBe("AAVE");
    expect(aave.relations).toContainEqual(["governanceToken", key("Token", "coingecko", "aave")]);
  });

  test("links: a token CoinGecko names is issued by the top of its protocol family", () => {
    expect(out.links).toContainEqual({ subject: key("Token", "coingecko", "uniswap"), relation: "issuedBy", object: protocol("uniswap") });
    expect(out.links).toContainEqual({ subject: addressKey(chain("Ethereum"), "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984"), relation: "issuedBy", object: protocol("uniswap") });
    expect(out.links).toContainEqual({ subject: key("Token", "coingecko", "lido-dao"), relation: "issuedBy", object: protocol("lido") });
    expect(out.links).toContainEqual({ subject: key("Token", "coingecko", "aave"), relation: "issuedBy", object: protocol("aave") });
    expect(out.links.filter((l) => l.object === protocol("uniswap-v2"))).toEqual([]);
    // Each fact once, although Uniswap V2 and V3 both name UNI.
    expect(new Set(out.links.map((l) => JSON.stringify(l))).size).toBe(out.links.length);
  });

  test("malformed records are rejected with a reason and the rest parsed", () => {
    expect(out.rejected).toContainEqual({ provider: "defillama", what: 'protocol "broken-protocol"', reason: expect.stringContaining("chains") });
    expect(out.rejected).toContainEqual({ provider: "defillama", what: 'pool "0d1c8f1e-2b7a-4c55-9a11-3c1e0c9d1f00"', reason: expect.stringContaining("tvlUsd") });
    expect(out.rejected).toContainEqual({ provider: "defillama", what: "raise (unnamed) (raises)", reason: expect.stringContaining("name") });
    // The malformed incidents of /hacks are test/ingest/defillama-hacks.test.ts's.
    expect(out.rejected.filter((r) => !r.what.startsWith("hack "))).toHaveLength(3);
    expect(out.claims.some((c) => c.keys[0] === protocol("broken-protocol"))).toBe(false);
    expect(out.claims.filter((c) => c.type === "Protocol")).toHaveLength(6 + 2);
    expect(out.claims.filter((c) => c.type === "Pool")).toHaveLength(5);
  });

  test("protocol rows: TVL by day (the current hour counts for today), fees and revenue merged by date", () => {
    const lido = rows(out, "protocol", protocol("lido"));
    expect(days(lido)).toEqual(["2025-01-06", "2025-01-07", "2025-01-08", "2025-01-09", "2025-01-10"]);
    expect(lido[0]).toEqual({
      entity_id: protocol("lido"),
      date: "2025-01-06",
      tvlUsd: 24010000000,
      feesUsd: 3200000,
      revenueUsd: 320000,
      incentivesUsd: null,
      earningsUsd: null,
      dailyUsers: null,
      transactions: null,
    });
    expect(lido[4]).toMatchObject({ date: "2025-01-10", tvlUsd: 24512345678.9, feesUsd: null, revenueUsd: null });
    expect(lido[3]).toMatchObject({ date: "2025-01-09", tvlUsd: 24312500000, feesUsd: 3412345.6, revenueUsd: 341234.56 });
    // No revenue answer (404) for Uniswap V3: revenue stays null.
    expect(rows(out, "protocol", protocol("uniswap-v3"))).toEqual([
      expect.objectContaining({ date: "2025-01-09", tvlUsd: 4080000000, feesUsd: 2500000, revenueUsd: null }),
      expect.objectContaining({ date: "2025-01-10", tvlUsd: 4212345678, feesUsd: null, revenueUsd: null }),
    ]);
    expect(days(rows(out, "protocol", protocol("aave-v3")))).toEqual(["2025-01-08", "2025-01-09", "2025-01-10"]);
    expect(rows(out, "protocol", protocol("uniswap-v2"))).toEqual([]);
  });

  test("protocol_chain rows: one per chain and day, borrowed and staking parts skipped", () => {
    const aave = rows(out, "protocol_chain", protocol("aave-v3"));
    expect([...new Set(aave.map((r) => r.chain_id))].sort()).toEqual([chain("Arbitrum"), chain("Base"), chain("Ethereum")]);
    expect(aave).toHaveLength(9);
    expect(aave).toContainEqual({ entity_id: protocol("aave-v3"), date: "2025-01-10", chain_id: chain("Base"), tvlUsd: 1023456789 });
    const lido = rows(out, "protocol_chain", protocol("lido")).filter((r) => r.date === "2025-01-10");
    expect(lido).toEqual([
      { entity_id: protocol("lido"), date: "2025-01-10", chain_id: chain("Ethereum"), tvlUsd: 24500000000 },
      { entity_id: protocol("lido"), date: "2025-01-10", chain_id: chain("Solana"), tvlUsd: 12345678.9 },
    ]);
  });

  test("pools: claims, today's row from the list, history of the largest", () => {
    const uni = claim(out, pool(UNI_POOL));
    expect(uni.name).toBe("uniswap-v3 USDC-WETH");
    expect(uni.relations).toEqual([
      ["poolOf", protocol("uniswap-v3")],
      ["deployedOn", chain("Ethereum")],
      ["poolToken", addressKey(chain("Ethereum"), "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48")],
      ["poolToken", addressKey(chain("Ethereum"), "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2")],
    ]);
    expect(uni.attributes).toEqual([
      ["poolKind", "multi"],
      ["schema:description", "0.05%"],
    ]);
    // The zero address is the chain's native coin.
    expect(claim(out, pool(LIDO_POOL)).relations).toContainEqual(["poolToken", key("Token", "coingecko", "ethereum")]);

    expect(rows(out, "pool", pool(UNI_POOL))).toEqual([
      {
        entity_id: pool(UNI_POOL),
        date: TODAY,
        protocol_id: protocol("uniswap-v3"),
        chain_id: chain("Ethereum"),
        tvlUsd: 250000000,
        apy: 12.5,
        apyBase: 12.5,
        apyReward: null,
        volumeUsd: 180000000,
      },
    ]);
    const lido = rows(out, "pool", pool(LIDO_POOL)).sort((a, b) => String(a.date).localeCompare(String(b.date)));
    expect(days(lido)).toEqual(["2025-01-08", "2025-01-09", TODAY]);
    expect(lido[0]).toEqual({ entity_id: pool(LIDO_POOL), date: "2025-01-08", protocol_id: protocol("lido"), chain_id: chain("Ethereum"), tvlUsd: 24200000000, apy: 2.95, apyBase: 2.95, apyReward: null, volumeUsd: null });
    expect(lido[2]).toMatchObject({ date: TODAY, tvlUsd: 24500000000, apy: 2.9 });
    expect(rows(out, "pool")).toHaveLength(5 + 2 + 1 + 1);
  });

  test("lending markets: claims joined with the pools, today's row", () => {
    const usdc = claim(out, key("LendingMarket", "defillama", AAVE_USDC));
    expect(usdc.name).toBe("aave-v3 USDC");
    expect(usdc.relations).toEqual([
      ["marketOf", protocol("aave-v3")],
      ["marketAsset", addressKey(chain("Ethereum"), "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48")],
      ["deployedOn", chain("Ethereum")],
    ]);
    const lending = rows(out, "lending");
    expect(lending).toHaveLength(2);
    expect(lending[0]).toEqual({
      entity_id: key("LendingMarket", "defillama", AAVE_USDC),
      date: TODAY,
      protocol_id: protocol("aave-v3"),
      asset_id: addressKey(chain("Ethereum"), "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"),
      totalSupplyUsd: 3500000000,
      totalBorrowUsd: 2000000000,
      utilization: 2 / 3.5,
      supplyApy: 5.1,
      borrowApy: 6.4,
      debtCeilingUsd: null,
    });
    expect(lending[1]).toMatchObject({ entity_id: key("LendingMarket", "defillama", AAVE_WETH), utilization: 0.2, supplyApy: 2, debtCeilingUsd: null });
    expect(lending[1]!.borrowApy).toBeCloseTo(2.8, 10);
  });

  test("stablecoins: tokens with both keys, today's row, histories with the price history's prices", () => {
    const usdt = claim(out, key("Token", "defillama-stablecoin", "1"));
    expect(usdt.labels).toEqual(["Stablecoin"]);
    expect(usdt.keys).toEqual([key("Token", "defillama-stablecoin", "1"), key("Token", "coingecko", "tether")]);
    expect(usdt.symbol).toBe("USDT");
    // The list's peg, and the detail's description (with how it is minted and redeemed) and homepage.
    expect(usdt.attributes).toEqual([
      ["pegCurrency", "USD"],
      ["pegMechanism", "fiat-backed"],
      ["schema:description", "Launched in 2014, Tether tokens pioneered the stable digital currency space. Tether mints and redeems USDT for qualified customers."],
      ["schema:url", "https://tether.to/"],
    ]);
    expect(usdt.relations).toContainEqual(["deployedOn", chain("Ethereum")]);

    const tether = rows(out, "stablecoin", key("Token", "defillama-stablecoin", "1")).sort((a, b) => String(a.date).localeCompare(String(b.date)));
    expect(days(tether)).toEqual(["2025-01-06", "2025-01-07", "2025-01-08", "2025-01-09", TODAY]);
    // A day the price history does not cover has no price; a covered one has it (given as text here).
    expect(tether[0]).toEqual({ entity_id: key("Token", "defillama-stablecoin", "1"), date: "2025-01-06", price: null, circulatingUsd: 136500000000, pegCurrency: "USD" });
    expect(tether[3]).toEqual({ entity_id: key("Token", "defillama-stablecoin", "1"), date: "2025-01-09", price: 1.0002, circulatingUsd: 137000000000, pegCurrency: "USD" });
    // Today's price is the list's (the price history's own today is left to it).
    expect(tether[4]).toEqual({ entity_id: key("Token", "defillama-stablecoin", "1"), date: TODAY, price: 1.0003, circulatingUsd: 137123456789.12, pegCurrency: "USD" });
    // USDC's null and 0 are no price.
    expect(rows(out, "stablecoin", key("Token", "defillama-stablecoin", "2")).map((r) => [r.date, r.price]).sort()).toEqual([["2025-01-08", 0.9998], ["2025-01-09", null], [TODAY, 0.9999]]);
    // A euro coin: valued at each day's price; a day with a price and no supply history is a row of its price.
    const eurc = rows(out, "stablecoin", key("Token", "defillama-stablecoin", "50")).sort((a, b) => String(a.date).localeCompare(String(b.date)));
    expect(eurc).toEqual([
      { entity_id: key("Token", "defillama-stablecoin", "50"), date: "2025-01-08", price: 1.035, circulatingUsd: null, pegCurrency: "EUR" },
      { entity_id: key("Token", "defillama-stablecoin", "50"), date: "2025-01-09", price: 1.038, circulatingUsd: 89000000 * 1.038, pegCurrency: "EUR" },
      { entity_id: key("Token", "defillama-stablecoin", "50"), date: TODAY, price: 1.04, circulatingUsd: 90000000 * 1.04, pegCurrency: "EUR" },
    ]);
  });

  test("raises: funding rounds of the protocols DefiLlama ids name, investors as venture funds", () => {
    const uniswap = claim(out, key("FundingRound", "defillama", "parent#uniswap-2022-10-13-Series B"));
    expect(uniswap.name).toBe("Uniswap Series B");
    expect(uniswap.attributes).toEqual([
      ["roundStage", "Series B"],
      ["amountUsd", 165_000_000],
      ["announcedOn", "2022-10-13"],
      ["schema:url", "https://blog.uniswap.org/bringing-web3-to-everyone"],
    ]);
    expect(uniswap.relations).toEqual([
      ["raisedBy", protocol("uniswap")],
      ["leadInvestor", key("Organization", "defillama-investor", "polychain-capital")],
      ["investor", key("Organization", "defillama-investor", "a16z-crypto")],
      ["investor", key("Organization", "defillama-investor", "paradigm")],
      ["investor", key("Organization", "defillama-investor", "sv-angel")],
    ]);
    // defillamaId "182" is Lido's protocol id.
    expect(claim(out, key("FundingRound", "defillama", "182-2022-03-03-Strategic")).relations).toContainEqual(["raisedBy", protocol("lido")]);
    const flashbots = claim(out, key("FundingRound", "defillama", "Flashbots-2023-06-15-Series B"));
    expect(flashbots.relations!.filter(([r]) => r === "raisedBy")).toEqual([]);

    const paradigm = claim(out, key("Organization", "defillama-investor", "paradigm"));
    expect(paradigm).toEqual({ type: "Organization", labels: ["VentureFund"], keys: [key("Organization", "defillama-investor", "paradigm")], name: "Paradigm" });
    // The paid list's three rounds, and Aave's from its own history (free); Uniswap's Series B is in
    // both its history and the list, and counts once.
    expect(out.claims.filter((c) => c.type === "FundingRound")).toHaveLength(4);
    expect(out.claims.filter((c) => c.type === "Organization")).toHaveLength(8);
    const aave = claim(out, key("FundingRound", "defillama", "parent#aave-2020-07-15-Strategic"));
    expect(aave.relations).toContainEqual(["raisedBy", protocol("aave")]);
  });

  test("who invested in what: each investor of a round invested in the top of the family it names", () => {
    const investedIn = (investor: string) => out.links.filter((l) => l.subject === key("Organization", "defillama-investor", investor) && l.relation === "investedIn").map((l) => l.object);
    expect(investedIn("paradigm").sort()).toEqual([protocol("lido"), protocol("uniswap")]);
    expect(investedIn("three-arrows-capital")).toEqual([protocol("aave")]);
    expect(investedIn("parafi-capital")).toEqual([protocol("aave")]);
    // A round naming no known protocol gives no investment.
    expect(out.links.filter((l) => l.relation === "investedIn" && !l.object.startsWith("Protocol:"))).toEqual([]);
  });

  test("unlock schedules: each day's rise of each tranche, by allocation group; cliff events when a schedule has no tranches", () => {
    const arb = key("Token", "coingecko", "arbitrum");
    const schedule = key("VestingSchedule", "defillama", "arbitrum");
    expect(claim(out, schedule)).toMatchObject({ name: "Arbitrum token unlocks", relations: [["vestingOf", arb]], attributes: [["vestingStart", "2024-12-01"], ["vestingEnd", "2025-03-16"]] });
    // No CoinGecko market in this run: value and share of circulating are unknown.
    expect(rows(out, "unlocks", arb)).toEqual([
      { entity_id: arb, date: "2024-12-01", schedule_id: schedule, allocation_group: "team", amount: 56500000, valueUsd: null, shareOfSupply: 0.00565, shareOfCirculating: null },
      { entity_id: arb, date: "2025-01-21", schedule_id: schedule, allocation_group: "treasury", amount: 10000000, valueUsd: null, shareOfSupply: 0.001, shareOfCirculating: null },
      { entity_id: arb, date: "2025-03-16", schedule_id: schedule, allocation_group: "team", amount: 92650000, valueUsd: null, shareOfSupply: 0.009265, shareOfCirculating: null },
    ]);
    // Uniswap's schedule has events only: its cliff counts, its linear stream (a rate, not an amount) does not.
    expect(rows(out, "unlocks", key("Token", "coingecko", "uniswap")).map((r) => [r.date, r.allocation_group, r.amount])).toEqual([["2025-01-25", "ecosystem", 10000000]]);
  });

  test("scheduled unlocks are valued at the price and circulating supply of CoinGecko's markets of the same run", () => {
    const raw = new RawStore(tempDir("ckg-defillama-"));
    raw.save("defillama", "emission/arbitrum", { day: TODAY, since: null, body: fixture("emission-arbitrum.json") });
    raw.save("coingecko", `markets/${TODAY}/1`, [{ id: "arbitrum", symbol: "arb", name: "Arbitrum", current_price: 0.75, market_cap: 3.15e9, circulating_supply: 4.2e9 }]);
    const valued = new ProviderOutput("defillama", silentLogger);
    defillama.parse(raw, valued);
    const march = rows(valued, "unlocks").find((r) => r.date === "2025-03-16")!;
    expect(march.valueUsd).toBeCloseTo(92650000 * 0.75, 4);
    expect(march.shareOfCirculating).toBeCloseTo(92650000 / 4.2e9, 10);
    // A past day is not valued at today's figures.
    expect(rows(valued, "unlocks").find((r) => r.date === "2024-12-01")).toMatchObject({ valueUsd: null, shareOfCirculating: null });
  });

  test("treasuries: own token, stablecoins (symbols DefiLlama lists as stablecoins) and the rest, by day", () => {
    const lido = rows(out, "treasury", protocol("lido"));
    expect(days(lido)).toEqual(["2025-01-08", "2025-01-09", "2025-01-10"]);
    expect(lido[2]).toEqual({
      entity_id: protocol("lido"),
      date: TODAY,
      token_id: key("Token", "coingecko", "lido-dao"),
      totalUsd: 42_000_000 + 160_000_000,
      ownTokenUsd: 160_000_000,
      // USDC is in this run's stablecoins list; DAI is not (the fixture lists three), so it counts as other.
      stablecoinUsd: 5_000_000,
      otherUsd: 37_000_000,
      ownTokenShare: 160 / 202,
      monthlyExpensesUsd: null,
    });
    // A family's treasury: its token is the family's.
    expect(rows(out, "treasury", protocol("uniswap")).at(-1)).toMatchObject({ token_id: key("Token", "coingecko", "uniswap"), ownTokenShare: 0.99 });
  });

  test("a second fetch with the same raw folder asks only what was not saved", async () => {
    const before = fake.requests.length;
    await defillama.fetch(context(fake, rawDir, { apiKey: API_KEY }));
    // Only the answers DefiLlama does not have (no revenue for Uniswap V3, no treasury for AAVE, no
    // unlock schedule for Lido) are asked again.
    expect(fake.requests.slice(before).sort()).toEqual(["GET /api/summary/fees/uniswap-v3?dataType=dailyRevenue", "GET /api/treasury/aave", "GET /datasets/emissions/lido"]);
  });
});

describe("defillama connector under faults", () => {
  test("429 with Retry-After, 500, a hang past the time limit, truncated and malformed JSON: each retried to success", async () => {
    const fake = fakeServer();
    fake.fail("/api/v2/chains", { kind: "429", retryAfter: "1" });
    fake.fail("/api/protocols", { kind: "500" });
    fake.fail("/yields/pools", { kind: "hang", ms: 800 });
    fake.fail("/stablecoins/stablecoins", { kind: "truncated" });
    fake.fail("/datasets/emissionsProtocolsList", { kind: "malformed" });
    const rawDir = tempDir("ckg-defillama-");
    const http = recordingLog();
    const ctx = context(fake, rawDir, { log: http.log });
    await defillama.fetch(ctx);
    // Waited what Retry-After asked before asking again; the other faults, its short backoff.
    const retries = http.lines.filter((l) => l.msg === "provider request failed; retrying");
    expect(retries.filter((l) => String(l.url).endsWith("/api/v2/chains")).map((l) => l.wait_ms)).toEqual([1000]);
    expect(retries.filter((l) => !String(l.url).endsWith("/api/v2/chains")).every((l) => (l.wait_ms as number) < 1000)).toBe(true);
    for (const path of ["/api/v2/chains", "/api/protocols", "/yields/pools", "/stablecoins/stablecoins?includePrices=true", "/datasets/emissionsProtocolsList"]) {
      expect(fake.requests.filter((r) => r === `GET ${path}`)).toHaveLength(2);
    }
    expect(ctx.http.stats.rateLimited).toBe(1);
    expect(ctx.http.stats.retries).toBe(5);
    // No key: only the paid raises list is skipped.
    expect(ctx.skipped.map((s) => s.request)).toEqual(["raises"]);

    const out = parse(rawDir);
    expect(out.claims.filter((c) => c.type === "Chain")).toHaveLength(4);
    expect(out.claims.filter((c) => c.type === "Protocol")).toHaveLength(8);
    expect(out.claims.filter((c) => c.type === "Pool")).toHaveLength(5);
    // Without the paid list, the rounds the protocol histories carry.
    expect(out.claims.filter((c) => c.type === "FundingRound")).toHaveLength(2);
    // The list, USDT's and USDC's histories, EURC's, and EURC's price of a day its history lacks.
    expect(rows(out, "stablecoin")).toHaveLength(3 + 4 + 2 + 1 + 1);
    expect(rows(out, "unlocks").length).toBeGreaterThan(0);
    expect(out.rejected.filter((r) => !r.what.startsWith("hack "))).toHaveLength(2);
  });

  test("an endpoint refusing every retry is skipped with its reason; the other requests go on; a resumed run asks only what is missing", async () => {
    const fake = fakeServer();
    fake.fail("/yields/pools", { kind: "500" }, { kind: "500" }, { kind: "500" }, { kind: "500" });
    const rawDir = tempDir("ckg-defillama-");
    const ctx = context(fake, rawDir);
    await defillama.fetch(ctx);
    expect(fake.requests.filter((r) => r === "GET /yields/pools")).toHaveLength(4);
    expect(ctx.skipped).toContainEqual({ request: "pools", url: `${fake.url}/yields/pools`, status: 500, reason: `defillama answered 500 for ${fake.url}/yields/pools` });
    const raw = new RawStore(rawDir);
    for (const k of ["chains", "protocols", "parents", "protocol/lido", "fees/lido", "revenue/lido", "protocol/aave-v3", "protocol/uniswap-v3", "stablecoins", "lendBorrow", "treasury/lido"]) {
      expect(raw.has("defillama", k)).toBe(true);
    }
    expect(raw.has("defillama", "pools")).toBe(false);

    // What is there parses: lending markets need the pools list, so they wait for it.
    const partial = parse(rawDir);
    expect(rows(partial, "protocol", protocol("lido"))).toHaveLength(5);
    expect(rows(partial, "stablecoin").length).toBeGreaterThan(0);
    expect(rows(partial, "pool")).toEqual([]);

    const before = fake.requests.length;
    await defillama.fetch(context(fake, rawDir));
    const second = fake.requests.slice(before);
    expect(second.filter((r) => r.startsWith("GET /api/") && !r.includes("dataType=dailyRevenue") && !r.includes("/treasury/aave"))).toEqual([]);
    expect(second).toContain("GET /yields/pools");
    expect(rows(parse(rawDir), "pool")).toHaveLength(9);
  });

  test("a paid-plan answer (402) is skipped with what the provider says, never a failed run", async () => {
    const fake = startFakeProvider((url) =>
      url.pathname === "/yields/lendBorrow" ? new Response("Upgrade to the paid API plan at https://defillama.com/subscription", { status: 402 }) : route(url),
    );
    servers.push(fake);
    const ctx = context(fake, tempDir("ckg-defillama-"));
    await defillama.fetch(ctx);
    expect(ctx.skipped).toContainEqual(expect.objectContaining({ request: "lendBorrow", status: 402, reason: expect.stringContaining("Upgrade to the paid API plan") }));
    expect(fake.requests.filter((r) => r === "GET /yields/lendBorrow")).toHaveLength(1); // a 4xx is not asked again
  });
});

describe("defillama connector, incremental", () => {
  test("with since() giving a day, parse yields only later days of that history", async () => {
    const fake = fakeServer();
    const rawDir = tempDir("ckg-defillama-");
    const since = {
      [protocol("lido")]: "2025-01-08",
      [pool(LIDO_POOL)]: "2025-01-08",
      [key("Token", "defillama-stablecoin", "1")]: "2025-01-08",
      // The one price history of every stablecoin keeps a cursor of each coin's prices.
      [priceCursor("1")]: "2025-01-08",
      [priceCursor("2")]: "2025-01-08",
      [priceCursor("50")]: "2025-01-08",
    };
    await defillama.fetch(context(fake, rawDir, { since }));
    const saved = new RawStore(rawDir).load("defillama", "protocol/lido") as { day: string; since: string | null };
    // Protocol histories are taken again from a little before the cursor: fees arrive a day late.
    expect(PROTOCOL_LOOKBACK_DAYS).toBe(2);
    expect(saved).toMatchObject({ day: TODAY, since: "2025-01-06" });
    const out = parse(rawDir);
    expect(days(rows(out, "protocol", protocol("lido")))).toEqual(["2025-01-07", "2025-01-08", "2025-01-09", "2025-01-10"]);
    expect(rows(out, "protocol", protocol("lido"))[0]).toMatchObject({ date: "2025-01-07", tvlUsd: 24111000000, feesUsd: 3300000, revenueUsd: 330000 });
    expect([...new Set(days(rows(out, "protocol_chain", protocol("lido"))))]).toEqual(["2025-01-07", "2025-01-08", "2025-01-09", "2025-01-10"]);
    expect(days(rows(out, "pool", pool(LIDO_POOL))).sort()).toEqual(["2025-01-09", TODAY]);
    expect(days(rows(out, "stablecoin", key("Token", "defillama-stablecoin", "1"))).sort()).toEqual(["2025-01-09", TODAY]);
    // It is kept from the earliest of them, and each coin's price cursor reaches the answer's last day.
    expect(new RawStore(rawDir).load("defillama", "stablecoinprices")).toMatchObject({ since: "2025-01-08" });
    expect(days(rows(out, "stablecoin", key("Token", "defillama-stablecoin", "50"))).sort()).toEqual(["2025-01-09", TODAY]);
    expect([priceCursor("1"), priceCursor("2"), priceCursor("50")].map((k) => out.reached.get(k))).toEqual([TODAY, TODAY, TODAY]);
    // Histories without a cursor are whole.
    expect(days(rows(out, "protocol", protocol("aave-v3")))).toEqual(["2025-01-08", "2025-01-09", "2025-01-10"]);
    expect(days(rows(out, "pool", pool(AAVE_USDC))).sort()).toEqual(["2025-01-09", TODAY]);
  });
});

describe("defillama parse of unusable answers", () => {
  test("answers of the wrong shape and unreadable files are rejected; the rest parses; parse never throws", () => {
    const rawDir = tempDir("ckg-defillama-");
    const raw = new RawStore(rawDir);
    const envelope = (body: unknown) => ({ day: TODAY, since: null, body });
    raw.save("defillama", "chains", envelope({ error: "Internal server error" }));
    raw.save("defillama", "protocols", envelope({ message: "Protocol not found" }));
    raw.save("defillama", "pools", envelope({ status: "success", data: "none" }));
    raw.save("defillama", "raises", [1, 2, 3]); // not a saved answer
    raw.save("defillama", "protocol/lido", envelope({ message: "not found" }));
    raw.save("defillama", "fees/lido", envelope({ totalDataChart: [[1736121600, 5], ["yesterday", 6], [1736208000, "x"]] }));
    raw.save("defillama", "stablecoins", envelope(fixture("stablecoins.json")));
    mkdirSync(join(rawDir, "defillama", "stablecoin"), { recursive: true });
    writeFileSync(join(rawDir, "defillama", "stablecoin", "2.json"), '{"day": "2025-01-10", "since": nu');

    const out = new ProviderOutput("defillama", silentLogger);
    expect(() => defillama.parse(raw, out)).not.toThrow();
    const what = out.rejected.map((r) => r.what);
    expect(what).toEqual(expect.arrayContaining(["chains", "protocols", "pools", "raises", "protocol/lido", "stablecoin/2", "fees/lido point"]));
    expect(out.rejected.find((r) => r.what === "chains")!.reason).toBe("answer is not a list");
    expect(out.rejected.find((r) => r.what === "pools")!.reason).toBe('answer has no list "data"');
    expect(out.rejected.find((r) => r.what === "stablecoin/2")!.reason).toContain("unreadable");
    expect(out.rejected.filter((r) => r.what === "fees/lido point")).toHaveLength(2);
    // The good answers still parse.
    expect(out.claims.filter((c) => c.labels?.includes("Stablecoin"))).toHaveLength(3);
    expect(rows(out, "protocol", protocol("lido"))).toEqual([expect.objectContaining({ date: "2025-01-06", tvlUsd: null, feesUsd: 5 })]);
  });
});

describe("defillama without a companion answer", () => {
  test("protocols without the parent list (lite/protocols2): each child's parent link is counted as unresolved, with the reason", () => {
    const rawDir = tempDir("ckg-defillama-");
    const raw = new RawStore(rawDir);
    raw.save("defillama", "protocols", { day: TODAY, since: null, body: fixture("protocols.json") });
    const out = new ProviderOutput("defillama", silentLogger);
    defillama.parse(raw, out);
    // aave-v3, uniswap-v3 and uniswap-v2 name a parent; lido, marinade and sushiswap do not.
    expect(out.leftOut.get("parent protocol unresolved: no parent list (lite/protocols2) in this run")).toBe(3);
    expect(out.claims.some((c) => c.keys.includes(protocol("lido")))).toBe(true);
  });
});
