/**
 * @module demo/synthetic/exchanges
 * Synthetic exchanges beside the real ones, token listings (large tokens on many venues, the long
 * tail on one or two or none; never a real token on a real venue) and market makers for the larger
 * tokens.
 */
import { Rng } from "../../rng.ts";
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
  const generatedRank = new Map(ranked.filter((t) => isGenerated(ctx, t.id)).map((t, i) => [t.id, i]));
  ranked.forEach((token, rank) => {
    // A synthetic listing involves a synthetic token or venue: which real venue lists a real token is not made up.
    const real = !isGenerated(ctx, token.id);
    const count = venueCount(rng, rank);
    const listed = new Set<string>();
    for (let tries = 0; listed.size < Math.min(count, ctx.exchanges.length) && tries < count * 5; tries++) listed.add(venue());
    if (!real) fitVenues(listed, generatedRank.get(token.id)!, ctx.exchanges, token.id);
    for (const exchange of listed) if (!real || isGenerated(ctx, exchange)) world.rel(token.id, "listedOn", exchange, source);
    if (rank < 2000 && ctx.marketMakers.length > 0) {
      for (const maker of rng.sample(ctx.marketMakers, rng.int(1, 3))) world.rel(maker, "marketMakerFor", token.id, source);
    }
  });
}

/** How many venues list the token of this market-cap rank: the large on many, the long tail on one or two or none. */
function venueCount(rng: Rng, rank: number): number {
  if (rank < 50) return rng.int(15, 60);
  if (rank < 1000) return rng.int(3, 15);
  if (rank < 5000) return rng.int(1, 5);
  return rng.chance(0.35) ? rng.int(1, 2) : 0;
}

/**
 * A generated token's venues, fitted to its rank among the generated tokens. Ranked among every
 * token, the 5,000 real ones (listed on no real venue: that is not made up) came first, so every
 * generated token but seven drew the long tail's one or two venues, a $3.7B token as well; and the
 * venues' heavy-tailed weights made the draws above stop short of even that count. On the demo's
 * series three in four listed tokens then read as an exchange-liquidity risk, drowning the three
 * planted. The count and any missing venues (by weight, no repeats) come from a stream of the
 * token's own (its id comes from the seeded world), so the world's stream is drawn as before and
 * nothing generated after the listings moves; a count below the draws keeps the first drawn.
 */
function fitVenues(listed: Set<string>, rank: number, exchanges: GenContext["exchanges"], token: string): void {
  const own = new Rng(`listings:${token}`);
  const want = Math.min(venueCount(own, rank), exchanges.length);
  for (const id of [...listed].slice(want)) listed.delete(id);
  if (listed.size >= want) return;
  // Weighted sampling without replacement (Efraimidis-Spirakis): the smallest exponential keys.
  const keyed = exchanges.filter((e) => !listed.has(e.id)).map((e) => [e.id, -Math.log(1 - own.next()) / e.weight] as const);
  keyed.sort((a, b) => a[1] - b[1]);
  for (const [id] of keyed.slice(0, want - listed.size)) listed.add(id);
}
