/**
 * @module ingest/providers/defillama/fetch
 * What DefiLlama is asked: the lists, then the largest protocols', pools' and stablecoins' histories, and emissions with a key. Every answer is saved whole as {day, since, body}.
 */
import type { FetchContext } from "../../connector.ts";
import { fetchOnce } from "../../connector.ts";
import { ProviderError } from "../../http.ts";
import type { RawStore } from "../../raw-store.ts";
import { P, poolKey, PROTOCOL_LOOKBACK_DAYS, protocolKey, stablecoinKey } from "./keys.ts";
import { numberOr0, record, savedSchema } from "./schemas.ts";
import { addDays } from "../../../time.ts";

export const DEFAULT_URLS = {
  api: "https://api.llama.fi",
  yields: "https://yields.llama.fi",
  stablecoins: "https://stablecoins.llama.fi",
  pro: "https://pro-api.llama.fi",
};

/** Requests under way at once for detail histories (the http client spaces them further). */
export const CONCURRENCY = 4;

export function hosts(ctx: FetchContext) {
  const given = ctx.settings.urls;
  const pick = (name: keyof typeof DEFAULT_URLS) => (given[name] ?? DEFAULT_URLS[name]).replace(/\/+$/, "");
  return { api: pick("api"), yields: pick("yields"), stablecoins: pick("stablecoins"), pro: pick("pro") };
}

/** Fetches and saves an answer once, in its envelope. */
export function saveOnce(ctx: FetchContext, rawKey: string, url: string, since?: string): Promise<boolean> {
  return fetchOnce(ctx, P, rawKey, async () => ({ day: ctx.today, since: since ?? null, body: await ctx.http.getJson(url) }));
}

/** Like saveOnce, but an answer DefiLlama does not have (404, 400: no fees for that protocol, a delisted protocol) is normal: nothing is saved. */
export async function saveIfAny(ctx: FetchContext, rawKey: string, url: string, since?: string): Promise<void> {
  try {
    await saveOnce(ctx, rawKey, url, since);
  } catch (error) {
    if (!(error instanceof ProviderError && (error.status === 404 || error.status === 400))) throw error;
    ctx.log.debug({ request: rawKey, status: error.status }, "DefiLlama has no such answer; skipped");
  }
}

/** Runs `work` on each item, a few at a time; the first failure stops new work and is thrown once the rest settle. */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>, onDone: (done: number) => void): Promise<void> {
  let next = 0;
  let done = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
        onDone(++done);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure;
}

/** The saved body of a list, for choosing details; undefined when absent or unreadable (parse reports it). */
export function savedBody(raw: RawStore, rawKey: string): unknown {
  try {
    const saved = savedSchema.safeParse(raw.load(P, rawKey));
    return saved.success ? saved.data.body : undefined;
  } catch {
    return undefined;
  }
}

/** The `limit` largest of a list by `size`, as their ids (items without an id are skipped). */
export function largest(list: unknown, limit: number, id: (item: Record<string, unknown>) => unknown, size: (item: Record<string, unknown>) => number): string[] {
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

  const lists: [string, string][] = [
    ["chains", `${u.api}/v2/chains`],
    ["protocols", `${u.api}/protocols`],
    ["parents", `${u.api}/lite/protocols2`],
    ["raises", `${u.api}/raises`],
  ];
  for (const [i, [rawKey, url]] of lists.entries()) {
    await saveOnce(ctx, rawKey, url);
    ctx.progress(i + 1, lists.length);
  }

  // Protocol histories: TVL (with its chain split), daily fees and daily revenue.
  const slugs = largest(savedBody(ctx.raw, "protocols"), ctx.detailLimit, (p) => p.slug, (p) => numberOr0(p.tvl));
  await eachLimited(
    slugs,
    CONCURRENCY,
    async (slug) => {
      const cursor = ctx.since(protocolKey(slug));
      const since = cursor && addDays(cursor, -PROTOCOL_LOOKBACK_DAYS);
      const path = encodeURIComponent(slug);
      // A detail the list names but DefiLlama no longer serves (404) is skipped, not a failed run.
      await saveIfAny(ctx, `protocol/${slug}`, `${u.api}/protocol/${path}`, since);
      await saveIfAny(ctx, `fees/${slug}`, `${u.api}/summary/fees/${path}?dataType=dailyFees`, since);
      await saveIfAny(ctx, `revenue/${slug}`, `${u.api}/summary/fees/${path}?dataType=dailyRevenue`, since);
    },
    (done) => ctx.progress(done, slugs.length),
  );

  // Pools, their histories, and the lending side of lending pools.
  await saveOnce(ctx, "pools", `${u.yields}/pools`);
  ctx.progress(1, 1);
  const pools = largest(record(savedBody(ctx.raw, "pools")).data, ctx.detailLimit, (p) => p.pool, (p) => numberOr0(p.tvlUsd));
  await eachLimited(
    pools,
    CONCURRENCY,
    (uuid) => saveIfAny(ctx, `pool/${uuid}`, `${u.yields}/chart/${encodeURIComponent(uuid)}`, ctx.since(poolKey(uuid))),
    (done) => ctx.progress(done, pools.length),
  );
  await saveOnce(ctx, "lendBorrow", `${u.yields}/lendBorrow`);
  ctx.progress(1, 1);

  // Stablecoins and the histories of the largest.
  await saveOnce(ctx, "stablecoins", `${u.stablecoins}/stablecoins?includePrices=true`);
  ctx.progress(1, 1);
  const coins = largest(record(savedBody(ctx.raw, "stablecoins")).peggedAssets, ctx.detailLimit, (s) => s.id, (s) => numberOr0(record(s.circulating).peggedUSD));
  await eachLimited(
    coins,
    CONCURRENCY,
    (id) => saveIfAny(ctx, `stablecoin/${id}`, `${u.stablecoins}/stablecoin/${encodeURIComponent(id)}`, ctx.since(stablecoinKey(id))),
    (done) => ctx.progress(done, coins.length),
  );

  // Token unlocks: the pro API only (the key travels in the path; the http client keeps it out of logs).
  if (ctx.settings.apiKey) {
    await saveOnce(ctx, "emissions", `${u.pro}/${encodeURIComponent(ctx.settings.apiKey)}/api/emissions`);
    ctx.progress(1, 1);
  }
}
