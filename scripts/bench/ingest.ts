/**
 * Ingest benchmark (the providers' answers at their real sizes). Run by hand: `bun scripts/bench/ingest.ts [--data-dir DIR] [--detail-limit N] [--keep DIR]`.
 *
 * The providers' APIs are served on localhost from the test fixtures (recorded shapes), once as
 * they are and once at the providers' real sizes (DefiLlama ~7,000 protocols and ~15,000 pools,
 * CoinGecko ~17,000 coins, ~1,900 chains: list records copied under new ids up to those counts,
 * detail answers shared), against a default-scale data directory. Prints per provider: records
 * (entity records plus series rows), fetch and parse time, records per second; the parse rate
 * beside the floor of reading the same saved answers with JSON.parse (ratio); the requests a first
 * ingest makes and the wall time they take at the providers' free-tier rate limits; the peak RSS;
 * and the time of a full refresh (fetch, parse, resolve, build, publish) at each size.
 */
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ProviderHttp } from "../../src/ingest/http.ts";
import { ingest } from "../../src/ingest/ingest.ts";
import { CONNECTORS } from "../../src/ingest/providers/index.ts";
import { RawStore } from "../../src/ingest/raw-store.ts";
import { ProviderOutput } from "../../src/ingest/records.ts";
import { createLogger, silentLogger } from "../../src/log.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { currentSnapshotId, dataDir } from "../../src/store/data-dir.ts";
import { type Override, providerConfigs, startProviderFixtures } from "../../test/support/provider-fixtures.ts";
import { PROVIDER_IDS } from "../../src/config/providers/index.ts";
import { SETTINGS } from "../../src/config/settings.ts";
import { printTable } from "./stats.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-bench-ingest" },
    "detail-limit": { type: "string", default: "300" },
    // Keep the data directory of the full refresh at real sizes here (the backtest bench's world).
    keep: { type: "string" },
  },
});
const TODAY = "2024-07-01";
const FIXTURES = join(import.meta.dir, "..", "..", "test", "ingest", "fixtures");
const base = dataDir(values["data-dir"]!);
if (!currentSnapshotId(base)) {
  console.error(`building a default-scale data directory in ${base.root} ...`);
  await buildSnapshot({ dir: base, scale: "default", seed: 42, ontologyNs: "https://ckg.example/ontology#", log: createLogger("warn", 2) });
}

const fixture = (provider: string, name: string) => JSON.parse(readFileSync(join(FIXTURES, provider, name), "utf8"));
const suffix = (i: number) => (i === 0 ? "" : `-x${i}`);
const unsuffix = (id: string) => id.replace(/-x\d+$/, "");

/** The providers' list sizes (late 2026): what a first real ingest reads. */
const REAL_SIZES = { chains: 1_900, coins: 17_000, markets: 17_000, protocols: 7_000, pools: 15_000, lendBorrow: 2_000 };

/**
 * Free-tier request rates, requests per second: CoinGecko's demo plan allows 30 calls a minute
 * (its pricing page; the coingecko_min_interval_ms default follows it); DefiLlama's open API
 * publishes no quota, 10/s is what its docs' examples and clients assume; Snapshot's hub allows
 * 60 requests a minute without a key (its API docs); GitHub's REST API 60 an hour unauthenticated,
 * 5,000 with a token; Blockscout's public instances a few a second without a key (ckg spaces them
 * 250 ms apart); the chain list is one file.
 */
const FREE_TIER_PER_SECOND: Record<string, { rate: number; label: string }> = {
  chains: { rate: Infinity, label: "one file" },
  coingecko: { rate: 30 / 60, label: "30/min" },
  defillama: { rate: 10, label: "10/s" },
  snapshot: { rate: 60 / 60, label: "60/min" },
  github: { rate: 5000 / 3600, label: "5,000/h with a token (60/h without)" },
  blockscout: { rate: 4, label: "4/s (blockscout_min_interval_ms)" },
};

/** Every list record copied under new ids up to the real sizes; detail answers of a copy are the original's. */
function realSized(): Override {
  const copiesTo = (target: number) => <T>(items: T[], copy: (item: T, i: number) => T) =>
    Array.from({ length: Math.max(items.length, target) }, (_, n) => {
      const i = Math.floor(n / items.length);
      const item = items[n % items.length]!;
      return i === 0 ? item : copy(item, i);
    });
  const retag = (address: unknown, i: number) => (typeof address === "string" && /^0x[0-9a-fA-F]{40}$/.test(address) ? `${address.slice(0, 34)}${i.toString(16).padStart(8, "0")}` : address);
  type Rec = Record<string, unknown>;
  const chains = copiesTo(REAL_SIZES.chains)(fixture("chains", "chains.json") as Rec[], (c, i) => ({ ...c, name: `${c.name} ${i}`, chainId: typeof c.chainId === "number" ? c.chainId + i * 10_000_000 : c.chainId, parent: undefined }));
  const coins = copiesTo(REAL_SIZES.coins)(fixture("coingecko", "coins_list.json") as Rec[], (c, i) => ({
    ...c,
    id: `${c.id}${suffix(i)}`,
    name: `${c.name} ${i}`,
    platforms: Object.fromEntries(Object.entries((c.platforms ?? {}) as Rec).map(([p, a]) => [p, retag(a, i)])),
  }));
  const markets = copiesTo(REAL_SIZES.markets)([...fixture("coingecko", "markets_page1.json"), ...fixture("coingecko", "markets_page2.json")] as Rec[], (m, i) => ({
    ...m,
    id: `${m.id}${suffix(i)}`,
    name: `${m.name} ${i}`,
    market_cap_rank: typeof m.market_cap_rank === "number" ? m.market_cap_rank + i * 100 : null,
  }));
  const protocols = copiesTo(REAL_SIZES.protocols)(fixture("defillama", "protocols.json") as Rec[], (p, i) => ({
    ...p,
    id: `${p.id}${i}`,
    name: `${p.name} ${i}`,
    slug: typeof p.slug === "string" ? `${p.slug}${suffix(i)}` : p.slug,
    address: null,
    gecko_id: null,
    tvl: typeof p.tvl === "number" ? p.tvl / (i + 1) : p.tvl,
  }));
  const pools = fixture("defillama", "yields-pools.json") as { status: string; data: Rec[] };
  const poolCopies = copiesTo(REAL_SIZES.pools)(pools.data, (p, i) => ({ ...p, pool: `${p.pool}${suffix(i)}`, project: `${p.project}${suffix(i)}`, tvlUsd: typeof p.tvlUsd === "number" ? p.tvlUsd / (i + 1) : p.tvlUsd }));
  const lend = copiesTo(REAL_SIZES.lendBorrow)(fixture("defillama", "yields-lendBorrow.json") as Rec[], (l, i) => ({ ...l, pool: `${l.pool}${suffix(i)}` }));
  return (path, url) => {
    if (path === "/chainlist/chains.json") return chains;
    if (path === "/coingecko/api/v3/coins/list") return coins;
    if (path === "/coingecko/api/v3/coins/markets" && !url.searchParams.has("category")) {
      const page = Number(url.searchParams.get("page"));
      return markets.slice((page - 1) * 250, page * 250);
    }
    const chart = /^\/coingecko\/api\/v3\/coins\/([^/]+)\/market_chart\/range$/.exec(path);
    if (chart && /-x\d+$/.test(chart[1]!)) return fetchFallback(`/coingecko/api/v3/coins/${unsuffix(chart[1]!)}/market_chart/range${url.search}`);
    if (path === "/defillama/api/protocols") return protocols;
    let m = /^\/defillama\/api\/(protocol|summary\/fees)\/(.+-x\d+)$/.exec(path);
    if (m) return fetchFallback(`/defillama/api/${m[1]}/${unsuffix(m[2]!)}${url.search}`);
    if (path === "/defillama/yields/pools") return { ...pools, data: poolCopies };
    if (path === "/defillama/yields/lendBorrow") return lend;
    m = /^\/defillama\/yields\/chart\/(.+-x\d+)$/.exec(path);
    if (m) return fetchFallback(`/defillama/yields/chart/${unsuffix(m[1]!)}`);
    return undefined;
  };
}

/** A copy's detail answer: what the fixture server gives the original. */
let serverUrl = "";
async function fetchFallback(path: string): Promise<unknown> {
  const response = await fetch(`${serverUrl}${path}`);
  return response.ok ? response.json() : new Response(await response.text(), { status: response.status });
}

const detailLimit = Number(values["detail-limit"]);
const http = { retries: 2, backoffMs: 5, timeoutMs: 10_000 };

async function measure(label: string, override: Override | undefined): Promise<void> {
  const fake = startProviderFixtures(override);
  serverUrl = fake.url;
  const rawRoot = mkdtempSync(join(tmpdir(), "ckg-bench-raw-"));
  const raw = new RawStore(rawRoot);
  const configs = providerConfigs(fake.url, PROVIDER_IDS);
  // The per-provider limits at their defaults (CoinGecko records, Blockscout tokens).
  configs.get("coingecko")!.settings.limits = { details: Number(SETTINGS.coingecko_details_limit.default) };
  configs.get("blockscout")!.settings.limits = { tokens: Number(SETTINGS.blockscout_tokens.default) };
  const rows: [string, string][] = [];
  let rateLimitedSeconds = 0;
  for (const connector of CONNECTORS) {
    const config = configs.get(connector.id)!;
    const client = new ProviderHttp(connector.id, { log: silentLogger, ...http });
    let started = performance.now();
    await connector.fetch({ http: client, raw, settings: config.settings, log: silentLogger, today: TODAY, detailLimit, since: () => undefined, progress: () => {}, skip: () => {} });
    const fetchMs = performance.now() - started;
    started = performance.now();
    const out = new ProviderOutput(connector.id, silentLogger);
    connector.parse(raw, out);
    const parseMs = performance.now() - started;
    // The floor: reading and JSON.parse of the same saved answers, nothing else.
    started = performance.now();
    let bytes = 0;
    for (const k of raw.keys(connector.id)) {
      const file = join(rawRoot, connector.id, `${k.split("/").map(encodeURIComponent).join("/")}.json`);
      bytes += statSync(file).size;
      JSON.parse(readFileSync(file, "utf8"));
    }
    const floorMs = performance.now() - started;
    const records = out.claims.length + out.rowCount + out.links.length;
    const tier = FREE_TIER_PER_SECOND[connector.id]!;
    const atFreeTier = client.stats.requests / tier.rate;
    if (Number.isFinite(atFreeTier)) rateLimitedSeconds += atFreeTier; // providers are read one after another
    rows.push([
      `  ${connector.id}: ${client.stats.requests} requests at the free tier (${tier.label})`,
      Number.isFinite(tier.rate) ? `${(atFreeTier / 60).toFixed(1)} min` : "-",
    ]);
    rows.push([
      `${connector.id} (${out.claims.length} entities, ${out.rowCount} rows, ${out.links.length} links; ${client.stats.requests} requests, ${(bytes / 1e6).toFixed(1)} MB)`,
      `fetch ${fetchMs.toFixed(0)} ms, parse ${parseMs.toFixed(0)} ms: ${Math.round(records / ((fetchMs + parseMs) / 1000)).toLocaleString("en")} records/s (parse alone ${Math.round(records / (parseMs / 1000)).toLocaleString("en")}/s, ${(parseMs / Math.max(0.01, floorMs)).toFixed(1)}x JSON.parse of the same answers)`,
    ]);
  }
  rmSync(rawRoot, { recursive: true, force: true });

  // A full refresh: fetch, parse, resolve, series, search index, graph dump, publish.
  const copy = mkdtempSync(join(tmpdir(), "ckg-bench-ingest-"));
  cpSync(base.root, copy, { recursive: true });
  const started = performance.now();
  const report = await ingest({ dir: dataDir(copy), today: TODAY, source: { kind: "fetch", providers: configs, detailLimit, http }, log: silentLogger });
  const totalMs = performance.now() - started;
  fake.stop();
  rows.push([`a first ingest's requests at the free tiers (providers one after another)`, `${(rateLimitedSeconds / 60).toFixed(1)} min`]);
  rows.push(["peak RSS of this process so far", `${(Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024).toFixed(0)} MB`]);
  rows.push([
    `full refresh (${report.entities.toLocaleString("en")} entities after; ${report.resolution.entities_created} created, ${report.resolution.entities_matched} matched; ${report.changes.CREATE} CREATE, ${report.changes.UPDATE} UPDATE)`,
    `${(totalMs / 1000).toFixed(1)} s (${Object.entries(report.steps_ms).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`).join(", ")})`,
  ]);
  printTable(label, rows);
  if (values.keep && override) {
    rmSync(values.keep, { recursive: true, force: true });
    cpSync(copy, values.keep, { recursive: true });
    console.log(`kept the real-size ingested data directory in ${values.keep}`);
  }
  rmSync(copy, { recursive: true, force: true });
}

const snapshots = readdirSync(base.snapshots).length;
console.log(`base: ${base.root} (${snapshots} snapshot), detail limit ${detailLimit}`);
await measure("Ingest: test fixtures as recorded", undefined);
await measure(
  `Ingest at real sizes (${Object.entries(REAL_SIZES).map(([k, n]) => `${n.toLocaleString("en")} ${k}`).join(", ")}; list records copied under new ids)`,
  realSized(),
);
