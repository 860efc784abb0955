/**
 * @module demo/synthetic/context
 * What the generator's steps share: the world being written, the random source, the plan, and the
 * registries one step leaves for the next (protocols for pools, funds for rounds, ...). The latent
 * figures here (sizes, communities) shape the graph now and the time-series later; they are never
 * written to the graph as facts.
 */
import type { Rng } from "../../rng.ts";
import type { ScalePlan } from "../scale.ts";
import type { World } from "../../model/world.ts";
import type { ReservedNames } from "./names.ts";

export const SYNTHETIC_SOURCE = "synthetic-demo";

export interface ChainInfo {
  id: string;
  key: string;
  name: string;
  family: string;
  evm: boolean;
  /** How likely a protocol or token is to deploy here. */
  weight: number;
  nativeToken?: string;
}

export interface ProtocolInfo {
  id: string;
  name: string;
  root: string;
  category: string;
  chains: string[];
  /** Latent total value locked in USD (of a real protocol: a size hint for synthetic links, never a figure). */
  tvl: number;
  /** Co-investment community the protocol's investors come from. */
  community: number;
  company?: string;
  dao?: string;
  token?: string;
  founded: number;
}

export interface TokenInfo {
  id: string;
  symbol: string;
  chains: string[];
  /** Latent market cap in USD (of a real token: a popularity hint for synthetic links, never a figure). */
  marketCap: number;
  stablecoin: boolean;
  protocol?: string;
}

export interface PoolInfo {
  id: string;
  protocol: string;
  chain: string;
  tokens: string[];
  kind: string;
  /** Latent total value locked in USD. */
  tvl: number;
}

export interface MarketInfo {
  id: string;
  protocol: string;
  chain: string;
  asset: string;
  /** Latent supplied value in USD. */
  supply: number;
}

export interface VestingInfo {
  id: string;
  token: string;
  group: "team" | "investors" | "ecosystem" | "treasury";
  /** Share of the token's maximum supply (0..1). */
  share: number;
  start: string;
  cliff: string;
  end: string;
  frequency: "monthly" | "quarterly";
}

export interface InsiderInfo {
  token: string;
  /** Person or organization behind the wallet. */
  holder: string;
  role: "team" | "investor";
  wallet: string;
}

export interface ProposalInfo {
  id: string;
  /** The DAO or protocol that votes. */
  owner: string;
  token: string;
  announced: string;
  status: "active" | "passed" | "failed" | "cancelled";
}

export interface FundInfo {
  id: string;
  communities: number[];
  /** Preferential-attachment weight: big funds join many rounds. */
  weight: number;
}

export interface GenContext {
  world: World;
  rng: Rng;
  plan: ScalePlan;
  source: string;
  /** Names and tickers of real entities, which synthetic ones never take. */
  reserved: ReservedNames;
  /** The day the world is generated "as of" (UTC midnight). */
  asOf: Date;
  communities: number;
  chains: ChainInfo[];
  chainById: Map<string, ChainInfo>;
  chainByKey: Map<string, ChainInfo>;
  protocols: ProtocolInfo[];
  tokens: TokenInfo[];
  /** Token ids per chain id, most valuable first once `rankTokens` has run. */
  tokensByChain: Map<string, string[]>;
  stablecoins: string[];
  pools: PoolInfo[];
  markets: MarketInfo[];
  funds: FundInfo[];
  companies: string[];
  marketMakers: string[];
  exchanges: { id: string; centralized: boolean; weight: number }[];
  persons: string[];
  /** Founders and team members by protocol id. */
  teams: Map<string, string[]>;
  /** Investors (funds and angels) by protocol id, lead investors first. */
  investors: Map<string, string[]>;
  schedules: VestingInfo[];
  insiders: InsiderInfo[];
  proposals: ProposalInfo[];
  /** Known wallet (CAIP-10) of a person or organization. */
  wallets: Map<string, string>;
  /** Developers per community, for shared contributors across projects. */
  developersByCommunity: Map<number, string[]>;
}

/**
 * Whether an entity is one the generator made. Only these carry made-up figures (series, plants,
 * funding, governance): a real entity gets synthetic links from synthetic entities at most.
 */
export function isGenerated(ctx: GenContext, id: string): boolean {
  return ctx.world.entities.get(id)?.source === ctx.source;
}

/** Days before `asOf`, as an ISO date. */
export function daysAgo(ctx: GenContext, days: number): string {
  return new Date(ctx.asOf.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

/** A random EVM-style address, deterministic from the generator. */
export function address(ctx: GenContext): string {
  return `0x${ctx.rng.hex(20)}`;
}

/** Ethereum mainnet: where wallets of funds and insiders are recorded. */
export function ethereum(ctx: GenContext): ChainInfo {
  const chain = ctx.chainByKey.get("eip155:1") ?? ctx.chains[0];
  if (!chain) throw new Error("the world has no chains");
  return chain;
}

/** CAIP-10 account id of an address on a chain. */
export function caip10(chain: ChainInfo, addr: string): string {
  return `${chain.key}:${addr}`;
}

const chainSamplers = new WeakMap<GenContext, () => ChainInfo>();

/** Picks `k` distinct chains by weight. */
export function pickChains(ctx: GenContext, k: number): ChainInfo[] {
  let draw = chainSamplers.get(ctx);
  if (!draw) chainSamplers.set(ctx, (draw = ctx.rng.sampler(ctx.chains.map((c) => [c, c.weight] as const))));
  const chosen = new Set<ChainInfo>();
  for (let tries = 0; chosen.size < Math.min(k, ctx.chains.length) && tries < k * 20; tries++) chosen.add(draw());
  return [...chosen];
}
