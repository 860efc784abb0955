import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FetchContext } from "../../src/ingest/connector.ts";
import type { ProviderHttp } from "../../src/ingest/http.ts";
import { github } from "../../src/ingest/providers/github.ts";
import { RawStore } from "../../src/ingest/raw-store.ts";
import { ProviderOutput } from "../../src/ingest/records.ts";
import { type Logger, silentLogger } from "../../src/log.ts";
import { testFetchContext } from "../support/fetch-context.ts";
import { type Fault, type Route, startFakeProvider } from "../support/fake-provider.ts";
import { recordingLog } from "../support/recording-log.ts";
import { tempDir } from "../support/temp-dirs.ts";

const FIXTURES = join(import.meta.dir, "fixtures", "github");
const fixture = <T>(name: string): T => JSON.parse(readFileSync(join(FIXTURES, name), "utf8")) as T;

type Json = Record<string, unknown>;
/** DefiLlama's /protocols records (only the fields read). */
const PROTOCOLS = fixture<Json[]>("defillama-protocols.json");
const UNISWAP = fixture<Json[]>("uniswap-repos.json");
const AAVE = fixture<Json[]>("aave-repos.json");
const SAMCZSUN = fixture<Json[]>("samczsun-repos.json");
const CONTRIBUTORS = fixture<Record<string, Json[]>>("contributors.json");

/** Uniswap's first page is full (the fixtures and low-starred filler), its second empty. */
const UNISWAP_PAGE_1 = [
  ...UNISWAP,
  ...Array.from({ length: 100 - UNISWAP.length }, (_, i) => ({
    ...UNISWAP[0]!,
    id: 400000000 + i,
    name: `filler-${i}`,
    full_name: `Uniswap/filler-${i}`,
    html_url: `https://github.com/Uniswap/filler-${i}`,
    description: null,
    language: null,
    license: null,
    stargazers_count: i,
  })),
];

const repoKey = (fullName: string) => `Repository:github:${fullName}`;

const root = tempDir("ckg-github-");
let dirs = 0;

interface Seen {
  headers: Headers[];
  special?: (url: URL) => Response | undefined;
}

/** GitHub's REST API over the fixtures. */
function api(seen: Seen): Route {
  return (url, request) => {
    seen.headers.push(request.headers);
    const special = seen.special?.(url);
    if (special) return special;
    const page = Number(url.searchParams.get("page") ?? "1");
    let m = /^\/orgs\/([^/]+)\/repos$/.exec(url.pathname);
    if (m) {
      const org = m[1]!.toLowerCase();
      if (org === "uniswap") return page === 1 ? UNISWAP_PAGE_1 : [];
      if (org === "aave") return page === 1 ? AAVE : [];
      return undefined;
    }
    m = /^\/users\/([^/]+)\/repos$/.exec(url.pathname);
    if (m) return m[1]!.toLowerCase() === "samczsun" ? (page === 1 ? SAMCZSUN : []) : undefined;
    m = /^\/repos\/([^/]+)\/([^/]+)\/contributors$/.exec(url.pathname);
    if (m) {
      const fullName = `${m[1]}/${m[2]}`;
      if (fullName === "Uniswap/v2-core") return new Response(null, { status: 204 });
      if (fullName === "Uniswap/docs") return Response.json({ message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" }, { status: 404 });
      return CONTRIBUTORS[fullName] ?? [];
    }
    return undefined;
  };
}

function context(base: string, raw: RawStore, options: { detailLimit?: number; token?: string; log?: Logger } = {}): ReturnType<typeof testFetchContext> {
  return testFetchContext("github", raw, { urls: { api: base }, apiKey: options.token }, { today: "2024-07-01", detailLimit: options.detailLimit ?? 10, log: options.log });
}

/** A raw store of its own, holding DefiLlama's protocols list (as the DefiLlama connector saves it) unless `null`. */
function freshRaw(protocols: Json[] | null = PROTOCOLS): RawStore {
  const raw = new RawStore(join(root, `raw-${++dirs}`));
  if (protocols !== null) raw.save("defillama", "protocols", { day: "2024-07-01", since: null, body: protocols });
  return raw;
}

function parse(raw: RawStore): ProviderOutput {
  const out = new ProviderOutput("github", silentLogger);
  github.parse(raw, out);
  return out;
}

const only = (...slugs: string[]) => PROTOCOLS.filter((p) => slugs.includes(p.slug as string));

describe("github connector", () => {
  test("repositories, contributors and the protocols' links; the token is sent", async () => {
    const seen: Seen = { headers: [] };
    const fake = startFakeProvider(api(seen));
    try {
      const raw = freshRaw();
      const progress: [number, number][] = [];
      await github.fetch({ ...context(fake.url, raw, { token: "ghp_test123" }), progress: (done, total) => progress.push([done, total]) });
      expect(seen.headers.length).toBe(fake.requests.length);
      for (const h of seen.headers) {
        expect(h.get("authorization")).toBe("Bearer ghp_test123");
        expect(h.get("x-github-api-version")).toBe("2022-11-28");
      }
      const lists = fake.requests.filter((r) => r.includes("/repos?"));
      expect(lists).toEqual([
        "GET /orgs/aave/repos?per_page=100&sort=pushed&page=1",
        "GET /orgs/uniswap/repos?per_page=100&sort=pushed&page=1",
        "GET /orgs/uniswap/repos?per_page=100&sort=pushed&page=2",
        "GET /orgs/samczsun/repos?per_page=100&sort=pushed&page=1",
        "GET /users/samczsun/repos?per_page=100&sort=pushed&page=1",
        "GET /orgs/no-such-org-xyz/repos?per_page=100&sort=pushed&page=1",
        "GET /users/no-such-org-xyz/repos?per_page=100&sort=pushed&page=1",
      ]);
      expect(progress.at(-1)).toEqual([4, 4]);
      // One contributors request per kept repository: 2 of Aave, 10 of Uniswap, 1 of samczsun.
      expect(new Set(fake.requests.filter((r) => r.endsWith("/contributors?per_page=100"))).size).toBe(13);

      const out = parse(raw);
      const repos = out.claims.filter((c) => c.type === "Repository");
      const names = repos.map((c) => c.name);
      expect(names).toHaveLength(13);
      expect(names.filter((n) => n.startsWith("Uniswap/"))).toEqual([
        "Uniswap/interface",
        "Uniswap/v3-core",
        "Uniswap/v2-core",
        "Uniswap/v4-core",
        "Uniswap/docs",
        "Uniswap/filler-91",
        "Uniswap/filler-90",
        "Uniswap/filler-89",
        "Uniswap/filler-88",
        "Uniswap/filler-87",
      ]);
      // Archived and forked repositories are left out, however starred.
      expect(names).not.toContain("Uniswap/uniswap-v1");
      expect(names).not.toContain("Uniswap/go-ethereum");
      expect(names).not.toContain("aave/protocol-v2");
      expect(names).toContain("samczsun/abi-guesser");

      const v3 = repos.find((c) => c.name === "Uniswap/v3-core")!;
      expect(v3).toEqual({
        type: "Repository",
        keys: [repoKey("Uniswap/v3-core")],
        name: "Uniswap/v3-core",
        attributes: [
          ["programmingLanguage", "Solidity"],
          ["license", "BUSL-1.1"],
          ["schema:url", "https://github.com/Uniswap/v3-core"],
          ["schema:description", "🦄 🦄 🦄 Core smart contracts of Uniswap v3"],
        ],
        sameAs: ["https://github.com/Uniswap/v3-core"],
        prominence: expect.any(Number),
      });
      // NOASSERTION is no license; no language, no license: no attribute.
      expect(repos.find((c) => c.name === "Uniswap/v4-core")!.attributes!.some(([a]) => a === "license")).toBe(false);
      expect(repos.find((c) => c.name === "Uniswap/docs")!.attributes).toEqual([
        ["schema:url", "https://github.com/Uniswap/docs"],
        ["schema:description", "Uniswap documentation"],
      ]);

      expect(out.links).toContainEqual({ subject: "Protocol:defillama:uniswap-v3", relation: "hasRepository", object: repoKey("Uniswap/v3-core") });
      // An entry without a slug gets DefiLlama's slug of its name.
      expect(out.links).toContainEqual({ subject: "Protocol:defillama:uniswap-v2", relation: "hasRepository", object: repoKey("Uniswap/v3-core") });
      expect(out.links).toContainEqual({ subject: "Protocol:defillama:aave-v3", relation: "hasRepository", object: repoKey("aave/aave-v3-core") });
      expect(out.links).toContainEqual({ subject: "Protocol:defillama:solo-vault", relation: "hasRepository", object: repoKey("samczsun/abi-guesser") });
      expect(out.links).toHaveLength(10 + 10 + 2 + 1);

      const people = out.claims.filter((c) => c.type === "Person");
      expect(people.map((c) => c.name).sort()).toEqual(["NoahZinsmeister", "The-3D", "miguelmtzinf", "moodysalem", "zzmp"]);
      expect(people.find((c) => c.name === "NoahZinsmeister")).toEqual({
        type: "Person",
        keys: ["Person:github:NoahZinsmeister"],
        name: "NoahZinsmeister",
        relations: [
          ["contributesTo", repoKey("Uniswap/interface")],
          ["contributesTo", repoKey("Uniswap/v3-core")],
        ],
        sameAs: ["https://github.com/NoahZinsmeister"],
      });

      // Garbled records are rejected with the reason.
      expect(out.rejected).toContainEqual({ provider: "github", what: 'repository "Uniswap/broken"', reason: expect.stringContaining("stargazers_count") });
      expect(out.rejected).toContainEqual({ provider: "github", what: "contributor null of Uniswap/v3-core", reason: expect.stringContaining("login") });
      expect(out.rejected).toHaveLength(2);
    } finally {
      fake.stop();
    }
  });

  test("without a token no authorization is sent; detailLimit keeps the largest protocols", async () => {
    const seen: Seen = { headers: [] };
    const fake = startFakeProvider(api(seen));
    try {
      await github.fetch(context(fake.url, freshRaw(), { detailLimit: 1 }));
      expect(seen.headers.every((h) => h.get("authorization") === null)).toBe(true);
      expect(fake.requests.filter((r) => r.includes("/repos?"))).toEqual(["GET /orgs/aave/repos?per_page=100&sort=pushed&page=1"]);
    } finally {
      fake.stop();
    }
  });

  test("without a saved protocols list nothing is fetched", async () => {
    const fake = startFakeProvider(api({ headers: [] }));
    try {
      const raw = freshRaw(null);
      await github.fetch(context(fake.url, raw));
      expect(fake.requests).toEqual([]);
      expect(parse(raw).claims).toEqual([]);
    } finally {
      fake.stop();
    }
  });

  const faults: [string, Fault][] = [
    ["429 with Retry-After", { kind: "429", retryAfter: "1" }],
    ["500", { kind: "500" }],
    ["a hang longer than the time limit", { kind: "hang", ms: 800 }],
    ["truncated JSON", { kind: "truncated" }],
    ["malformed JSON", { kind: "malformed" }],
  ];
  for (const [name, fault] of faults) {
    test(`${name}, then success`, async () => {
      const fake = startFakeProvider(api({ headers: [] }));
      try {
        fake.fail("/orgs/aave/repos", fault);
        const raw = freshRaw(only("aave-v3"));
        const ctx = context(fake.url, raw);
        await github.fetch(ctx);
        expect(ctx.http.stats.retries).toBe(1);
        expect(parse(raw).claims.filter((c) => c.type === "Repository").map((c) => c.name)).toEqual(["aave/aave-v3-core", "aave/interface"]);
      } finally {
        fake.stop();
      }
    });
  }

  test("403 with the rate limit used up waits for the reset, then succeeds", async () => {
    let limited = 1;
    /** When the fake said the limit resets (ms), and when it said so. */
    let reset = 0;
    let saidAt = 0;
    const fake = startFakeProvider(
      api({
        headers: [],
        special: (url) => {
          if (url.pathname !== "/orgs/aave/repos" || limited-- <= 0) return undefined;
          saidAt = Date.now();
          reset = (Math.ceil(saidAt / 1000) + 2) * 1000; // whole seconds, 2-3 s ahead
          return Response.json(
            { message: "API rate limit exceeded for 127.0.0.1.", documentation_url: "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting" },
            { status: 403, headers: { "x-ratelimit-limit": "60", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset / 1000) } },
          );
        },
      }),
    );
    try {
      const raw = freshRaw(only("aave-v3"));
      const http = recordingLog();
      const ctx = context(fake.url, raw, { log: http.log });
      await github.fetch(ctx);
      expect(ctx.http.stats.rateLimited).toBe(1);
      // The retry waited for the reset (what was left of it when read), not its short backoff (5 ms).
      const waits = http.lines.filter((l) => l.msg === "provider request failed; retrying" && String(l.url).includes("/orgs/aave/repos")).map((l) => l.wait_ms as number);
      expect(waits).toHaveLength(1);
      expect(waits[0]!).toBeGreaterThan(1000);
      expect(waits[0]!).toBeLessThanOrEqual(reset - saidAt);
      expect(parse(raw).claims.filter((c) => c.type === "Repository")).toHaveLength(2);
    } finally {
      fake.stop();
    }
  });

  test("a request that fails every retry is skipped with its reason, the others go on; a resumed run asks only it", async () => {
    let broken = true;
    const fake = startFakeProvider(
      api({ headers: [], special: (url) => (broken && url.pathname === "/repos/Uniswap/interface/contributors" ? new Response("upstream error", { status: 500 }) : undefined) }),
    );
    try {
      const raw = freshRaw(only("uniswap-v3"));
      const ctx = context(fake.url, raw);
      await github.fetch(ctx);
      expect(fake.requests.filter((r) => r.startsWith("GET /repos/Uniswap/interface/contributors"))).toHaveLength(4);
      expect(ctx.skipped).toEqual([expect.objectContaining({ request: "contributors/Uniswap/interface", status: 500 })]);
      expect(raw.keys("github", "repos/")).toEqual(["repos/uniswap/1", "repos/uniswap/2"]);
      expect(raw.has("github", "contributors/Uniswap/interface")).toBe(false);
      // The other repositories' contributors were read all the same.
      expect(raw.keys("github", "contributors/").length).toBe(9);

      broken = false;
      fake.requests.length = 0;
      await github.fetch(context(fake.url, raw));
      // Only what the first run went without.
      expect(fake.requests).toEqual(["GET /repos/Uniswap/interface/contributors?per_page=100"]);

      fake.requests.length = 0;
      await github.fetch(context(fake.url, raw));
      expect(fake.requests).toEqual([]);
      // The empty repository (204) and the vanished one (404) were saved as such.
      expect(raw.load("github", "contributors/Uniswap/v2-core")).toEqual([]);
      expect(raw.load("github", "contributors/Uniswap/docs")).toMatchObject({ status: "404" });
    } finally {
      fake.stop();
    }
  });

  test("a saved answer of the wrong shape is rejected, the rest parsed", () => {
    const raw = freshRaw(only("aave-v3"));
    raw.save("github", "repos/aave/1", AAVE);
    raw.save("github", "repos/weird/1", { total_count: 3, items: [] });
    raw.save("github", "contributors/aave/aave-v3-core", { contributors: [] });
    const out = parse(raw);
    expect(out.claims.filter((c) => c.type === "Repository")).toHaveLength(2);
    expect(out.rejected).toEqual([
      { provider: "github", what: "github answer contributors/aave/aave-v3-core", reason: "not a list of contributors" },
      { provider: "github", what: "github answer repos/weird/1", reason: "not a list of repositories" },
    ]);
  });
});
