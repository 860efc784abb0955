/**
 * @module ingest/providers/defillama
 * DefiLlama's public API (api.llama.fi, yields.llama.fi, stablecoins.llama.fi; emissions on the pro
 * API when a key is set): chains, protocols with their parents, forks, tokens and governance spaces,
 * protocol TVL/fees/revenue histories, pools and lending markets, stablecoins, funding rounds and
 * token unlocks.
 *
 * The protocol list is `/protocols` (not `/lite/protocols2`): only it carries the slug, token
 * address, description and url. Parent protocols appear there only as ids (`parent#uniswap`) and
 * slugs (`parentProtocolSlug`); their names, urls, tokens and governance come from the
 * `parentProtocols` list of `/lite/protocols2`, fetched for that list alone. A parent is keyed by
 * its slug like any protocol (`/protocol/<slug>` and defillama.com/protocol/<slug> serve parents
 * and protocols from one namespace), so `Protocol:defillama:uniswap` is the parent of
 * `Protocol:defillama:uniswap-v3`.
 *
 * Every answer is saved as `{ day, since, body }`: `body` is DefiLlama's answer untouched, `day` the
 * run's day (the date of the rows a list gives for "now"), `since` the last day already stored for
 * the history it holds. DefiLlama always returns whole histories (no start parameter), so the
 * saving of an incremental run is in what is stored: parse keeps only the days after `since`
 * (for protocols, the cursor less PROTOCOL_LOOKBACK_DAYS: fees arrive after the day). Parse reads
 * only the raw store, so an import of answers carried from elsewhere parses alike.
 */
import { z } from "zod";
import { slugify } from "../../graph/vocabulary.ts";
import type { Attribute, Relation } from "../../graph/vocabulary.ts";
import type { Connector, FetchContext } from "../connector.ts";
import { fetchOnce } from "../connector.ts";
import { ProviderError } from "../http.ts";
import type { RawStore } from "../raw-store.ts";
import { type ProviderOutput, type SeriesRow, addressKey, dayOf, key } from "../records.ts";

const P = "defillama" as const;

const DEFAULT_URLS = {
  api: "https://api.llama.fi",
  yields: "https://yields.llama.fi",
  stablecoins: "https://stablecoins.llama.fi",
  pro: "https://pro-api.llama.fi",
};

/** Requests under way at once for detail histories (the http client spaces them further). */
const CONCURRENCY = 4;

/**
 * Days before a protocol's cursor that are taken again. A day's fees and revenue are published
 * after the day while its TVL is there at once, so the last stored day has TVL but no fees yet;
 * taking the cursor's day (and the one before, for adapters that run late) again replaces those
 * rows whole with complete ones. Pools and stablecoins have no such lag.
 */
export const PROTOCOL_LOOKBACK_DAYS = 2;

function daysBefore(day: string | undefined, days: number): string | undefined {
  if (!day) return undefined;
  const ms = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(ms) ? new Date(ms - days * 86_400_000).toISOString().slice(0, 10) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Keys

export const protocolKey = (slug: string) => key("Protocol", P, slug);
export const chainKey = (name: string) => key("Chain", P, name);
export const poolKey = (uuid: string) => key("Pool", P, uuid);
export const marketKey = (uuid: string) => key("LendingMarket", P, uuid);
export const stablecoinKey = (id: string) => key("Token", "defillama-stablecoin", id);
export const investorKey = (name: string) => key("Organization", "defillama-investor", slugify(name));
const geckoKey = (id: string) => key("Token", "coingecko", id);

/** DefiLlama's own slug of a name (utils/sluggify): lower case, spaces to dashes, no apostrophes. */
export function llamaSlug(name: string): string {
  return name.toLowerCase().split(" ").join("-").split("'").join("");
}

// ---------------------------------------------------------------------------------------------
// Shapes of DefiLlama's answers (only the fields read; everything else passes unread)

const num = z.number();
const optNum = num.nullish();
const optStr = z.string().nullish();
const idString = z.union([z.string().min(1), z.number()]).transform(String);

/** A saved answer: DefiLlama's body with the run's day and the history's last stored day. */
const savedSchema = z.object({ day: z.string(), since: z.string().nullable(), body: z.unknown() });
type Saved = z.infer<typeof savedSchema>;

const chainSchema = z.object({
  name: z.string().min(1),
  chainId: z.unknown().optional(),
  gecko_id: optStr,
  tokenSymbol: optStr,
  tvl: optNum,
});

const protocolSchema = z.object({
  id: idString,
  name: z.string().min(1),
  slug: z.string().min(1),
  address: optStr,
  symbol: optStr,
  url: optStr,
  description: optStr,
  gecko_id: optStr,
  category: optStr,
  chains: z.array(z.string()).nullish(),
  forkedFrom: z.array(z.string()).nullish(),
  parentProtocol: optStr,
  parentProtocolSlug: optStr,
  governanceID: z.array(z.string()).nullish(),
  tvl: optNum,
});
type Protocol = z.infer<typeof protocolSchema>;

const parentSchema = z.object({
  id: z.string().regex(/^parent#/, "parent id without parent#"),
  name: z.string().min(1),
  address: optStr,
  symbol: optStr,
  url: optStr,
  description: optStr,
  gecko_id: optStr,
  category: optStr,
  chains: z.array(z.string()).nullish(),
  governanceID: z.array(z.string()).nullish(),
});

const tvlPoint = z.object({ date: z.union([num, z.string()]), totalLiquidityUSD: optNum });
const protocolDetailSchema = z.object({
  tvl: z.array(z.unknown()),
  chainTvls: z.record(z.string(), z.object({ tvl: z.array(z.unknown()).nullish() })).nullish(),
});

const feesSchema = z.object({ totalDataChart: z.array(z.unknown()) });
const chartPoint = z.tuple([z.union([num, z.string()]), optNum]);

const poolSchema = z.object({
  pool: z.string().min(1),
  chain: z.string().min(1),
  project: z.string().min(1),
  symbol: z.string(),
  tvlUsd: optNum,
  apy: optNum,
  apyBase: optNum,
  apyReward: optNum,
  volumeUsd1d: optNum,
  underlyingTokens: z.array(z.string()).nullish(),
  poolMeta: optStr,
  exposure: optStr,
});
type Pool = z.infer<typeof poolSchema>;

const poolChartPoint = z.object({
  timestamp: z.union([z.string(), num]),
  tvlUsd: optNum,
  apy: optNum,
  apyBase: optNum,
  apyReward: optNum,
});

const lendBorrowSchema = z.object({
  pool: z.string().min(1),
  totalSupplyUsd: optNum,
  totalBorrowUsd: optNum,
  apyBaseBorrow: optNum,
  apyRewardBorrow: optNum,
  debtCeilingUsd: optNum,
});

const stablecoinSchema = z.object({
  id: idString,
  name: z.string().min(1),
  symbol: z.string().min(1),
  gecko_id: optStr,
  pegType: z.string().min(1),
  circulating: z.record(z.string(), optNum).nullish(),
  chains: z.array(z.string()).nullish(),
  price: z.union([num, z.string()]).nullish(),
});
type Stablecoin = z.infer<typeof stablecoinSchema>;

const stablecoinPoint = z.object({
  date: z.union([num, z.string()]),
  circulating: z.record(z.string(), optNum).nullish(),
});

const raiseSchema = z.object({
  date: z.union([num, z.string()]),
  name: z.string().min(1),
  round: optStr,
  amount: optNum,
  leadInvestors: z.array(z.string()).nullish(),
  otherInvestors: z.array(z.string()).nullish(),
  defillamaId: z.union([z.string(), num]).nullish(),
  source: optStr,
});

const emissionSchema = z.object({
  token: z.string().min(1),
  name: z.string().min(1),
  gecko_id: optStr,
  circSupply: optNum,
  maxSupply: optNum,
  tPrice: optNum,
  events: z
    .array(
      z.object({
        timestamp: z.union([num, z.string()]),
        noOfTokens: z.array(num),
        category: optStr,
        unlockType: optStr,
      }),
    )
    .nullish(),
});

// ---------------------------------------------------------------------------------------------
// Fetch

function hosts(ctx: FetchContext) {
  const given = ctx.settings.urls;
  const pick = (name: keyof typeof DEFAULT_URLS) => (given[name] ?? DEFAULT_URLS[name]).replace(/\/+$/, "");
  return { api: pick("api"), yields: pick("yields"), stablecoins: pick("stablecoins"), pro: pick("pro") };
}

/** Fetches and saves an answer once, in its envelope. */
function saveOnce(ctx: FetchContext, rawKey: string, url: string, since?: string): Promise<boolean> {
  return fetchOnce(ctx, P, rawKey, async () => ({ day: ctx.today, since: since ?? null, body: await ctx.http.getJson(url) }));
}

/** Like saveOnce, but an answer DefiLlama does not have (404, 400: no fees for that protocol, a delisted protocol) is normal: nothing is saved. */
async function saveIfAny(ctx: FetchContext, rawKey: string, url: string, since?: string): Promise<void> {
  try {
    await saveOnce(ctx, rawKey, url, since);
  } catch (error) {
    if (!(error instanceof ProviderError && (error.status === 404 || error.status === 400))) throw error;
    ctx.log.debug({ request: rawKey, status: error.status }, "DefiLlama has no such answer; skipped");
  }
}

/** Runs `work` on each item, a few at a time; the first failure stops new work and is thrown once the rest settle. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>, onDone: (done: number) => void): Promise<void> {
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
function savedBody(raw: RawStore, rawKey: string): unknown {
  try {
    const saved = savedSchema.safeParse(raw.load(P, rawKey));
    return saved.success ? saved.data.body : undefined;
  } catch {
    return undefined;
  }
}

const record = (value: unknown): Record<string, unknown> => (value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {});
const numberOr0 = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);

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

async function fetchAll(ctx: FetchContext): Promise<void> {
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
      const since = daysBefore(ctx.since(protocolKey(slug)), PROTOCOL_LOOKBACK_DAYS);
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

// ---------------------------------------------------------------------------------------------
// Parse

/** What parsing one part tells the next. */
interface Known {
  /** Chain display names by DefiLlama's chain ids as used in address prefixes (`arbitrum`, `avax`). */
  chainByPrefix: Map<string, string>;
  /** The native token of a chain (coingecko key), by chain name. */
  nativeToken: Map<string, string>;
  /** Protocol slugs by protocol id (`2198`) and parent id (`parent#uniswap`): raises name protocols by id. */
  slugById: Map<string, string>;
}

/** DefiLlama chain ids whose display name is not the id in another case. */
const CHAIN_PREFIX_ALIASES: Record<string, string> = {
  avax: "Avalanche",
  xdai: "Gnosis",
  era: "zkSync Era",
  optimism: "OP Mainnet",
  polygon_zkevm: "Polygon zkEVM",
  klaytn: "Kaia",
  hyperliquid: "Hyperliquid L1",
};

const ZERO_ADDRESS = /^0x0{40}$/i;

function issue(error: z.ZodError): string {
  const first = error.issues[0];
  if (!first) return "invalid";
  return first.path.length > 0 ? `${first.path.join(".")}: ${first.message}` : first.message;
}

const label = (item: unknown, ...fields: string[]): string => {
  const r = record(item);
  for (const field of fields) if (typeof r[field] === "string" || typeof r[field] === "number") return JSON.stringify(r[field]);
  return "(unnamed)";
};

/** A saved answer's envelope, or undefined (rejected when present but unreadable). */
function loadSaved(raw: RawStore, out: ProviderOutput, rawKey: string): Saved | undefined {
  let value: unknown;
  try {
    value = raw.load(P, rawKey);
  } catch (error) {
    out.reject(rawKey, `unreadable saved answer: ${(error as Error).message}`);
    return undefined;
  }
  if (value === undefined) return undefined;
  const saved = savedSchema.safeParse(value);
  if (!saved.success) {
    out.reject(rawKey, "not a saved answer ({day, since, body})");
    return undefined;
  }
  return saved.data;
}

/** Each record of a list through its schema; the malformed ones rejected. */
function* records<T>(out: ProviderOutput, list: unknown[], schema: z.ZodType<T>, what: (item: unknown) => string): Generator<T> {
  for (const item of list) {
    const parsed = schema.safeParse(item);
    if (parsed.success) yield parsed.data;
    else out.reject(what(item), issue(parsed.error));
  }
}

/** The list at `field` of a saved body (or the body itself when `field` is undefined); rejected when the answer has another shape. */
function listOf(out: ProviderOutput, rawKey: string, body: unknown, field?: string): unknown[] | undefined {
  const list = field === undefined ? body : record(body)[field];
  if (Array.isArray(list)) return list;
  out.reject(rawKey, field === undefined ? "answer is not a list" : `answer has no list "${field}"`);
  return undefined;
}

/** 1 for the largest, falling with rank; 0 without a size. */
function prominenceByRank<T>(items: T[], size: (item: T) => number | null | undefined): Map<T, number> {
  const sized = items.filter((item) => (size(item) ?? 0) > 0).sort((a, b) => size(b)! - size(a)!);
  const result = new Map<T, number>(items.map((item) => [item, 0]));
  sized.forEach((item, rank) => result.set(item, Number((1 - rank / sized.length).toFixed(4))));
  return result;
}

class Relations {
  private readonly seen = new Set<string>();
  readonly list: [Relation, string][] = [];
  add(relation: Relation, target: string | undefined): void {
    if (!target || this.seen.has(`${relation} ${target}`)) return;
    this.seen.add(`${relation} ${target}`);
    this.list.push([relation, target]);
  }
}

function attributes(pairs: [Attribute, string | number | boolean | null | undefined][]): [Attribute, string | number | boolean][] {
  return pairs.filter((pair): pair is [Attribute, string | number | boolean] => pair[1] !== null && pair[1] !== undefined && pair[1] !== "");
}

const usable = (text: string | null | undefined): string | undefined => (text && text.trim() && text.trim() !== "-" ? text.trim() : undefined);

/** Rows for days after `since` only (DefiLlama returns whole histories). */
const after = (since: string | null) => (date: string) => since === null || date > since;

function parseChains(raw: RawStore, out: ProviderOutput, known: Known): void {
  const saved = loadSaved(raw, out, "chains");
  if (!saved) return;
  const list = listOf(out, "chains", saved.body);
  if (!list) return;
  const chains = [...records(out, list, chainSchema, (item) => `chain ${label(item, "name")}`)];
  const prominence = prominenceByRank(chains, (chain) => chain.tvl);
  for (const chain of chains) {
    known.chainByPrefix.set(chain.name.toLowerCase().replace(/\s+/g, "_"), chain.name);
    const native = usable(chain.gecko_id);
    if (native) known.nativeToken.set(chain.name, geckoKey(native));
    out.entity({
      type: "Chain",
      keys: [chainKey(chain.name), ...(typeof chain.chainId === "number" ? [key("Chain", "caip2", `eip155:${chain.chainId}`)] : [])],
      name: chain.name,
      symbol: usable(chain.tokenSymbol),
      relations: native ? [["nativeToken", geckoKey(native)]] : [],
      sameAs: [`https://defillama.com/chain/${encodeURIComponent(chain.name)}`],
      prominence: prominence.get(chain),
    });
  }
}

/** A protocol's token address: "0x.." is on Ethereum, "chain:addr" on that chain (DefiLlama's chain id). */
function tokenAddressKey(address: string | null | undefined, known: Known): string | undefined {
  const text = usable(address);
  if (!text) return undefined;
  if (/^0x[0-9a-fA-F]{40}$/.test(text)) return addressKey(chainKey("Ethereum"), text);
  const prefixed = /^([A-Za-z0-9_-]+):(.+)$/.exec(text);
  if (!prefixed) return undefined;
  const prefix = prefixed[1]!.toLowerCase();
  const chain = known.chainByPrefix.get(prefix) ?? CHAIN_PREFIX_ALIASES[prefix];
  return chain ? addressKey(chainKey(chain), prefixed[2]!) : undefined;
}

/** Snapshot spaces among a protocol's governance ids ("snapshot:uniswapgovernance.eth"; on-chain governors are skipped). */
function governanceSpaces(ids: string[] | null | undefined): string[] {
  return (ids ?? []).flatMap((id) => {
    const space = /^snapshot:(.+)$/.exec(id.trim())?.[1];
    return space ? [key("Organization", "snapshot", space)] : [];
  });
}

function parseProtocols(raw: RawStore, out: ProviderOutput, known: Known): void {
  const saved = loadSaved(raw, out, "protocols");
  const list = saved && listOf(out, "protocols", saved.body);
  const protocols = list ? [...records(out, list, protocolSchema, (item) => `protocol ${label(item, "slug", "name", "id")}`)] : [];

  const parentsSaved = loadSaved(raw, out, "parents");
  const parentList = parentsSaved && listOf(out, "parents", parentsSaved.body, "parentProtocols");
  const parents = parentList ? [...records(out, parentList, parentSchema, (item) => `parent protocol ${label(item, "id", "name")}`)] : [];

  // Slugs of parents: as their children give them, else DefiLlama's slug of the parent's name.
  const parentSlug = new Map<string, string>();
  for (const parent of parents) parentSlug.set(parent.id, llamaSlug(parent.name));
  for (const p of protocols) if (p.parentProtocol && usable(p.parentProtocolSlug)) parentSlug.set(p.parentProtocol, p.parentProtocolSlug!);
  const slugOfParent = (id: string) => parentSlug.get(id) ?? llamaSlug(id.replace(/^parent#/, ""));

  // forkedFrom names protocols by name: the slug of each name from the same lists (unknown names skipped).
  const slugByName = new Map<string, string>();
  for (const parent of parents) slugByName.set(parent.name.toLowerCase(), slugOfParent(parent.id));
  for (const p of protocols) slugByName.set(p.name.toLowerCase(), p.slug);
  for (const p of protocols) known.slugById.set(p.id, p.slug);
  for (const parent of parents) known.slugById.set(parent.id, slugOfParent(parent.id));

  const prominence = prominenceByRank(protocols, (p) => p.tvl);
  const parentProminence = new Map<string, number>();
  for (const p of protocols) {
    if (!p.parentProtocol) continue;
    const slug = slugOfParent(p.parentProtocol);
    parentProminence.set(slug, Math.max(parentProminence.get(slug) ?? 0, prominence.get(p) ?? 0));
  }

  // The issuer of a token is the top of its family: a child's token is its parent's.
  const issued = new Set<string>();
  const issuedBy = (token: string | undefined, issuer: string) => {
    if (!token || issued.has(`${token} ${issuer}`)) return;
    issued.add(`${token} ${issuer}`);
    out.link(token, "issuedBy", issuer);
  };

  for (const parent of parents) {
    const slug = slugOfParent(parent.id);
    const own = protocolKey(slug);
    const relations = new Relations();
    for (const chain of parent.chains ?? []) relations.add("deployedOn", chainKey(chain));
    const gecko = usable(parent.gecko_id);
    const address = tokenAddressKey(parent.address, known);
    relations.add("governanceToken", gecko && geckoKey(gecko));
    relations.add("governanceToken", address);
    for (const space of governanceSpaces(parent.governanceID)) relations.add("governedBy", space);
    issuedBy(gecko && geckoKey(gecko), own);
    issuedBy(address, own);
    out.entity({
      type: "Protocol",
      keys: [own],
      name: parent.name,
      symbol: usable(parent.symbol),
      attributes: attributes([
        ["category", usable(parent.category)],
        ["schema:url", usable(parent.url)],
        ["schema:description", usable(parent.description)],
      ]),
      relations: relations.list,
      sameAs: [`https://defillama.com/protocol/${slug}`],
      prominence: parentProminence.get(slug) ?? 0,
    });
  }

  for (const p of protocols) {
    const own = protocolKey(p.slug);
    const relations = new Relations();
    for (const chain of p.chains ?? []) relations.add("deployedOn", chainKey(chain));
    for (const name of p.forkedFrom ?? []) {
      const slug = slugByName.get(name.toLowerCase());
      if (slug && slug !== p.slug) relations.add("forkOf", protocolKey(slug));
    }
    const parent = p.parentProtocol ? protocolKey(slugOfParent(p.parentProtocol)) : undefined;
    relations.add("parentProtocol", parent);
    const gecko = usable(p.gecko_id);
    const address = tokenAddressKey(p.address, known);
    relations.add("governanceToken", gecko && geckoKey(gecko));
    relations.add("governanceToken", address);
    for (const space of governanceSpaces(p.governanceID)) relations.add("governedBy", space);
    issuedBy(gecko && geckoKey(gecko), parent ?? own);
    issuedBy(address, parent ?? own);
    out.entity({
      type: "Protocol",
      keys: [own],
      name: p.name,
      symbol: usable(p.symbol),
      attributes: attributes([
        ["category", usable(p.category)],
        ["schema:url", usable(p.url)],
        ["schema:description", usable(p.description)],
      ]),
      relations: relations.list,
      sameAs: [`https://defillama.com/protocol/${p.slug}`],
      prominence: prominence.get(p),
    });
  }
}

/** `[[unixSeconds, value], ...]` as value by day (the last of a day wins), days after `since` only. */
function dailyChart(out: ProviderOutput, what: string, body: unknown, since: string | null): Map<string, number | null> | undefined {
  const parsed = feesSchema.safeParse(body);
  if (!parsed.success) {
    out.reject(what, `answer has no totalDataChart (${issue(parsed.error)})`);
    return undefined;
  }
  const byDay = new Map<string, number | null>();
  const keep = after(since);
  for (const point of parsed.data.totalDataChart) {
    const entry = chartPoint.safeParse(point);
    const day = entry.success ? dayOf(entry.data[0]) : undefined;
    if (!entry.success || !day) {
      out.reject(`${what} point`, entry.success ? "not a time" : issue(entry.error));
      continue;
    }
    if (keep(day)) byDay.set(day, entry.data[1] ?? null);
  }
  return byDay;
}

/** `[{date, totalLiquidityUSD}]` as TVL by day (the last of a day wins: DefiLlama ends with the current hour). */
function tvlByDay(out: ProviderOutput, what: string, points: unknown[], keep: (day: string) => boolean): Map<string, number | null> {
  const byDay = new Map<string, number | null>();
  for (const point of points) {
    const entry = tvlPoint.safeParse(point);
    const day = entry.success ? dayOf(entry.data.date) : undefined;
    if (!entry.success || !day) {
      out.reject(`${what} point`, entry.success ? "not a time" : issue(entry.error));
      continue;
    }
    if (keep(day)) byDay.set(day, entry.data.totalLiquidityUSD ?? null);
  }
  return byDay;
}

/** Chain TVL keys that are not chains: totals of a kind, and a chain's parts ("Ethereum-staking"). */
const NOT_A_CHAIN = new Set(["borrowed", "staking", "pool2", "vesting", "doublecounted", "liquidstaking", "dcandlsoverlap", "offers", "treasury"]);

function parseProtocolHistories(raw: RawStore, out: ProviderOutput): void {
  const slugs = new Set<string>();
  for (const prefix of ["protocol/", "fees/", "revenue/"]) for (const k of raw.keys(P, prefix)) slugs.add(k.slice(prefix.length));
  for (const slug of [...slugs].sort()) {
    const entity = protocolKey(slug);
    const rows = new Map<string, { tvlUsd: number | null; feesUsd: number | null; revenueUsd: number | null }>();
    const rowOf = (day: string) => {
      let row = rows.get(day);
      if (!row) rows.set(day, (row = { tvlUsd: null, feesUsd: null, revenueUsd: null }));
      return row;
    };

    const detail = loadSaved(raw, out, `protocol/${slug}`);
    if (detail) {
      const parsed = protocolDetailSchema.safeParse(detail.body);
      if (!parsed.success) out.reject(`protocol/${slug}`, `not a protocol history (${issue(parsed.error)})`);
      else {
        const keep = after(detail.since);
        for (const [day, tvl] of tvlByDay(out, `protocol/${slug} tvl`, parsed.data.tvl, keep)) rowOf(day).tvlUsd = tvl;
        for (const [chain, series] of Object.entries(parsed.data.chainTvls ?? {})) {
          if (chain.includes("-") || NOT_A_CHAIN.has(chain.toLowerCase()) || !series.tvl) continue;
          for (const [day, tvl] of tvlByDay(out, `protocol/${slug} ${chain} tvl`, series.tvl, keep)) {
            out.row("protocol_chain", { entity_id: entity, date: day, chain_id: chainKey(chain), tvlUsd: tvl });
          }
        }
      }
    }
    for (const [prefix, column] of [["fees", "feesUsd"], ["revenue", "revenueUsd"]] as const) {
      const saved = loadSaved(raw, out, `${prefix}/${slug}`);
      if (!saved) continue;
      const chart = dailyChart(out, `${prefix}/${slug}`, saved.body, saved.since);
      for (const [day, value] of chart ?? []) rowOf(day)[column] = value;
    }
    for (const day of [...rows.keys()].sort()) {
      const row = rows.get(day)!;
      out.row("protocol", {
        entity_id: entity,
        date: day,
        tvlUsd: row.tvlUsd,
        feesUsd: row.feesUsd,
        revenueUsd: row.revenueUsd,
        incentivesUsd: null,
        earningsUsd: null,
        dailyUsers: null,
        transactions: null,
      });
    }
  }
}

function parsePools(raw: RawStore, out: ProviderOutput, known: Known): Map<string, Pool> {
  const pools = new Map<string, Pool>();
  const saved = loadSaved(raw, out, "pools");
  const list = saved && listOf(out, "pools", saved.body, "data");
  if (!saved || !list) return pools;
  for (const pool of records(out, list, poolSchema, (item) => `pool ${label(item, "pool", "symbol")}`)) pools.set(pool.pool, pool);
  const prominence = prominenceByRank([...pools.values()], (pool) => pool.tvlUsd);

  for (const pool of pools.values()) {
    const chain = chainKey(pool.chain);
    const relations = new Relations();
    relations.add("poolOf", protocolKey(pool.project));
    relations.add("deployedOn", chain);
    for (const token of pool.underlyingTokens ?? []) relations.add("poolToken", underlyingKey(pool.chain, token, known));
    out.entity({
      type: "Pool",
      keys: [poolKey(pool.pool)],
      name: `${pool.project} ${pool.symbol}`,
      attributes: attributes([
        ["poolKind", usable(pool.exposure)],
        ["schema:description", usable(pool.poolMeta)],
      ]),
      relations: relations.list,
      sameAs: [`https://defillama.com/yields/pool/${pool.pool}`],
      prominence: prominence.get(pool),
    });
    out.row("pool", poolRow(pool, saved.day, pool));
  }

  for (const rawKey of raw.keys(P, "pool/")) {
    const uuid = rawKey.slice("pool/".length);
    const chart = loadSaved(raw, out, rawKey);
    if (!chart) continue;
    const points = listOf(out, rawKey, chart.body, "data");
    if (!points) continue;
    const pool = pools.get(uuid);
    const keep = after(chart.since);
    const byDay = new Map<string, z.infer<typeof poolChartPoint>>();
    for (const point of records(out, points, poolChartPoint, () => `${rawKey} point`)) {
      const day = dayOf(point.timestamp);
      if (!day) out.reject(`${rawKey} point`, "not a time");
      // The list's row speaks for its day; the chart's last point is the same day, hourly.
      else if (keep(day) && !(pool && day === saved.day)) byDay.set(day, point);
    }
    for (const day of [...byDay.keys()].sort()) {
      const point = byDay.get(day)!;
      out.row("pool", poolRow({ ...point, pool: uuid, volumeUsd1d: null }, day, pool));
    }
  }
  return pools;
}

function poolRow(
  point: { pool: string; tvlUsd?: number | null; apy?: number | null; apyBase?: number | null; apyReward?: number | null; volumeUsd1d?: number | null },
  date: string,
  pool: Pool | undefined,
): SeriesRow {
  return {
    entity_id: poolKey(point.pool),
    date,
    protocol_id: pool ? protocolKey(pool.project) : null,
    chain_id: pool ? chainKey(pool.chain) : null,
    tvlUsd: point.tvlUsd ?? null,
    apy: point.apy ?? null,
    apyBase: point.apyBase ?? null,
    apyReward: point.apyReward ?? null,
    volumeUsd: point.volumeUsd1d ?? null,
  };
}

/** A pool's underlying token: the zero address is the chain's native coin. */
function underlyingKey(chain: string, token: string, known: Known): string | undefined {
  if (!token.trim()) return undefined;
  if (ZERO_ADDRESS.test(token.trim())) return known.nativeToken.get(chain);
  return addressKey(chainKey(chain), token);
}

function parseLending(raw: RawStore, out: ProviderOutput, known: Known, pools: Map<string, Pool>): void {
  const saved = loadSaved(raw, out, "lendBorrow");
  const list = saved && listOf(out, "lendBorrow", saved.body);
  if (!saved || !list) return;
  for (const market of records(out, list, lendBorrowSchema, (item) => `lending market ${label(item, "pool")}`)) {
    const pool = pools.get(market.pool);
    if (!pool) continue; // lendBorrow lists pools the pools list no longer has: nothing to join.
    const own = marketKey(market.pool);
    const asset = pool.underlyingTokens?.[0] ? underlyingKey(pool.chain, pool.underlyingTokens[0], known) : undefined;
    const relations = new Relations();
    relations.add("marketOf", protocolKey(pool.project));
    relations.add("marketAsset", asset);
    relations.add("deployedOn", chainKey(pool.chain));
    out.entity({ type: "LendingMarket", keys: [own], name: `${pool.project} ${pool.symbol}`, relations: relations.list, sameAs: [`https://defillama.com/yields/pool/${market.pool}`] });
    const supply = market.totalSupplyUsd ?? null;
    const borrow = market.totalBorrowUsd ?? null;
    const borrowApy = market.apyBaseBorrow == null && market.apyRewardBorrow == null ? null : (market.apyBaseBorrow ?? 0) + (market.apyRewardBorrow ?? 0);
    out.row("lending", {
      entity_id: own,
      date: saved.day,
      protocol_id: protocolKey(pool.project),
      asset_id: asset ?? null,
      totalSupplyUsd: supply,
      totalBorrowUsd: borrow,
      utilization: supply !== null && borrow !== null && supply > 0 ? borrow / supply : null,
      supplyApy: pool.apy ?? null,
      borrowApy,
      debtCeilingUsd: market.debtCeilingUsd ?? null,
    });
  }
}

const pegCurrency = (pegType: string) => pegType.replace(/^pegged/, "");

/** Circulating supply in USD: the USD amount of a dollar coin; another peg's amount at the coin's price when known. */
function circulatingUsd(circulating: Record<string, number | null | undefined> | null | undefined, pegType: string, price: number | null): number | null {
  const amount = circulating?.[pegType];
  if (typeof amount !== "number") return null;
  if (pegType === "peggedUSD") return amount;
  return price !== null ? amount * price : null;
}

const priceOf = (price: number | string | null | undefined): number | null => {
  const value = typeof price === "string" ? Number(price) : price;
  return typeof value === "number" && Number.isFinite(value) ? value : null;
};

function parseStablecoins(raw: RawStore, out: ProviderOutput): void {
  const coins = new Map<string, Stablecoin>();
  const saved = loadSaved(raw, out, "stablecoins");
  const list = saved && listOf(out, "stablecoins", saved.body, "peggedAssets");
  if (saved && list) {
    for (const coin of records(out, list, stablecoinSchema, (item) => `stablecoin ${label(item, "id", "name")}`)) coins.set(coin.id, coin);
    const prominence = prominenceByRank([...coins.values()], (coin) => circulatingUsd(coin.circulating, coin.pegType, priceOf(coin.price)));
    for (const coin of coins.values()) {
      const own = stablecoinKey(coin.id);
      const gecko = usable(coin.gecko_id);
      const relations = new Relations();
      for (const chain of coin.chains ?? []) relations.add("deployedOn", chainKey(chain));
      out.entity({
        type: "Token",
        labels: ["Stablecoin"],
        keys: [own, ...(gecko ? [geckoKey(gecko)] : [])],
        name: coin.name,
        symbol: coin.symbol,
        attributes: [["pegCurrency", pegCurrency(coin.pegType)]],
        relations: relations.list,
        sameAs: [`https://defillama.com/stablecoin/${llamaSlug(coin.name)}`],
        prominence: prominence.get(coin),
      });
      const price = priceOf(coin.price);
      out.row("stablecoin", { entity_id: own, date: saved.day, price, circulatingUsd: circulatingUsd(coin.circulating, coin.pegType, price), pegCurrency: pegCurrency(coin.pegType) });
    }
  }

  for (const rawKey of raw.keys(P, "stablecoin/")) {
    const id = rawKey.slice("stablecoin/".length);
    const history = loadSaved(raw, out, rawKey);
    if (!history) continue;
    const points = listOf(out, rawKey, history.body, "tokens");
    if (!points) continue;
    const bodyPeg = record(history.body).pegType;
    const pegType = typeof bodyPeg === "string" ? bodyPeg : coins.get(id)?.pegType;
    if (!pegType) {
      out.reject(rawKey, "no pegType");
      continue;
    }
    const keep = after(history.since);
    const byDay = new Map<string, z.infer<typeof stablecoinPoint>>();
    for (const point of records(out, points, stablecoinPoint, () => `${rawKey} point`)) {
      const day = dayOf(point.date);
      if (!day) out.reject(`${rawKey} point`, "not a time");
      else if (keep(day) && !(saved && coins.has(id) && day === saved.day)) byDay.set(day, point);
    }
    for (const day of [...byDay.keys()].sort()) {
      // Histories have no price: a day's price is unknown, and so is the USD value of a non-dollar peg.
      out.row("stablecoin", { entity_id: stablecoinKey(id), date: day, price: null, circulatingUsd: circulatingUsd(byDay.get(day)!.circulating, pegType, null), pegCurrency: pegCurrency(pegType) });
    }
  }
}

function parseRaises(raw: RawStore, out: ProviderOutput, known: Known): void {
  const saved = loadSaved(raw, out, "raises");
  const list = saved && listOf(out, "raises", saved.body, "raises");
  if (!list) return;
  const investors = new Set<string>();
  for (const raise of records(out, list, raiseSchema, (item) => `raise ${label(item, "name")}`)) {
    const day = dayOf(raise.date);
    if (!day) {
      out.reject(`raise ${JSON.stringify(raise.name)}`, "date: not a time");
      continue;
    }
    const round = usable(raise.round);
    // defillamaId holds a protocol id ("2198") or a parent id ("parent#uniswap"), not a slug.
    const id = raise.defillamaId === null || raise.defillamaId === undefined ? undefined : String(raise.defillamaId);
    const slug = id ? known.slugById.get(id) : undefined;
    const relations = new Relations();
    relations.add("raisedBy", slug && protocolKey(slug));
    const lead = new Set((raise.leadInvestors ?? []).map((name) => name.trim()).filter(Boolean));
    for (const name of lead) relations.add("leadInvestor", investorKey(name));
    for (const name of (raise.otherInvestors ?? []).map((n) => n.trim()).filter(Boolean)) if (!lead.has(name)) relations.add("investor", investorKey(name));
    for (const name of [...lead, ...(raise.otherInvestors ?? []).map((n) => n.trim()).filter(Boolean)]) {
      if (investors.has(investorKey(name))) continue;
      investors.add(investorKey(name));
      out.entity({ type: "Organization", labels: ["VentureFund"], keys: [investorKey(name)], name });
    }
    out.entity({
      type: "FundingRound",
      keys: [key("FundingRound", P, `${id ?? raise.name}-${day}-${round ?? "round"}`)],
      name: `${raise.name} ${round ?? "funding round"}`,
      attributes: attributes([
        ["roundStage", round],
        // DefiLlama gives amounts in millions of USD.
        ["amountUsd", raise.amount === null || raise.amount === undefined ? undefined : Math.round(raise.amount * 1e6)],
        ["announcedOn", day],
        ["schema:url", usable(raise.source)],
      ]),
      relations: relations.list,
    });
  }
}

/** DefiLlama's unlock categories as allocation groups. */
const ALLOCATION_GROUP: Record<string, string> = {
  insiders: "team",
  privatesale: "investors",
  publicsale: "investors",
  airdrop: "ecosystem",
  farming: "ecosystem",
  liquidity: "ecosystem",
  noncirculating: "treasury",
};

function parseEmissions(raw: RawStore, out: ProviderOutput): void {
  const saved = loadSaved(raw, out, "emissions");
  const list = saved && listOf(out, "emissions", saved.body);
  if (!saved || !list) return;
  for (const emission of records(out, list, emissionSchema, (item) => `emission ${label(item, "token", "name")}`)) {
    const gecko = /^coingecko:(.+)$/.exec(emission.token)?.[1] ?? usable(emission.gecko_id);
    if (!gecko) {
      out.reject(`emission ${JSON.stringify(emission.token)}`, "token is not coingecko:<id>");
      continue;
    }
    const token = geckoKey(gecko);
    const schedule = key("VestingSchedule", P, gecko);
    // Several events of a day and group (cliffs of two tranches) are one row.
    const byDayGroup = new Map<string, { day: string; group: string | null; amount: number }>();
    for (const event of emission.events ?? []) {
      const day = dayOf(event.timestamp);
      if (!day) {
        out.reject(`emission ${JSON.stringify(emission.token)} event`, "timestamp: not a time");
        continue;
      }
      const group = ALLOCATION_GROUP[(event.category ?? "").toLowerCase()] ?? null;
      const at = `${day} ${group}`;
      const entry = byDayGroup.get(at) ?? { day, group, amount: 0 };
      entry.amount += event.noOfTokens.reduce((sum, n) => sum + n, 0);
      byDayGroup.set(at, entry);
    }
    const days = [...byDayGroup.values()].map((entry) => entry.day).sort();
    out.entity({
      type: "VestingSchedule",
      keys: [schedule],
      name: `${emission.name} token unlocks`,
      attributes: attributes([
        ["vestingStart", days[0]],
        ["vestingEnd", days.at(-1)],
      ]),
      relations: [["vestingOf", token]],
      sameAs: [`https://defillama.com/unlocks/${llamaSlug(emission.name)}`],
    });
    for (const entry of [...byDayGroup.values()].sort((a, b) => (a.day === b.day ? String(a.group).localeCompare(String(b.group)) : a.day < b.day ? -1 : 1))) {
      const future = entry.day > saved.day;
      out.row("unlocks", {
        entity_id: token,
        date: entry.day,
        schedule_id: schedule,
        allocation_group: entry.group,
        amount: entry.amount,
        // The price and circulating supply are today's: they speak for future events only.
        valueUsd: future && emission.tPrice != null ? entry.amount * emission.tPrice : null,
        shareOfSupply: emission.maxSupply ? entry.amount / emission.maxSupply : null,
        shareOfCirculating: future && emission.circSupply ? entry.amount / emission.circSupply : null,
      });
    }
  }
}

function parseAll(raw: RawStore, out: ProviderOutput): void {
  const known: Known = { chainByPrefix: new Map(), nativeToken: new Map(), slugById: new Map() };
  const steps: [string, () => void][] = [
    ["chains", () => parseChains(raw, out, known)],
    ["protocols", () => parseProtocols(raw, out, known)],
    ["protocol histories", () => parseProtocolHistories(raw, out)],
    ["pools and lending markets", () => parseLending(raw, out, known, parsePools(raw, out, known))],
    ["stablecoins", () => parseStablecoins(raw, out)],
    ["raises", () => parseRaises(raw, out, known)],
    ["emissions", () => parseEmissions(raw, out)],
  ];
  // Parse never throws: a step that fails on something unforeseen is reported and the others go on.
  for (const [what, step] of steps) {
    try {
      step();
    } catch (error) {
      out.reject(what, `parse failed: ${(error as Error).message}`);
    }
  }
}

export const defillama: Connector = {
  id: P,
  source: {
    id: P,
    name: "DefiLlama",
    kind: "provider",
    synthetic: false,
    license: "DefiLlama API terms of use",
    attribution: "DeFi data from DefiLlama (https://defillama.com).",
    homepage: "https://defillama.com",
  },
  fetch: fetchAll,
  parse: parseAll,
};

