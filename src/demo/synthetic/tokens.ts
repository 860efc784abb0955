/**
 * @module demo/synthetic/tokens
 * The long tail of tokens (memes, games, AI, utility) on real chains, with latent market caps that
 * follow a power law, and fiat-backed stablecoins of synthetic issuers (the demo's stablecoin series
 * and depegs are theirs: real stablecoins get no made-up figures). Then every token is ranked so
 * later steps pick popular tokens more often.
 */
import { type GenContext, address, caip10, pickChains } from "./context.ts";
import { TOKEN_NOUNS } from "./names.ts";

export function generateTokens(ctx: GenContext): void {
  const { world, rng, source, reserved } = ctx;
  generateStablecoins(ctx);
  const target = Math.max(0, ctx.plan.tokens - ctx.tokens.length);
  for (let i = 0; i < target; i++) {
    const draw = () => `${reserved.root(rng)} ${rng.pick(TOKEN_NOUNS)}`;
    let name = draw();
    while (!world.nameIsFree("Token", name) || reserved.has(name)) name = draw();
    const symbol = reserved.ticker(name, rng);
    const id = world.allocateId("Token", `${symbol}-${name}`);
    const marketCap = rng.pareto(2e4, 0.8);
    world.addEntity({ id, type: "Token", labels: ["Token"], name, symbol, source, prominence: Math.min(0.8, Math.log10(marketCap) / 12) });
    const chains = pickChains(ctx, rng.chance(0.93) ? 1 : rng.int(2, 4));
    for (const chain of chains) {
      world.rel(id, "deployedOn", chain.id, source);
      // Non-EVM chains use other address formats; the demo writes EVM-style ones only where they fit.
      if (chain.evm) world.attr(id, "contractAddress", caip10(chain, address(ctx)), source);
    }
    ctx.tokens.push({ id, symbol, chains: chains.map((c) => c.id), marketCap, stablecoin: false });
  }
  rankTokens(ctx);
}

/** One stablecoin in this many tokens (at least MIN_STABLECOINS), one in five pegged to the euro. */
const STABLECOIN_SHARE = 0.0015;
const MIN_STABLECOINS = 12;

/**
 * Fiat-backed stablecoins, each issued by a synthetic company of its own, sized like the large
 * stablecoins (hundreds of millions circulating), on one to four chains.
 */
function generateStablecoins(ctx: GenContext): void {
  const { world, rng, source, reserved } = ctx;
  const count = Math.max(MIN_STABLECOINS, Math.round(ctx.plan.tokens * STABLECOIN_SHARE));
  for (let i = 0; i < count; i++) {
    const euro = rng.chance(0.2);
    let root = reserved.root(rng);
    const nameOf = (r: string) => `${r} ${euro ? "Euro" : rng.pick(["Dollar", "USD"])}`;
    let name = nameOf(root);
    while (!world.nameIsFree("Token", name) || reserved.has(name)) name = nameOf((root = reserved.root(rng)));
    const symbol = `${reserved.ticker(root, rng).slice(0, 3)}${euro ? "EUR" : "USD"}`;
    if (reserved.has(symbol)) continue;
    const issuerName = `${root} Trust`;
    if (!world.nameIsFree("Organization", issuerName) || reserved.has(issuerName)) continue;
    const issuer = world.allocateId("Organization", issuerName);
    world.addEntity({ id: issuer, type: "Organization", labels: ["Organization", "Company"], name: issuerName, source, prominence: 0.3 });
    world.attr(issuer, "category", "Stablecoin Issuer", source);
    world.attr(issuer, "schema:description", `${issuerName} issues ${name} (${symbol}), a stablecoin backed by cash and short-term government bills.`, source);
    ctx.companies.push(issuer);

    const id = world.allocateId("Token", `${symbol}-${name}`);
    world.addEntity({ id, type: "Token", labels: ["Token", "Stablecoin"], name, symbol, source, prominence: 0.45 });
    world.attr(id, "pegCurrency", euro ? "EUR" : "USD", source);
    world.attr(id, "decimals", 6, source);
    world.rel(id, "issuedBy", issuer, source);
    const chains = pickChains(ctx, rng.int(1, 4));
    for (const chain of chains) {
      world.rel(id, "deployedOn", chain.id, source);
      if (chain.evm) world.attr(id, "contractAddress", caip10(chain, address(ctx)), source);
    }
    ctx.tokens.push({ id, symbol, chains: chains.map((c) => c.id), marketCap: rng.logNormal(1.5e8, 1.5), stablecoin: true });
    ctx.stablecoins.push(id);
  }
}

/**
 * Gives reference tokens (which have no latent size yet) a market cap by how widely they are
 * listed, then orders every chain's tokens by market cap. A real token's latent size only decides
 * how often synthetic pools and listings pick it; it is never written as a figure.
 */
function rankTokens(ctx: GenContext): void {
  const { rng } = ctx;
  for (const token of ctx.tokens) {
    if (token.marketCap > 0) continue;
    const reach = token.chains.length + ctx.world.entities.get(token.id)!.prominence * 10;
    token.marketCap = token.stablecoin ? rng.logNormal(5e8, 1.5) * reach : rng.logNormal(2e7, 2) * reach;
  }
  const sorted = [...ctx.tokens].sort((a, b) => b.marketCap - a.marketCap);
  ctx.tokensByChain.clear();
  for (const token of sorted) {
    for (const chain of token.chains) {
      const list = ctx.tokensByChain.get(chain) ?? [];
      list.push(token.id);
      ctx.tokensByChain.set(chain, list);
    }
  }
}
