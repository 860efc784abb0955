/**
 * @module ingest/providers/defillama/parse-protocols
 * Chains, protocols (parents, forks, tokens, governance) and their TVL, fees and revenue histories.
 */
import type { RawStore } from "../../raw-store.ts";
import { type ProviderOutput, addressKey, key } from "../../records.ts";
import { chainKey, geckoKey, llamaSlug, P, protocolKey } from "./keys.ts";
import { after, attributes, CHAIN_PREFIX_ALIASES, type Known, label, listOf, loadSaved, pointsByDay, prominenceByRank, Relations, usable } from "./parse-common.ts";
import { parseEach, zodIssue } from "../../connector.ts";
import { chainSchema, chartPoint, feesSchema, type Parent, parentSchema, protocolDetailSchema, protocolSchema, tvlPoint } from "./schemas.ts";

export function parseChains(raw: RawStore, out: ProviderOutput, known: Known): void {
  const saved = loadSaved(raw, out, "chains");
  if (!saved) return;
  const list = listOf(out, "chains", saved.body);
  if (!list) return;
  const chains = [...parseEach(list, chainSchema, (item, issue) => out.reject(`chain ${label(item, "name")}`, issue))];
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

export function parseProtocols(raw: RawStore, out: ProviderOutput, known: Known): void {
  const saved = loadSaved(raw, out, "protocols");
  const list = saved && listOf(out, "protocols", saved.body);
  const protocols = list ? [...parseEach(list, protocolSchema, (item, issue) => out.reject(`protocol ${label(item, "slug", "name", "id")}`, issue))] : [];

  const parentsSaved = loadSaved(raw, out, "parents");
  const parentList = parentsSaved && listOf(out, "parents", parentsSaved.body, "parentProtocols");
  const parents = parentList ? [...parseEach(parentList, parentSchema, (item, issue) => out.reject(`parent protocol ${label(item, "id", "name")}`, issue))] : [];
  if (!parentsSaved) {
    // Without the parents' list a child's parent link points at no claim: say so, per child.
    for (const p of protocols) {
      if (p.parentProtocol) out.leaveOut(`protocol ${p.slug}`, "parent protocol unresolved: no parent list (lite/protocols2) in this run");
    }
  }

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
  for (const p of protocols) if (p.parentProtocol) known.familyOf.set(p.slug, slugOfParent(p.parentProtocol));

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

  /**
   * A protocol or a parent protocol: chains, what `lineage` adds (forks, parent), governance token
   * (by gecko id and address), Snapshot spaces, and the token's issuer (the top of the family).
   */
  const protocolEntity = (p: Parent, slug: string, issuer: string, rank: number | undefined, lineage?: (relations: Relations) => void) => {
    const relations = new Relations();
    for (const chain of p.chains ?? []) relations.add("deployedOn", chainKey(chain));
    lineage?.(relations);
    const gecko = usable(p.gecko_id);
    const address = tokenAddressKey(p.address, known);
    const token = (gecko && geckoKey(gecko)) ?? address;
    if (token) known.tokenOf.set(slug, token);
    relations.add("governanceToken", gecko && geckoKey(gecko));
    relations.add("governanceToken", address);
    for (const space of governanceSpaces(p.governanceID)) relations.add("governedBy", space);
    issuedBy(gecko && geckoKey(gecko), issuer);
    issuedBy(address, issuer);
    out.entity({
      type: "Protocol",
      keys: [protocolKey(slug)],
      name: p.name,
      symbol: usable(p.symbol),
      attributes: attributes([
        ["category", usable(p.category)],
        ["schema:url", usable(p.url)],
        ["schema:description", usable(p.description)],
      ]),
      relations: relations.list,
      sameAs: [`https://defillama.com/protocol/${slug}`],
      prominence: rank,
    });
  };

  for (const parent of parents) {
    const slug = slugOfParent(parent.id);
    protocolEntity(parent, slug, protocolKey(slug), parentProminence.get(slug) ?? 0);
  }
  for (const p of protocols) {
    const parent = p.parentProtocol ? protocolKey(slugOfParent(p.parentProtocol)) : undefined;
    protocolEntity(p, p.slug, parent ?? protocolKey(p.slug), prominence.get(p), (relations) => {
      for (const name of p.forkedFrom ?? []) {
        const slug = slugByName.get(name.toLowerCase());
        if (slug && slug !== p.slug) relations.add("forkOf", protocolKey(slug));
      }
      relations.add("parentProtocol", parent);
    });
  }
}

/** `{totalDataChart: [[unixSeconds, value], ...]}` as value by day, days after `since` only. */
function dailyChart(out: ProviderOutput, what: string, body: unknown, since: string | null): [string, number | null][] | undefined {
  const parsed = feesSchema.safeParse(body);
  if (!parsed.success) {
    out.reject(what, `answer has no totalDataChart (${zodIssue(parsed.error)})`);
    return undefined;
  }
  return pointsByDay(out, what, parsed.data.totalDataChart, chartPoint, (p) => p[0], after(since)).map(([day, p]) => [day, p[1] ?? null]);
}

/** `[{date, totalLiquidityUSD}]` as TVL by day. */
function tvlByDay(out: ProviderOutput, what: string, points: unknown[], keep: (day: string) => boolean): [string, number | null][] {
  return pointsByDay(out, what, points, tvlPoint, (p) => p.date, keep).map(([day, p]) => [day, p.totalLiquidityUSD ?? null]);
}

/** Chain TVL keys that are not chains: totals of a kind, and a chain's parts ("Ethereum-staking"). */
const NOT_A_CHAIN = new Set(["borrowed", "staking", "pool2", "vesting", "doublecounted", "liquidstaking", "dcandlsoverlap", "offers", "treasury"]);

export function parseProtocolHistories(raw: RawStore, out: ProviderOutput): void {
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
      if (!parsed.success) out.reject(`protocol/${slug}`, `not a protocol history (${zodIssue(parsed.error)})`);
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
