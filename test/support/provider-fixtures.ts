/**
 * Every provider's API at once, served from the recorded-shape fixtures in test/ingest/fixtures/:
 * one fake server with a path prefix per provider host, and the ingest configuration pointing at it.
 * The connector tests check each API's details (paging, faults); this serves them plainly, for
 * tests of the whole ingest.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ProviderConfig } from "../../src/ingest/providers/index.ts";
import type { ProviderId } from "../../src/ingest/records.ts";
import { type FakeProvider, startFakeProvider } from "./fake-provider.ts";
import { haveRecording, readRecording } from "./shared-recordings.ts";

const FIXTURES = join(import.meta.dir, "..", "ingest", "fixtures");
const cache = new Map<string, unknown>();
function fixture(provider: string, name: string): unknown {
  const file = join(FIXTURES, provider, name);
  if (!cache.has(file)) cache.set(file, existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined);
  return cache.get(file);
}

/**
 * Recorded by coingecko_ruby, read in place (../shared/real-api/third-party/coingecko/ruby). Where that
 * folder is absent the categories list is empty and the coin records 404, as for any coin not served.
 */
const RUBY = "third-party/coingecko/ruby";
const recorded = (name: string, absent: unknown): unknown => (haveRecording(`${RUBY}/${name}`) ? readRecording(`${RUBY}/${name}`) : absent);
/** Whether Bitcoin's and Tether's recorded records (their tickers: the listings) are served. */
export const servesRecordedCoins = (): boolean => haveRecording(`${RUBY}/coin_bitcoin.json`);

/** Extra answers a test puts in front of the fixtures (a new day, a changed record). */
export type Override = (path: string, url: URL) => unknown;

export function startProviderFixtures(override?: Override): FakeProvider {
  return startFakeProvider((url, _request, body) => {
    const path = url.pathname;
    const extra = override?.(path, url);
    if (extra !== undefined) return extra;
    if (path === "/chainlist/chains.json") return fixture("chains", "chains.json");
    if (path.startsWith("/coingecko/api/v3")) return coingecko(path.slice("/coingecko/api/v3".length), url.searchParams);
    if (path.startsWith("/defillama")) return defillamaFixture(path.slice("/defillama".length), url.searchParams);
    if (path === "/snapshot/graphql") return snapshot(body as { query: string; variables: Record<string, unknown> });
    if (path.startsWith("/github")) return github(path.slice("/github".length), url.searchParams);
    if (path.startsWith("/blockscout/1")) return blockscout(path.slice("/blockscout/1".length));
    return undefined;
  });
}

/** Blockscout's token and holders answers by contract (Ethereum), as fixtures name them by coin. */
const BLOCKSCOUT_COINS: Record<string, string> = {
  "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984": "uniswap",
  "0x514910771af9ca656af840dff83e8264ecf986ca": "chainlink",
  "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599": "wrapped-bitcoin",
};

function blockscout(path: string): unknown {
  const m = /^\/api\/v2\/tokens\/(0x[0-9a-fA-F]{40})(\/holders)?$/.exec(path);
  const coin = m ? BLOCKSCOUT_COINS[m[1]!.toLowerCase()] : undefined;
  if (!coin) return Response.json({ message: "Not found" }, { status: 404 });
  return fixture("blockscout", `${m![2] ? "holders" : "token"}-${coin}.json`);
}

export function providerConfigs(base: string, ids: readonly ProviderId[] = ["chains", "coingecko", "defillama", "snapshot", "github"]): Map<ProviderId, ProviderConfig> {
  const all: Record<ProviderId, ProviderConfig> = {
    chains: { settings: { urls: { chainlist: `${base}/chainlist` } }, minIntervalMs: 0 },
    coingecko: { settings: { urls: { api: `${base}/coingecko/api/v3` } }, minIntervalMs: 0 },
    defillama: {
      settings: { urls: { api: `${base}/defillama/api`, yields: `${base}/defillama/yields`, stablecoins: `${base}/defillama/stablecoins`, datasets: `${base}/defillama/datasets`, pro: `${base}/defillama/pro` } },
      minIntervalMs: 0,
    },
    snapshot: { settings: { urls: { api: `${base}/snapshot/graphql` } }, minIntervalMs: 0 },
    github: { settings: { urls: { api: `${base}/github` } }, minIntervalMs: 0 },
    blockscout: { settings: { urls: { "1": `${base}/blockscout/1` } }, minIntervalMs: 0 },
  };
  return new Map(ids.map((id) => [id, all[id]]));
}

/** The same settings as environment variables, for `ckg ingest` in a child process. */
export function providerEnv(base: string): Record<string, string> {
  return {
    CKG_CHAINLIST_URL: `${base}/chainlist`,
    CKG_COINGECKO_URL: `${base}/coingecko/api/v3`,
    CKG_COINGECKO_MIN_INTERVAL_MS: "0",
    CKG_DEFILLAMA_URL: `${base}/defillama/api`,
    CKG_DEFILLAMA_YIELDS_URL: `${base}/defillama/yields`,
    CKG_DEFILLAMA_STABLECOINS_URL: `${base}/defillama/stablecoins`,
    CKG_DEFILLAMA_DATASETS_URL: `${base}/defillama/datasets`,
    CKG_DEFILLAMA_PRO_URL: `${base}/defillama/pro`,
    CKG_DEFILLAMA_MIN_INTERVAL_MS: "0",
    CKG_SNAPSHOT_HUB_URL: `${base}/snapshot/graphql`,
    CKG_GITHUB_URL: `${base}/github`,
    CKG_BLOCKSCOUT_URLS: `1=${base}/blockscout/1`,
    CKG_BLOCKSCOUT_MIN_INTERVAL_MS: "0",
  };
}

function coingecko(path: string, q: URLSearchParams): unknown {
  if (path === "/asset_platforms") return fixture("coingecko", "asset_platforms.json");
  // Recorded answers: the categories list, Bitcoin's and Tether's records.
  if (path === "/coins/categories/list") return recorded("categories_list.json", []);
  if (path === "/coins/bitcoin") return recorded("coin_bitcoin.json", undefined);
  if (path === "/coins/tether") return recorded("coin_tether_by_contract.json", undefined);
  if (path === "/coins/list") return fixture("coingecko", "coins_list.json");
  if (path === "/coins/markets") {
    if (q.get("category") === "stablecoins") return fixture("coingecko", "markets_stablecoins.json");
    const page = q.get("page");
    return page === "1" ? fixture("coingecko", "markets_page1.json") : page === "2" ? fixture("coingecko", "markets_page2.json") : [];
  }
  const chart = /^\/coins\/([^/]+)\/market_chart\/range$/.exec(path);
  if (chart) {
    const from = Number(q.get("from")) * 1000;
    const to = Number(q.get("to")) * 1000;
    const answer = fixture("coingecko", `market_chart_${decodeURIComponent(chart[1]!)}.json`) as Record<string, [number, number][]> | undefined;
    if (!answer) return { prices: [], market_caps: [], total_volumes: [] };
    const keep = (points: [number, number][]) => points.filter(([t]) => t >= from && t <= to);
    return { prices: keep(answer.prices!), market_caps: keep(answer.market_caps!), total_volumes: keep(answer.total_volumes!) };
  }
  return undefined;
}

/**
 * DefiLlama's hosts under /api, /yields, /stablecoins, /datasets and /pro/<key>: the paid answers
 * (every raise, the lending markets) for `proKey` only, as the paid plan serves them.
 */
export function defillamaFixture(path: string, q: URLSearchParams, proKey = "test-key"): unknown {
  const fixed: Record<string, string> = {
    [`/pro/${proKey}/api/raises`]: "raises.json",
    "/api/v2/chains": "v2-chains.json",
    "/api/protocols": "protocols.json",
    "/api/lite/protocols2": "lite-protocols2.json",
    "/api/hacks": "hacks.json",
    "/yields/pools": "yields-pools.json",
    "/yields/lendBorrow": "yields-lendBorrow.json",
    "/stablecoins/stablecoins": "stablecoins.json",
    "/stablecoins/stablecoinprices": "stablecoinprices.json",
    "/datasets/emissionsProtocolsList": "emissions-list.json",
  };
  if (fixed[path]) return fixture("defillama", fixed[path]);
  if (path === `/pro/${proKey}/yields/poolsBorrow`) return { status: "success", data: fixture("defillama", "yields-lendBorrow.json") };
  let m: RegExpExecArray | null;
  if ((m = /^\/api\/protocol\/([^/]+)$/.exec(path))) return fixture("defillama", `protocol-${m[1]}.json`);
  if ((m = /^\/api\/treasury\/([^/]+)$/.exec(path))) return fixture("defillama", `treasury-${m[1]}.json`);
  if ((m = /^\/api\/summary\/fees\/([^/]+)$/.exec(path))) return fixture("defillama", `fees-${m[1]}-${q.get("dataType")}.json`);
  if ((m = /^\/yields\/chart\/([^/]+)$/.exec(path))) return fixture("defillama", `yields-chart-${m[1]}.json`);
  if ((m = /^\/stablecoins\/stablecoin\/([^/]+)$/.exec(path))) return fixture("defillama", `stablecoin-${m[1]}.json`);
  if ((m = /^\/datasets\/emissions\/([^/]+)$/.exec(path))) return fixture("defillama", `emission-${m[1]}.json`);
  return undefined;
}

function snapshot(body: { query: string; variables: Record<string, unknown> }): unknown {
  const v = body?.variables ?? {};
  const first = Number(v.first ?? 20);
  const skip = Number(v.skip ?? 0);
  if (body?.query.includes("proposals(")) {
    const spaces = (v.spaces as string[]) ?? [];
    const all = ((fixture("snapshot-org", "proposals.json") as { data: { proposals: Record<string, unknown>[] } }).data.proposals ?? []) as Record<string, unknown>[];
    const list = all
      .filter((p) => spaces.includes((p.space as { id: string }).id))
      .filter((p) => v.from === undefined || Number(p.created) >= Number(v.from))
      .filter((p) => v.before === undefined || Number(p.created) < Number(v.before))
      .filter((p) => v.endFrom === undefined || typeof p.end !== "number" || p.end >= Number(v.endFrom))
      .sort((a, b) => Number(a.created) - Number(b.created));
    return { data: { proposals: list.slice(skip, skip + first) } };
  }
  if (body?.query.includes("spaces(")) {
    const ids = (v.ids as string[]) ?? [];
    const spaces = (fixture("snapshot-org", "spaces.json") as { data: { spaces: { id: string }[] } }).data.spaces;
    return { data: { spaces: spaces.filter((s) => ids.includes(s.id)).slice(0, first) } };
  }
  if (body?.query.includes("votes(")) return { data: { votes: [] } };
  return { data: { ranking: { items: [] } } };
}

function github(path: string, q: URLSearchParams): unknown {
  const page = Number(q.get("page") ?? "1");
  let m = /^\/(?:orgs|users)\/([^/]+)\/repos$/.exec(path);
  if (m) {
    const file = `${m[1]!.toLowerCase()}-repos.json`;
    return page === 1 ? (fixture("github", file) ?? []) : [];
  }
  m = /^\/repos\/([^/]+)\/([^/]+)\/contributors$/.exec(path);
  if (m) return (fixture("github", "contributors.json") as Record<string, unknown>)[`${m[1]}/${m[2]}`] ?? [];
  return undefined;
}
