/**
 * @module ingest/providers/defillama/fetch
 * What DefiLlama is asked, every request on its own (a refusal is a skipped line in the report,
 * never a failed run): the lists (with `/hacks`, every security incident DefiLlama records, one
 * answer of ~540 incidents), then the largest protocols' histories (TVL with their raises,
 * fees, revenue) and treasuries, pools and their histories, lending markets, stablecoins and their
 * histories, and token unlock schedules. Every answer is saved whole as {day, since, body}.
 *
 * Free and paid: `/raises` is on the paid plan only, so without a key the raises come from the
 * protocol histories, which carry each protocol's own (same records). Unlock schedules come from
 * DefiLlama's datasets host, which serves the emissions adapters' output to everyone (the API's
 * `/emissions` answers 402 without a plan). `lendBorrow` is listed among the paid endpoints but
 * the yields host answers it without a key; with a key the paid host is asked instead.
 */
import type { FetchContext } from "../../connector.ts";
import { answered, ask, skipPaid } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import { P, poolKey, PROTOCOL_LOOKBACK_DAYS, protocolKey, stablecoinKey } from "./keys.ts";
import { numberOr0, record, savedSchema } from "./schemas.ts";
import { PRICES_KEY, pricesSince } from "./stablecoin-prices.ts";
import { addDays } from "../../../time.ts";

const DEFAULT_URLS = {
  api: "https://api.llama.fi",
  yields: "https://yields.llama.fi",
  stablecoins: "https://stablecoins.llama.fi",
  pro: "https://pro-api.llama.fi",
  datasets: "https://defillama-datasets.llama.fi",
};

/** Requests under way at once for detail histories (the http client spaces them by defillama_min_interval_ms, so this overlaps answers, never raises the rate). */
const CONCURRENCY = 4;
/** Statuses meaning "DefiLlama has no such answer" for a detail (no fees for that protocol, a delisted one). */
const ABSENT = [400, 404];

function hosts(ctx: FetchContext) {
  const given = ctx.settings.urls;
  const pick = (name: keyof typeof DEFAULT_URLS) => (given[name] ?? DEFAULT_URLS[name]).replace(/\/+$/, "");
  return { api: pick("api"), yields: pick("yields"), stablecoins: pick("stablecoins"), pro: pick("pro"), datasets: pick("datasets") };
}

/** Asks for an answer once and saves it in its envelope. */
function saveOnce(ctx: FetchContext, rawKey: string, url: string, options: { since?: string; absentOn?: number[] } = {}) {
  return ask(ctx, P, rawKey, async () => ({ day: ctx.today, since: options.since ?? null, body: await ctx.http.getJson(url) }), { absentOn: options.absentOn });
}

/** Runs `work` on each item, a few at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<unknown>, onDone: (done: number) => void): Promise<void> {
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < items.length) {
      await work(items[next++]!);
      onDone(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The saved body of a list, for choosing details; undefined when absent or unreadable (parse reports it). */
function savedBody(raw: RawStore, rawKey: string): unknown {
  try {
    const saved = savedSchema.safeParse(raw.load(P, rawKey));
    return saved.success ? saved.data.body : undefined;
  } catch {
    return undefined;
  }
}

/** The `limit` largest of a list by `size`, as their ids (items without an id are skipped). */
function largest(list: unknown, limit: number, id: (item: Record<string, unknown>) => unknown, size: (item: Record<string, unknown>) => number): string[] {
  if (!Array.isArray(list) || limit <= 0) return [];
  return list
    .map(record)
    .filter((item) => typeof id(item) === "string" || typeof id(item) === "number")
    .sort((a, b) => size(b) - size(a))
    .slice(0, limit)
    .map((item) => String(id(item)));
}

export async function fetchAll(ctx: FetchContext): Promise<void> {
  const u = hosts(ctx);
  const key = ctx.settings.apiKey;
  const paid = (path: string) => `${u.pro}/${encodeURIComponent(key!)}${path}`;

  const lists: [string, string][] = [
    ["chains", `${u.api}/v2/chains`],
    ["protocols", `${u.api}/protocols`],
    ["parents", `${u.api}/lite/protocols2`],
    ["hacks", `${u.api}/hacks`],
  ];
  for (const [i, [rawKey, url]] of lists.entries()) {
    await saveOnce(ctx, rawKey, url);
    ctx.progress(i + 1, lists.length);
  }
  if (key) await saveOnce(ctx, "raises", paid("/api/raises"));
  else skipPaid(ctx, "raises", "DefiLlama's paid plan", "CKG_DEFILLAMA_API_KEY (the largest protocols' raises still come with their histories)");

  // Protocol histories: TVL (with its chain split and the protocol's raises), daily fees and revenue.
  const protocols = savedBody(ctx.raw, "protocols");
  const slugs = largest(protocols, ctx.detailLimit, (p) => p.slug, (p) => numberOr0(p.tvl));
  await eachLimited(
    slugs,
    CONCURRENCY,
    async (slug) => {
      const cursor = ctx.since(protocolKey(slug));
      const since = cursor && addDays(cursor, -PROTOCOL_LOOKBACK_DAYS);
      const path = encodeURIComponent(slug);
      await saveOnce(ctx, `protocol/${slug}`, `${u.api}/protocol/${path}`, { since, absentOn: ABSENT });
      await saveOnce(ctx, `fees/${slug}`, `${u.api}/summary/fees/${path}?dataType=dailyFees`, { since, absentOn: ABSENT });
      await saveOnce(ctx, `revenue/${slug}`, `${u.api}/summary/fees/${path}?dataType=dailyRevenue`, { since, absentOn: ABSENT });
    },
    (done) => ctx.progress(done, slugs.length),
  );

  // Treasuries of the largest protocols and families that have one (`treasury` names its adapter);
  // whole histories, of which parse keeps the last year.
  const withTreasury = treasurySlugs(protocols, savedBody(ctx.raw, "parents"), ctx.detailLimit);
  await eachLimited(
    withTreasury,
    CONCURRENCY,
    (slug) => saveOnce(ctx, `treasury/${slug}`, `${u.api}/treasury/${encodeURIComponent(slug)}`, { absentOn: ABSENT }),
    (done) => ctx.progress(done, withTreasury.length),
  );

  // Pools, their histories, and the lending side of lending pools.
  await saveOnce(ctx, "pools", `${u.yields}/pools`);
  const pools = largest(record(savedBody(ctx.raw, "pools")).data, ctx.detailLimit, (p) => p.pool, (p) => numberOr0(p.tvlUsd));
  await eachLimited(
    pools,
    CONCURRENCY,
    (uuid) => saveOnce(ctx, `pool/${uuid}`, `${u.yields}/chart/${encodeURIComponent(uuid)}`, { since: ctx.since(poolKey(uuid)), absentOn: ABSENT }),
    (done) => ctx.progress(done, pools.length),
  );
  await saveOnce(ctx, "lendBorrow", key ? paid("/yields/poolsBorrow") : `${u.yields}/lendBorrow`);

  // Stablecoins, every one's price history (one request), and the supply histories of the largest.
  await saveOnce(ctx, "stablecoins", `${u.stablecoins}/stablecoins?includePrices=true`);
  await saveOnce(ctx, PRICES_KEY, `${u.stablecoins}/stablecoinprices`, { since: pricesSince(savedBody(ctx.raw, "stablecoins"), (k) => ctx.since(k)) });
  const coins = largest(record(savedBody(ctx.raw, "stablecoins")).peggedAssets, ctx.detailLimit, (s) => s.id, (s) => numberOr0(record(s.circulating).peggedUSD));
  await eachLimited(
    coins,
    CONCURRENCY,
    (id) => saveOnce(ctx, `stablecoin/${id}`, `${u.stablecoins}/stablecoin/${encodeURIComponent(id)}`, { since: ctx.since(stablecoinKey(id)), absentOn: ABSENT }),
    (done) => ctx.progress(done, coins.length),
  );

  // Unlock schedules of the largest protocols DefiLlama has one for.
  if (answered(await saveOnce(ctx, "emissions-list", `${u.datasets}/emissionsProtocolsList`))) {
    const scheduled = emissionSlugs(savedBody(ctx.raw, "emissions-list"), protocols, savedBody(ctx.raw, "parents"), ctx.detailLimit);
    await eachLimited(
      scheduled,
      CONCURRENCY,
      (slug) => saveOnce(ctx, `emission/${slug}`, `${u.datasets}/emissions/${encodeURIComponent(slug)}`, { absentOn: ABSENT }),
      (done) => ctx.progress(done, scheduled.length),
    );
  }
}

/** Slugs of the `limit` largest protocols and parent protocols (by TVL) whose record names a treasury adapter. */
function treasurySlugs(protocols: unknown, parents: unknown, limit: number): string[] {
  const tvlOfParent = new Map<string, number>();
  const candidates: { slug: string; tvl: number }[] = [];
  for (const p of Array.isArray(protocols) ? protocols.map(record) : []) {
    const tvl = numberOr0(p.tvl);
    if (typeof p.parentProtocol === "string") tvlOfParent.set(p.parentProtocol, (tvlOfParent.get(p.parentProtocol) ?? 0) + tvl);
    if (typeof p.treasury === "string" && typeof p.slug === "string") candidates.push({ slug: p.slug, tvl });
  }
  for (const parent of (Array.isArray(record(parents).parentProtocols) ? (record(parents).parentProtocols as unknown[]) : []).map(record)) {
    if (typeof parent.treasury !== "string" || typeof parent.id !== "string" || typeof parent.name !== "string") continue;
    candidates.push({ slug: parent.name.toLowerCase().split(" ").join("-"), tvl: tvlOfParent.get(parent.id) ?? 0 });
  }
  const seen = new Set<string>();
  return candidates
    .sort((a, b) => b.tvl - a.tvl || a.slug.localeCompare(b.slug))
    .filter((c) => !seen.has(c.slug) && seen.add(c.slug))
    .slice(0, Math.max(0, limit))
    .map((c) => c.slug);
}

/**
 * The slugs of the emissions list (`["aave", "arbitrum", ...]`, or records with a `name`) that name
 * the `limit` largest protocols or families by TVL; slugs the lists do not know come after, in the
 * list's order, up to the same limit.
 */
function emissionSlugs(list: unknown, protocols: unknown, parents: unknown, limit: number): string[] {
  const slugs = (Array.isArray(list) ? list : [])
    .map((item) => (typeof item === "string" ? item : typeof record(item).name === "string" ? (record(item).name as string) : undefined))
    .filter((s): s is string => Boolean(s && /^[A-Za-z0-9._-]+$/.test(s)));
  const tvl = new Map<string, number>();
  const add = (slug: unknown, value: number) => {
    if (typeof slug === "string") tvl.set(slug.toLowerCase(), Math.max(tvl.get(slug.toLowerCase()) ?? 0, value));
  };
  for (const p of Array.isArray(protocols) ? protocols.map(record) : []) {
    add(p.slug, numberOr0(p.tvl));
    if (typeof p.parentProtocolSlug === "string") add(p.parentProtocolSlug, numberOr0(p.tvl));
  }
  for (const parent of (Array.isArray(record(parents).parentProtocols) ? (record(parents).parentProtocols as unknown[]) : []).map(record)) {
    if (typeof parent.name === "string") add(parent.name.toLowerCase().split(" ").join("-"), 0);
  }
  return [...new Set(slugs)]
    .map((slug, order) => ({ slug, order, tvl: tvl.get(slug.toLowerCase()) }))
    .sort((a, b) => (b.tvl ?? -1) - (a.tvl ?? -1) || a.order - b.order)
    .slice(0, Math.max(0, limit))
    .map((s) => s.slug);
}
