/**
 * @module dataset/synthetic/tokens
 * The long tail of tokens (memes, games, AI, utility) on real chains, with latent market caps that
 * follow a power law; then every token is ranked so later steps pick popular tokens more often.
 */
import { type GenContext, address, caip10, pickChains } from "./context.ts";
import { TOKEN_NOUNS, pseudoWord, tickerFor } from "./names.ts";

export function generateTokens(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  const target = Math.max(0, ctx.plan.tokens - ctx.tokens.length);
  for (let i = 0; i < target; i++) {
    let name = `${pseudoWord(rng)} ${rng.pick(TOKEN_NOUNS)}`;
    while (!world.nameIsFree("Token", name)) name = `${pseudoWord(rng)} ${rng.pick(TOKEN_NOUNS)}`;
    const symbol = tickerFor(name, rng);
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

/**
 * Gives reference tokens (which have no latent size yet) a market cap by how widely they are
 * listed, then orders every chain's tokens by market cap.
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
