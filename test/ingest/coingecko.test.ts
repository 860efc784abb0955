import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FetchContext } from "../../src/ingest/connector.ts";
import { HISTORY_DAYS, apiKeyHeaders } from "../../src/ingest/providers/coingecko/fetch.ts";
import { coingecko } from "../../src/ingest/providers/coingecko/index.ts";
import { prominenceOfRank } from "../../src/ingest/providers/coingecko/parse-coins.ts";
import { RawStore } from "../../src/ingest/raw-store.ts";
import { type EntityClaim, ProviderOutput, type SeriesRow, addressKey, key } from "../../src/ingest/records.ts";
import { type Logger, silentLogger } from "../../src/log.ts";
import { testFetchContext } from "../support/fetch-context.ts";
import { startFakeProvider } from "../support/fake-provider.ts";
import { recordingLog } from "../support/recording-log.ts";
import { haveRecording, readRecording, skipWithout } from "../support/shared-recordings.ts";
import { tempDir } from "../support/temp-dirs.ts";

const FIXTURES = join(import.meta.dir, "fixtures", "coingecko");
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURES, name), "utf8"));
/** Recorded by coingecko_ruby, read in place (../shared/real-api/third-party/coingecko/ruby). */
const RUBY = "third-party/coingecko/ruby";
const recorded = (name: string): unknown => readRecording(`${RUBY}/${name}`);

const API = "/api/v3";
const DAY1 = "2024-03-03";
const DAY2 = "2024-03-04";
const unix = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

/** API keys the fake saw. */
const keysSeen: (string | null)[] = [];

const fake = startFakeProvider((url, request) => {
  keysSeen.push(request.headers.get("x-cg-demo-api-key"));
  const path = url.pathname.slice(API.length);
  const q = url.searchParams;
  if (path === "/asset_platforms") return fixture("asset_platforms.json");
  // Recorded answers (shared/real-api/third-party/coingecko/ruby): the categories list and two coins'
  // records. Where that folder is absent the list is empty and the records 404, and only the test of
  // those records skips (the others never read them).
  if (path === "/coins/categories/list") return haveRecording(`${RUBY}/categories_list.json`) ? recorded("categories_list.json") : [];
  const record = /^\/coins\/(bitcoin|tether)$/.exec(path);
  if (record && haveRecording(RUBY)) {
    if (q.get("tickers") !== "true" || q.get("market_data") !== "false") return Response.json({ error: "bad query" }, { status: 400 });
    return recorded(record[1] === "bitcoin" ? "coin_bitcoin.json" : "coin_tether_by_contract.json");
  }
  if (path === "/coins/list") {
    if (q.get("include_platform") !== "true") return Response.json({ error: "platforms not asked" }, { status: 400 });
    // Two bad records among good ones.
    return [...(fixture("coins_list.json") as unknown[]), { id: "broken-coin", symbol: 7, name: "Broken" }, { id: "", symbol: "x", name: "" }];
  }
  if (path === "/coins/markets") {
    if (q.get("vs_currency") !== "usd" || q.get("per_page") !== "250") return Response.json({ error: "bad query" }, { status: 400 });
    if (q.get("category") === "stablecoins") return fixture("markets_stablecoins.json");
    if (q.get("page") === "1") return fixture("markets_page1.json");
    if (q.get("page") === "2") return fixture("markets_page2.json");
    return [];
  }
  const chart = /^\/coins\/([^/]+)\/market_chart\/range$/.exec(path);
  if (chart) {
    const from = Number(q.get("from")) * 1000;
    const to = Number(q.get("to")) * 1000;
    if (!(from > 0 && to > from) || q.get("vs_currency") !== "usd") return Response.json({ error: "bad range" }, { status: 400 });
    let answer: Record<string, [number, number][]>;
    try {
      answer = fixture(`market_chart_${decodeURIComponent(chart[1]!)}.json`) as typeof answer;
    } catch {
      return { prices: [], market_caps: [], total_volumes: [] };
    }
    // Like the real API, a point a little before `from` may come along (parse must drop it).
    const keep = (points: [number, number][]) => points.filter(([t]) => t >= from - 3_600_000 && t <= to);
    return { prices: keep(answer.prices!), market_caps: keep(answer.market_caps!), total_volumes: keep(answer.total_volumes!) };
  }
  return undefined;
});

const freshStore = () => new RawStore(tempDir("ckg-coingecko-"));

afterAll(() => {
  fake.stop();
});

function context(raw: RawStore, options: { today?: string; since?: string; detailLimit?: number; apiKey?: string; details?: number; log?: Logger } = {}): ReturnType<typeof testFetchContext> {
  return testFetchContext("coingecko", raw, { urls: { api: `${fake.url}${API}` }, apiKey: options.apiKey, limits: { details: options.details ?? 0 } }, {
    today: options.today ?? DAY1,
    detailLimit: options.detailLimit ?? 1000,
    since: () => options.since,
    log: options.log,
  });
}

function parse(raw: RawStore): ProviderOutput {
  const out = new ProviderOutput("coingecko", silentLogger);
  coingecko.parse(raw, out);
  return out;
}

const claimOf = (out: ProviderOutput, k: string): EntityClaim | undefined => out.claims.find((c) => c.keys[0] === k);
const rowsOf = (out: ProviderOutput, id: string): SeriesRow[] => (out.series.get("token") ?? []).filter((r) => r.entity_id === key("Token", "coingecko", id));
const asked = (from: number, pattern: RegExp) => fake.requests.slice(from).filter((r) => pattern.test(r));

describe("coingecko connector", () => {
  const shared = freshStore();
  let afterFirstRun = 0;

  test("fetches through a 429, a 500, a hang, truncated and malformed JSON, paging until an empty page", async () => {
    const start = fake.requests.length;
    fake.fail(`${API}/asset_platforms`, { kind: "429", retryAfter: "1" });
    fake.fail(`${API}/coins/list`, { kind: "500" });
    fake.fail(`${API}/coins/markets`, { kind: "truncated" });
    fake.fail(`${API}/coins/bitcoin/market_chart/range`, { kind: "hang", ms: 900 });
    fake.fail(`${API}/coins/chainlink/market_chart/range`, { kind: "malformed" });
    const http = recordingLog();
    const ctx = context(shared, { apiKey: "demo-key", log: http.log });
    const progress: [number, number][] = [];
    ctx.progress = (done, total) => progress.push([done, total]);
    await coingecko.fetch(ctx);
    afterFirstRun = fake.requests.length;

    // The 429 was waited out (Retry-After: 1) before the second try.
    const waits = http.lines.filter((l) => l.msg === "provider request failed; retrying" && String(l.url).endsWith("/asset_platforms")).map((l) => l.wait_ms);
    expect(waits).toEqual([1000]);
    expect(asked(start, /\/asset_platforms$/)).toHaveLength(2);
    expect(asked(start, /\/coins\/list\?include_platform=true$/)).toHaveLength(2);
    expect(ctx.http.stats.rateLimited).toBe(1);
    expect(ctx.http.stats.retries).toBe(5);

    // Pages 1 (twice: truncated first), 2 and the empty 3; never 4.
    const pages = asked(start, /\/coins\/markets\?/).filter((r) => !r.includes("category="));
    expect(pages.map((r) => new URL(r.split(" ")[1]!, fake.url).searchParams.get("page"))).toEqual(["1", "1", "2", "3"]);
    expect(pages[0]).toContain("order=market_cap_desc");
    expect(asked(start, /category=stablecoins/)).toHaveLength(1);

    // Charts of all nine coins on the pages, from a year back to the end of today; bitcoin after
    // its hang, chainlink after its malformed answer.
    const charts = asked(start, /market_chart\/range/);
    expect(charts).toHaveLength(11);
    expect(asked(start, /\/coins\/bitcoin\/market_chart/)).toHaveLength(2);
    expect(asked(start, /\/coins\/chainlink\/market_chart/)).toHaveLength(2);
    const from = unix(DAY1) - HISTORY_DAYS * 86_400;
    for (const r of charts) expect(r).toContain(`vs_currency=usd&from=${from}&to=${unix(DAY1) + 86_399}`);
    expect(shared.keys("coingecko", "market_chart/bitcoin/")).toEqual([`market_chart/bitcoin/2023-03-04_${DAY1}`]);

    // The demo key went with every request (the host is not pro-api.coingecko.com).
    expect(keysSeen.length).toBeGreaterThan(0);
    expect(new Set(keysSeen)).toEqual(new Set(["demo-key"]));
    expect(progress.at(-1)![0]).toBe(progress.at(-1)![1]);
  });

  test("parses chains, tokens with their deployments, stablecoins and rejects bad records", () => {
    const out = parse(shared);

    const ethereum = claimOf(out, key("Chain", "coingecko", "ethereum"))!;
    expect(ethereum.keys).toEqual([key("Chain", "coingecko", "ethereum"), key("Chain", "caip2", "eip155:1")]);
    expect(ethereum.attributes).toContainEqual(["chainId", "1"]);
    expect(ethereum.relations).toEqual([["nativeToken", key("Token", "coingecko", "ethereum")]]);
    const polygon = claimOf(out, key("Chain", "coingecko", "polygon-pos"))!;
    expect(polygon.keys).toContain(key("Chain", "caip2", "eip155:137"));
    expect(polygon.aliases).toEqual(["MATIC"]);
    const solana = claimOf(out, key("Chain", "coingecko", "solana"))!;
    expect(solana.keys).toEqual([key("Chain", "coingecko", "solana")]);
    expect(solana.attributes).toEqual([]);
    expect(out.claims.filter((c) => c.type === "Chain")).toHaveLength(6);

    const usdc = claimOf(out, key("Token", "coingecko", "usd-coin"))!;
    expect(usdc.name).toBe("USDC");
    expect(usdc.symbol).toBe("USDC");
    expect(usdc.labels).toEqual(["Stablecoin"]);
    expect(usdc.keys).toContain(addressKey(key("Chain", "coingecko", "ethereum"), "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"));
    expect(usdc.keys).toContain(addressKey(key("Chain", "coingecko", "solana"), "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"));
    expect(usdc.keys).toHaveLength(6);
    expect(usdc.relations).toContainEqual(["deployedOn", key("Chain", "coingecko", "arbitrum-one")]);
    expect(usdc.relations).toHaveLength(5);
    expect(usdc.sameAs).toEqual(["https://www.coingecko.com/en/coins/usd-coin"]);
    expect(usdc.prominence).toBeCloseTo(prominenceOfRank(7));

    const bitcoin = claimOf(out, key("Token", "coingecko", "bitcoin"))!;
    expect(bitcoin.keys).toEqual([key("Token", "coingecko", "bitcoin")]);
    expect(bitcoin.prominence).toBe(1);
    expect(bitcoin.labels).toBeUndefined();
    expect(claimOf(out, key("Token", "coingecko", "tether"))!.labels).toEqual(["Stablecoin"]);
    // An empty address: deployed there, but no address key.
    const wbtc = claimOf(out, key("Token", "coingecko", "wrapped-bitcoin"))!;
    expect(wbtc.keys).toHaveLength(2);
    expect(wbtc.relations).toContainEqual(["deployedOn", key("Chain", "coingecko", "polygon-pos")]);
    // In markets but not in the list: a claim from the market record.
    const pepe = claimOf(out, key("Token", "coingecko", "pepe"))!;
    expect(pepe).toMatchObject({ name: "Pepe", symbol: "PEPE", keys: [key("Token", "coingecko", "pepe")] });
    expect(pepe.prominence).toBeCloseTo(prominenceOfRank(53));
    expect(claimOf(out, key("Token", "coingecko", "dai"))!.labels).toEqual(["Stablecoin"]);
    expect(out.claims.filter((c) => c.type === "Token")).toHaveLength(10);

    expect(out.rejected.map((r) => r.what)).toEqual(['coin "broken-coin"', 'coin ""']);
    expect(out.rejected[0]!.reason).toContain("symbol");
    expect(out.rejected[1]!.reason).toContain("empty");
  });

  test("token rows: the last value of each day from the charts, supply from the day's markets", () => {
    const out = parse(shared);
    expect(out.latestDate).toBe(DAY1);
    const btc = rowsOf(out, "bitcoin");
    expect(btc.map((r) => r.date)).toEqual(["2024-03-01", "2024-03-02", DAY1]);
    expect(btc[0]).toEqual({
      entity_id: key("Token", "coingecko", "bitcoin"),
      date: "2024-03-01",
      currentPrice: 61200,
      marketCap: Math.round(61200 * 19645000),
      totalVolume: 25500000000,
      circulatingSupply: Math.round(61200 * 19645000) / 61200,
      totalSupply: null,
    });
    expect(btc[1]!.currentPrice).toBe(62200);
    expect(btc[2]).toMatchObject({ currentPrice: 63200, circulatingSupply: 19645000, totalSupply: 21000000 });

    // No chart data: the market snapshot alone; nulls stay null.
    const eth = rowsOf(out, "ethereum");
    expect(eth).toEqual([
      { entity_id: key("Token", "coingecko", "ethereum"), date: DAY1, currentPrice: 3455.12, marketCap: 414900000000, totalVolume: 14100000000, circulatingSupply: 120080000, totalSupply: 120080000 },
    ]);
    expect(rowsOf(out, "pepe")[0]).toMatchObject({ date: DAY1, currentPrice: 0.00000245, totalSupply: null });
    expect(rowsOf(out, "dai")).toHaveLength(1);
    expect(rowsOf(out, "usd-coin").map((r) => r.currentPrice)).toEqual([0.99952, 0.99962, 0.99972]);
    expect(rowsOf(out, "chainlink")).toHaveLength(3);
    // One row per coin and day.
    const rows = out.series.get("token")!;
    expect(new Set(rows.map((r) => `${r.entity_id} ${r.date}`)).size).toBe(rows.length);
  });

  test("a second fetch with the same raw dir asks nothing already saved", async () => {
    expect(afterFirstRun).toBeGreaterThan(0);
    const before = fake.requests.length;
    await coingecko.fetch(context(shared, { apiKey: "demo-key" }));
    expect(fake.requests.slice(before)).toEqual([]);
  });

  test("the next day asks market charts only from the new day, and parse yields only the new days", async () => {
    const fresh = freshStore();
    let before = fake.requests.length;
    await coingecko.fetch(context(fresh, { today: DAY2, since: DAY1 }));
    const charts = asked(before, /market_chart\/range/);
    expect(charts).toHaveLength(9);
    for (const r of charts) expect(r).toContain(`from=${unix(DAY2)}&to=${unix(DAY2) + 86_399}`);
    const out = parse(fresh);
    // The chart answer carried the last point of DAY1 too: dropped.
    expect([...new Set(out.series.get("token")!.map((r) => r.date))]).toEqual([DAY2]);
    expect(rowsOf(out, "bitcoin")).toEqual([
      { entity_id: key("Token", "coingecko", "bitcoin"), date: DAY2, currentPrice: 64200, marketCap: Math.round(64200 * 19645000), totalVolume: 33000000000, circulatingSupply: 19645000, totalSupply: 21000000 },
    ]);

    // In the raw dir of the first day: lists and markets asked afresh for the new day, charts only
    // for the new day; parse merges both days' answers.
    before = fake.requests.length;
    await coingecko.fetch(context(shared, { today: DAY2, since: DAY1 }));
    expect(asked(before, /\/asset_platforms$/)).toHaveLength(1);
    for (const r of asked(before, /market_chart\/range/)) expect(r).toContain(`from=${unix(DAY2)}&`);
    expect(shared.keys("coingecko", "market_chart/bitcoin/")).toEqual([`market_chart/bitcoin/2023-03-04_${DAY1}`, `market_chart/bitcoin/${DAY2}_${DAY2}`]);
    const merged = parse(shared);
    expect(rowsOf(merged, "bitcoin").map((r) => [r.date, r.currentPrice])).toEqual([
      ["2024-03-01", 61200],
      ["2024-03-02", 62200],
      [DAY1, 63200],
      [DAY2, 64200],
    ]);
    expect(rowsOf(merged, "ethereum").map((r) => r.date)).toEqual([DAY1, DAY2]);
    expect(merged.latestDate).toBe(DAY2);
    expect(merged.rejected).toHaveLength(2);
  });

  test("nothing new since today: no chart is asked", async () => {
    const raw = freshStore();
    const before = fake.requests.length;
    await coingecko.fetch(context(raw, { today: DAY1, since: DAY1 }));
    expect(asked(before, /market_chart/)).toEqual([]);
  });

  test("detailLimit bounds the market pages and the charts", async () => {
    const raw = freshStore();
    const before = fake.requests.length;
    await coingecko.fetch(context(raw, { detailLimit: 3 }));
    expect(asked(before, /\/coins\/markets\?/).filter((r) => !r.includes("category="))).toHaveLength(1);
    expect(asked(before, /market_chart/).map((r) => r.split("/")[4])).toEqual(["bitcoin", "ethereum", "tether"]);
  });

  test("an endpoint failing every retry is skipped with its reason and the rest goes on; a resumed run asks only what is missing", async () => {
    const raw = freshStore();
    fake.fail(`${API}/coins/markets`, { kind: "500" }, { kind: "500" }, { kind: "500" }, { kind: "500" });
    const ctx = context(raw);
    await coingecko.fetch(ctx);
    // The first markets page refused: no more pages, no charts to choose; the stablecoins page is asked all the same.
    expect(ctx.skipped).toEqual([expect.objectContaining({ request: `markets/${DAY1}/1`, status: 500 })]);
    expect(raw.has("coingecko", `asset_platforms/${DAY1}`)).toBe(true);
    expect(raw.has("coingecko", `coins_list/${DAY1}`)).toBe(true);
    expect(raw.has("coingecko", `stablecoins/${DAY1}`)).toBe(true);
    expect(raw.keys("coingecko", "markets/")).toEqual([]);

    // Resumed: the lists are not asked again; now a chart fails every retry, the others are saved.
    let before = fake.requests.length;
    fake.fail(`${API}/coins/bitcoin/market_chart/range`, { kind: "500" }, { kind: "500" }, { kind: "500" }, { kind: "500" });
    const resumed = context(raw);
    await coingecko.fetch(resumed);
    expect(resumed.skipped.map((s) => s.request)).toEqual([expect.stringMatching(/^market_chart\/bitcoin\//)]);
    expect(asked(before, /\/asset_platforms|\/coins\/list/)).toEqual([]);
    expect(asked(before, /\/coins\/bitcoin\/market_chart/)).toHaveLength(4);
    expect(raw.keys("coingecko", "market_chart/")).toHaveLength(8);

    before = fake.requests.length;
    await coingecko.fetch(context(raw));
    expect(fake.requests.slice(before).map((r) => r.split("?")[0])).toEqual([`GET ${API}/coins/bitcoin/market_chart/range`]);
    expect(rowsOf(parse(raw), "bitcoin")).toHaveLength(3);
  });

  test.skipIf(skipWithout(`${RUBY}/coin_bitcoin.json`, "the coingecko connector on coingecko_ruby's recorded coin records"))("coin records (recorded): description, the categories the categories list names, homepage; their tickers are listings", async () => {
    const raw = freshStore();
    await coingecko.fetch(context(raw, { details: 3 }));
    // The three largest coins' records are asked; ethereum's is not served here (404: absent, not skipped).
    expect(raw.keys("coingecko", "coin/").sort()).toEqual([`coin/bitcoin/${DAY1}`, `coin/tether/${DAY1}`]);
    const out = parse(raw);
    const bitcoin = claimOf(out, key("Token", "coingecko", "bitcoin"))!;
    const attributes = new Map<string, unknown[]>();
    for (const [name, value] of bitcoin.attributes ?? []) attributes.set(name, [...(attributes.get(name) ?? []), value]);
    expect(attributes.get("category")).toEqual(["Cryptocurrency"]);
    expect(String(attributes.get("schema:description")![0])).toStartWith("Bitcoin is the first successful internet money based on peer-to-peer technology");
    expect(String(attributes.get("schema:description")![0])).not.toContain("<a");
    expect(attributes.get("schema:url")).toEqual(["http://www.bitcoin.org"]);
    expect(claimOf(out, key("Token", "coingecko", "tether"))!.attributes).toContainEqual(["category", "USD Stablecoin"]);

    // The categories list with market data (/coins/categories, recorded the same day) names categories
    // alike: read in its place, it keeps only what it names (it lists 48 with market data; Bitcoin's
    // "Cryptocurrency" had none that day).
    raw.save("coingecko", `categories/${DAY1}`, recorded("coins_categories.json"));
    const byMarket = parse(raw);
    expect(claimOf(byMarket, key("Token", "coingecko", "tether"))!.attributes).toContainEqual(["category", "Stablecoins"]);
    expect(claimOf(byMarket, key("Token", "coingecko", "bitcoin"))!.attributes!.filter(([a]) => a === "category")).toEqual([]);

    const listings = (out.series.get("listings") ?? []).filter((r) => r.entity_id === key("Token", "coingecko", "bitcoin"));
    const tickers = (recorded("coin_bitcoin.json") as { tickers: { is_stale: boolean; is_anomaly: boolean; bid_ask_spread_percentage: number | null; converted_volume: { usd: number } }[] }).tickers;
    const usable = tickers.filter((t) => !t.is_stale && !t.is_anomaly && t.bid_ask_spread_percentage !== null && t.converted_volume.usd > 0);
    expect(listings.length).toBeGreaterThan(50);
    expect(listings.length).toBeLessThanOrEqual(usable.length);
    expect(listings.every((r) => r.date === DAY1 && String(r.exchange_id).startsWith("Exchange:coingecko:") && typeof r.spreadPct === "number" && Number(r.volumeUsd) > 0)).toBe(true);
    expect(listings).toContainEqual(expect.objectContaining({ exchange_id: "Exchange:coingecko:binance", pair: "BTC/USDT" }));
    // Each exchange once, linked from the coin.
    const exchanges = out.claims.filter((c) => c.type === "Exchange");
    expect(new Set(exchanges.map((c) => c.keys[0])).size).toBe(exchanges.length);
    expect(exchanges.find((c) => c.keys[0] === "Exchange:coingecko:binance")!.name).toBe("Binance");
    expect(out.links).toContainEqual({ subject: key("Token", "coingecko", "bitcoin"), relation: "listedOn", object: "Exchange:coingecko:binance" });
  });

  test("answers of the wrong shape are rejected, never thrown, and the rest still parses", () => {
    const raw = freshStore();
    raw.save("coingecko", `asset_platforms/${DAY1}`, { status: { error_code: 429, error_message: "rate limited" } });
    raw.save("coingecko", `coins_list/${DAY1}`, "not a list");
    raw.save("coingecko", `markets/${DAY1}/1`, [
      { id: "bitcoin", symbol: "btc", name: "Bitcoin", current_price: 63125, market_cap: 1239500000000, market_cap_rank: 1, total_volume: 1, circulating_supply: 2, total_supply: null },
      { id: "bad", symbol: "bad", name: "Bad", current_price: "cheap" },
    ]);
    raw.save("coingecko", `stablecoins/${DAY1}`, { error: "nope" });
    raw.save("coingecko", `market_chart/bitcoin/2024-03-01_${DAY1}`, { prices: [[Date.UTC(2024, 2, 1), 61000], ["x", 1], [Date.UTC(2024, 2, 2), null]] });
    raw.save("coingecko", `market_chart/tether/2024-03-01_${DAY1}`, { prices: "no" });
    const out = new ProviderOutput("coingecko", silentLogger);
    expect(() => coingecko.parse(raw, out)).not.toThrow();
    const whats = out.rejected.map((r) => r.what);
    expect(whats).toContain(`asset_platforms/${DAY1}`);
    expect(whats).toContain(`coins_list/${DAY1}`);
    expect(whats).toContain(`stablecoins/${DAY1}`);
    expect(whats).toContain(`market_chart/tether/2024-03-01_${DAY1}`);
    expect(whats).toContain('market_chart "bitcoin"');
    expect(out.rejected.find((r) => r.what.startsWith('market "bad"'))!.reason).toContain("current_price");
    expect(out.claims.map((c) => c.keys[0])).toEqual([key("Token", "coingecko", "bitcoin")]);
    expect(rowsOf(out, "bitcoin").map((r) => [r.date, r.currentPrice, r.totalSupply])).toEqual([
      ["2024-03-01", 61000, null],
      [DAY1, 63125, null],
    ]);
  });

  test("the API key header: pro on pro-api.coingecko.com, demo elsewhere, none without a key", () => {
    expect(apiKeyHeaders({ urls: { api: "https://pro-api.coingecko.com/api/v3" }, apiKey: "k" })).toEqual({ "x-cg-pro-api-key": "k" });
    expect(apiKeyHeaders({ urls: { api: "https://api.coingecko.com/api/v3" }, apiKey: "k" })).toEqual({ "x-cg-demo-api-key": "k" });
    expect(apiKeyHeaders({ urls: {}, apiKey: "k" })).toEqual({ "x-cg-demo-api-key": "k" });
    expect(apiKeyHeaders({ urls: { api: "https://pro-api.coingecko.com/api/v3" } })).toEqual({});
  });
});
