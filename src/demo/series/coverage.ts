/**
 * @module demo/series/coverage
 * Which entities get daily series: generated entities only. A real entity (a reference chain,
 * token, exchange, Aave and its markets) gets no made-up figures: its series come from an ingest
 * or not at all. Every synthetic protocol, lending market and stablecoin is covered; tokens and
 * pools are many, so the largest ones are, plus every token something else depends on (governance
 * tokens, vesting tokens, treasury holdings). Also reads the graph facts the series must agree
 * with: listings per token, and each protocol's governance token.
 */
import { type GenContext, type MarketInfo, type PoolInfo, type ProtocolInfo, type TokenInfo, isGenerated } from "../synthetic/context.ts";
import { type VestingToken, vestingTokens } from "./unlocks.ts";

export interface Coverage {
  tokens: TokenInfo[];
  /** Rank by market cap among the synthetic tokens (0 = largest). */
  rank: Map<string, number>;
  vesting: Map<string, VestingToken>;
  protocols: ProtocolInfo[];
  pools: PoolInfo[];
  markets: MarketInfo[];
  /** Exchanges each covered token is listed on (from listedOn facts). */
  listings: Map<string, string[]>;
  /** Sector (category of its protocol) of each protocol token. */
  sectorOf: Map<string, string>;
}

export function selectCoverage(ctx: GenContext, asOf: string): Coverage {
  const generated = <T extends { id: string }>(list: T[]) => list.filter((x) => isGenerated(ctx, x.id));
  const byCap = generated(ctx.tokens).sort((a, b) => b.marketCap - a.marketCap);
  const rank = new Map(byCap.map((t, i) => [t.id, i]));
  const vesting = vestingTokens(ctx, asOf);
  const protocols = generated(ctx.protocols);
  const protocolTokens = new Set(protocols.map((p) => p.token).filter((t): t is string => Boolean(t)));
  const top = Math.max(300, Math.round(ctx.plan.tokens * 0.08));
  const tokens = byCap.filter((t, i) => i < top || t.stablecoin || vesting.has(t.id) || protocolTokens.has(t.id));
  const covered = new Set(tokens.map((t) => t.id));

  const listings = new Map<string, string[]>();
  const { subject, predicate, object } = ctx.world.facts;
  for (let i = 0; i < subject.length; i++) {
    if (predicate[i] !== "listedOn" || !covered.has(subject[i]!)) continue;
    const list = listings.get(subject[i]!) ?? [];
    list.push(object[i]!);
    listings.set(subject[i]!, list);
  }
  const sectorOf = new Map<string, string>();
  for (const protocol of protocols) if (protocol.token && !sectorOf.has(protocol.token)) sectorOf.set(protocol.token, protocol.category);

  const pools = generated(ctx.pools).sort((a, b) => b.tvl - a.tvl).slice(0, Math.max(200, Math.round(ctx.plan.pools * 0.07)));
  return { tokens, rank, vesting, protocols, pools, markets: generated(ctx.markets), listings, sectorOf };
}
