/**
 * @module demo/synthetic/pools
 * Liquidity and yield pools of pool-running protocols, on the protocols' own chains, holding tokens
 * that live on that chain (popular ones more often); and lending markets of lending protocols.
 */
import { categorySpec } from "./categories.ts";
import { type GenContext, type ProtocolInfo, isGenerated } from "./context.ts";

const FEE_TIERS = [0.01, 0.05, 0.3, 1];

export function generatePools(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  // Synthetic protocols only: a pool of a real protocol would be a made-up fact about it.
  const hosts = ctx.protocols.filter((p) => isGenerated(ctx, p.id) && categorySpec(p.category).pools.length > 0 && p.chains.length > 0);
  if (hosts.length === 0) return;
  // Bigger protocols run more pools, sub-linearly.
  const host = rng.sampler(hosts.map((p) => [p, Math.sqrt(p.tvl)] as const));
  const poolCountBy = new Map<string, number>();
  for (const p of hosts) poolCountBy.set(p.id, 0);
  const drawn: ProtocolInfo[] = [];
  for (let i = 0; i < ctx.plan.pools; i++) drawn.push(host());
  for (const p of drawn) poolCountBy.set(p.id, poolCountBy.get(p.id)! + 1);

  for (const protocol of drawn) {
    const spec = categorySpec(protocol.category);
    const chainId = rng.pick(protocol.chains);
    const chain = ctx.chainById.get(chainId)!;
    const kind = rng.pick(spec.pools);
    const tokens = poolTokens(ctx, chainId, kind, protocol);
    if (tokens.length === 0) continue;
    const symbols = tokens.map((t) => world.entities.get(t)!.symbol ?? "?");
    const fee = kind === "amm" || kind === "concentrated" ? rng.pick(FEE_TIERS) : undefined;
    let name = `${symbols.join("-")}${fee !== undefined ? ` ${fee}%` : ` ${kind}`} · ${protocol.name} · ${chain.name}`;
    for (let n = 2; !world.nameIsFree("Pool", name); n++) name = `${name.replace(/ #\d+$/, "")} #${n}`;
    const id = world.allocateId("Pool", name);
    const share = poolCountBy.get(protocol.id)!;
    const tvl = Math.max(1e3, (protocol.tvl / share) * rng.pareto(0.2, 1.1));
    world.addEntity({ id, type: "Pool", labels: ["Pool"], name, source, prominence: Math.min(0.9, Math.log10(tvl) / 11) });
    world.rel(id, "poolOf", protocol.id, source);
    world.rel(id, "deployedOn", chainId, source);
    for (const token of tokens) world.rel(id, "poolToken", token, source);
    world.attr(id, "poolKind", kind, source);
    if (fee !== undefined) world.attr(id, "feeTier", fee, source);
    ctx.pools.push({ id, protocol: protocol.id, chain: chainId, tokens, kind, tvl });
  }
}

function poolTokens(ctx: GenContext, chainId: string, kind: string, protocol: ProtocolInfo): string[] {
  const { rng } = ctx;
  const onChain = ctx.tokensByChain.get(chainId) ?? [];
  if (onChain.length === 0) return [];
  const popular = () => onChain[rng.zipfIndex(onChain.length, 1.2)]!;
  switch (kind) {
    case "stable": {
      const stables = stablecoinsOn(ctx, chainId);
      return stables.length >= 2 ? rng.sample(stables, rng.chance(0.7) ? 2 : Math.min(3, stables.length)) : distinct(popular, 2);
    }
    case "staking": {
      const native = ctx.chainById.get(chainId)?.nativeToken;
      return [protocol.token && rng.chance(0.4) ? protocol.token : (native ?? popular())];
    }
    case "vault":
    case "farm":
      return distinct(popular, rng.chance(0.6) ? 1 : 2);
    default:
      return distinct(popular, 2);
  }
}

const stableCache = new WeakMap<GenContext, Map<string, string[]>>();

/** The dozen largest stablecoins on a chain (tokensByChain is ordered by market cap). */
function stablecoinsOn(ctx: GenContext, chainId: string): string[] {
  let byChain = stableCache.get(ctx);
  if (!byChain) stableCache.set(ctx, (byChain = new Map()));
  let stables = byChain.get(chainId);
  if (!stables) {
    const isStable = new Set(ctx.stablecoins);
    stables = [];
    for (const token of ctx.tokensByChain.get(chainId) ?? []) {
      if (isStable.has(token)) stables.push(token);
      if (stables.length === 12) break;
    }
    byChain.set(chainId, stables);
  }
  return stables;
}

function distinct(draw: () => string, k: number): string[] {
  const chosen = new Set<string>();
  for (let tries = 0; chosen.size < k && tries < k * 10; tries++) chosen.add(draw());
  return [...chosen];
}

export function generateLendingMarkets(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  for (const protocol of ctx.protocols) {
    if (!categorySpec(protocol.category).lending || !isGenerated(ctx, protocol.id)) continue;
    for (const chainId of protocol.chains.slice(0, 6)) {
      const onChain = ctx.tokensByChain.get(chainId) ?? [];
      if (onChain.length === 0) continue;
      const assets = new Set<string>();
      const want = rng.int(2, 10);
      for (let tries = 0; assets.size < Math.min(want, onChain.length) && tries < want * 10; tries++) {
        assets.add(onChain[rng.zipfIndex(Math.min(onChain.length, 60), 1.1)]!);
      }
      for (const asset of assets) {
        const name = `${protocol.name} ${ctx.chainById.get(chainId)!.name} ${world.entities.get(asset)!.symbol}`;
        if (!world.nameIsFree("LendingMarket", name)) continue;
        const id = world.allocateId("LendingMarket", name);
        world.addEntity({ id, type: "LendingMarket", labels: ["LendingMarket"], name, source, prominence: 0.3 });
        world.rel(id, "marketOf", protocol.id, source);
        world.rel(id, "marketAsset", asset, source);
        world.rel(id, "deployedOn", chainId, source);
        ctx.markets.push({ id, protocol: protocol.id, chain: chainId, asset, supply: (protocol.tvl / assets.size) * rng.pareto(0.3, 1.2) });
      }
    }
  }
}
