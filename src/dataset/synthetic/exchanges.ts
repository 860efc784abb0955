/**
 * @module dataset/synthetic/exchanges
 * Synthetic exchanges beside the real ones, token listings (large tokens on many venues, the long
 * tail on one or two or none; never a real token on a real venue) and market makers for the larger
 * tokens.
 */
import { type GenContext, isGenerated } from "./context.ts";
import { COUNTRIES } from "./names.ts";

export function generateExchanges(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  const target = Math.max(0, ctx.plan.exchanges - ctx.exchanges.length);
  // Real exchanges (from ccxt) are the big venues: they list the most.
  for (const exchange of ctx.exchanges) exchange.weight = rng.pareto(3, 1.2);
  for (let i = 0; i < target; i++) {
    const draw = () => {
      const r = ctx.reserved.root(rng);
      return [r, `${r}${rng.pick([" Exchange", "Ex", " Global", " Pro", " Markets", "Bit"])}`] as const;
    };
    let [root, name] = draw();
    while (!world.nameIsFree("Exchange", name) || ctx.reserved.has(name)) [root, name] = draw();
    const centralized = rng.chance(0.85);
    const id = world.allocateId("Exchange", name);
    world.addEntity({
      id,
      type: "Exchange",
      labels: ["Exchange", centralized ? "CentralizedExchange" : "DecentralizedExchange"],
      name,
      source,
      prominence: 0.15,
    });
    world.attr(id, "country", rng.pick(COUNTRIES), source);
    world.attr(id, "foundedYear", rng.int(2013, 2025), source);
    world.attr(id, "schema:url", `https://${root.toLowerCase()}.example`, source);
    ctx.exchanges.push({ id, centralized, weight: rng.pareto(0.5, 1.5) });
  }
  addListings(ctx);
}

function addListings(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  const venue = rng.sampler(ctx.exchanges.map((e) => [e.id, e.weight] as const));
  const ranked = [...ctx.tokens].sort((a, b) => b.marketCap - a.marketCap);
  ranked.forEach((token, rank) => {
    // A synthetic listing involves a synthetic token or venue: which real venue lists a real token is not made up.
    const real = !isGenerated(ctx, token.id);
    let count: number;
    if (rank < 50) count = rng.int(15, 60);
    else if (rank < 1000) count = rng.int(3, 15);
    else if (rank < 5000) count = rng.int(1, 5);
    else count = rng.chance(0.35) ? rng.int(1, 2) : 0;
    const listed = new Set<string>();
    for (let tries = 0; listed.size < Math.min(count, ctx.exchanges.length) && tries < count * 5; tries++) listed.add(venue());
    for (const exchange of listed) if (!real || isGenerated(ctx, exchange)) world.rel(token.id, "listedOn", exchange, source);
    if (rank < 2000 && ctx.marketMakers.length > 0) {
      for (const maker of rng.sample(ctx.marketMakers, rng.int(1, 3))) world.rel(maker, "marketMakerFor", token.id, source);
    }
  });
}
