/**
 * @module dataset/apply-reference
 * Writes the real reference entities into the world: chains (with L2 parents and native coins),
 * tokens (with their deployments), exchanges, and Aave with its markets. Each fact carries the
 * reference source it came from. Fills the generator's registries so synthetic protocols deploy on
 * real chains and pool real tokens.
 */
import type { ChainInfo, GenContext } from "./synthetic/context.ts";
import { chainWeight } from "./synthetic/chain-weights.ts";
import type { ReferenceAaveMarket, ReferenceData, ReferenceToken } from "./reference.ts";
import type { ClassName } from "../graph/vocabulary.ts";

const EUR = /EUR/;

export function applyReference(ctx: GenContext, ref: ReferenceData): void {
  const { world } = ctx;
  for (const source of ref.sources) {
    world.addSource({
      id: source.id,
      name: `${source.package} ${source.version}`,
      kind: "reference",
      synthetic: false,
      license: source.license,
      attribution: `${source.package} ${source.version}, ${source.license} licence (see data/reference/ATTRIBUTION.md)`,
      package: source.package,
      version: source.version,
      homepage: source.homepage,
    });
  }
  const tokenByNativeKey = addTokens(ctx, ref.tokens);
  addChains(ctx, ref, tokenByNativeKey);
  addExchanges(ctx, ref);
  addAave(ctx, ref.aaveMarkets);
}

/** Identity of a token across lists: a chain's native coin is one token wherever it is used (ETH on L2s). */
function tokenIdentity(symbol: string, name: string): string {
  return `${symbol.toLowerCase()}|${name.toLowerCase().replace(/\s+/g, " ")}`;
}

function addTokens(ctx: GenContext, tokens: ReferenceToken[]): Map<string, string> {
  const { world } = ctx;
  const byIdentity = new Map<string, string>();
  for (const token of tokens) {
    const source = token.sources[0]!;
    const labels: ClassName[] = token.stablecoin ? ["Token", "Stablecoin"] : ["Token"];
    const id = world.allocateId("Token", `${token.symbol}-${token.name}`);
    // More deployments and more lists mean a better-known token: a rank hint, not a fact.
    const prominence = Math.min(1, 0.3 + 0.08 * token.deployments.length + 0.1 * token.sources.length);
    world.addEntity({ id, type: "Token", labels, name: token.name, symbol: token.symbol, source, prominence });
    if (token.decimals != null) world.attr(id, "decimals", token.decimals, source);
    if (token.stablecoin) world.attr(id, "pegCurrency", EUR.test(token.symbol) ? "EUR" : "USD", source);
    const chains = new Set<string>();
    for (const deployment of token.deployments) {
      if (deployment.address) world.attr(id, "contractAddress", `${deployment.chain}:${deployment.address}`, source);
      chains.add(deployment.chain);
    }
    byIdentity.set(tokenIdentity(token.symbol, token.name), id);
    byIdentity.set(token.key, id);
    ctx.tokens.push({
      id,
      symbol: token.symbol,
      chains: [...chains],
      marketCap: 0,
      stablecoin: Boolean(token.stablecoin),
    });
    if (token.stablecoin) ctx.stablecoins.push(id);
  }
  return byIdentity;
}

function addChains(ctx: GenContext, ref: ReferenceData, tokens: Map<string, string>): void {
  const { world } = ctx;
  const idByKey = new Map<string, string>();
  const tokenInfo = new Map(ctx.tokens.map((t) => [t.id, t]));
  for (const chain of ref.chains) {
    const source = chain.sources[0]!;
    const id = world.allocateId("Chain", chain.name);
    idByKey.set(chain.key, id);
    const weight = chainWeight(chain.key);
    world.addEntity({
      id,
      type: "Chain",
      labels: ["Chain"],
      name: chain.name,
      aliases: chain.aliases.filter((a) => a.toLowerCase() !== chain.name.toLowerCase()),
      symbol: chain.native_symbol ?? undefined,
      source,
      prominence: Math.min(1, 0.2 + weight / 30),
    });
    world.attr(id, "chainKey", chain.key, source);
    if (chain.chain_id) world.attr(id, "chainId", chain.chain_id, source);
    if (chain.layer) world.attr(id, "layer", chain.layer, source);
    world.attr(id, "chainFamily", chain.family, source);
    const url = chain.website ?? chain.explorer_url;
    if (url) world.attr(id, "schema:url", url, source);
    const info: ChainInfo = { id, key: chain.key, name: chain.name, family: chain.family, evm: chain.key.startsWith("eip155:"), weight };
    ctx.chains.push(info);
    ctx.chainById.set(id, info);
    ctx.chainByKey.set(chain.key, info);
  }
  for (const chain of ref.chains) {
    const id = idByKey.get(chain.key)!;
    const source = chain.sources[0]!;
    if (chain.parent && idByKey.has(chain.parent)) world.rel(id, "parentChain", idByKey.get(chain.parent)!, source);
    // The native coin: the token list's record when there is one, else a token made from the chain's own record.
    if (chain.native_symbol) {
      const native =
        tokens.get(`native:${chain.key}`) ??
        tokens.get(tokenIdentity(chain.native_symbol, chain.native_name ?? chain.native_symbol));
      const tokenId = native ?? addNativeToken(ctx, chain.native_symbol, chain.native_name ?? chain.native_symbol, source, tokens);
      world.rel(id, "nativeToken", tokenId, source);
      ctx.chainById.get(id)!.nativeToken = tokenId;
      world.rel(tokenId, "deployedOn", id, source);
      (tokenInfo.get(tokenId) ?? ctx.tokens.find((t) => t.id === tokenId))?.chains.push(chain.key);
    }
  }
  // Deployments of reference tokens become deployedOn relations once the chains exist.
  for (const token of ctx.tokens) {
    token.chains = [...new Set(token.chains)].filter((key) => idByKey.has(key)).map((key) => idByKey.get(key)!);
    for (const chainId of token.chains) {
      const source = world.entities.get(token.id)!.source;
      if (ctx.chainById.get(chainId)?.nativeToken !== token.id) world.rel(token.id, "deployedOn", chainId, source);
    }
  }
}

function addNativeToken(ctx: GenContext, symbol: string, name: string, source: string, tokens: Map<string, string>): string {
  const id = ctx.world.allocateId("Token", `${symbol}-${name}`);
  ctx.world.addEntity({ id, type: "Token", labels: ["Token"], name, symbol, source, prominence: 0.6 });
  tokens.set(tokenIdentity(symbol, name), id);
  ctx.tokens.push({ id, symbol, chains: [], marketCap: 0, stablecoin: false });
  return id;
}

function addExchanges(ctx: GenContext, ref: ReferenceData): void {
  const { world } = ctx;
  for (const exchange of ref.exchanges) {
    const source = exchange.sources[0]!;
    const id = world.allocateId("Exchange", exchange.key);
    const kind = exchange.dex ? "DecentralizedExchange" : "CentralizedExchange";
    world.addEntity({ id, type: "Exchange", labels: ["Exchange", kind], name: exchange.name, source, prominence: 0.5 });
    for (const country of exchange.countries) world.attr(id, "country", country, source);
    if (exchange.website) world.attr(id, "schema:url", exchange.website, source);
    ctx.exchanges.push({ id, centralized: !exchange.dex, weight: 1 });
  }
}

/** Aave, its versions, and one lending market per asset of each market in the address book. */
function addAave(ctx: GenContext, markets: ReferenceAaveMarket[]): void {
  if (markets.length === 0) return;
  const { world } = ctx;
  const source = markets[0]!.sources[0]!;
  const chainIdByKey = new Map(ctx.chains.map((c) => [c.key, c.id]));
  const tokenByDeployment = new Map<string, string>();
  for (const [i, subject] of world.facts.subject.entries()) {
    if (world.facts.predicate[i] === "contractAddress") tokenByDeployment.set(world.facts.object[i]!.toLowerCase(), subject);
  }

  const aave = world.allocateId("Protocol", "aave");
  world.addEntity({ id: aave, type: "Protocol", labels: ["Protocol"], name: "Aave", source, prominence: 1 });
  world.attr(aave, "category", "Lending", source);
  world.attr(aave, "schema:description", "Aave is a lending protocol: a money market where users supply assets to earn interest and borrow against collateral. Its markets are listed in the Aave address book.", source);
  const versions = new Map<string, string>();
  for (const version of [...new Set(markets.map((m) => m.version))].sort()) {
    const id = world.allocateId("Protocol", `aave-${version}`);
    world.addEntity({ id, type: "Protocol", labels: ["Protocol"], name: `Aave ${version.toUpperCase()}`, source, prominence: 0.9 });
    world.attr(id, "category", "Lending", source);
    world.rel(id, "parentProtocol", aave, source);
    const previous = [...versions.values()].at(-1);
    if (previous) world.rel(id, "successorOf", previous, source);
    versions.set(version, id);
  }

  const deployed = new Set<string>();
  for (const market of markets) {
    const protocol = versions.get(market.version)!;
    const chainId = chainIdByKey.get(market.chain);
    if (chainId && !deployed.has(`${protocol}|${chainId}`)) {
      deployed.add(`${protocol}|${chainId}`);
      world.rel(protocol, "deployedOn", chainId, source);
      if (!deployed.has(`${aave}|${chainId}`)) {
        deployed.add(`${aave}|${chainId}`);
        world.rel(aave, "deployedOn", chainId, source);
      }
    }
    if (market.pool && chainId) world.attr(protocol, "contractAddress", `${market.chain}:${market.pool.toLowerCase()}`, source);
    for (const asset of market.assets) {
      const token = tokenByDeployment.get(`${market.chain}:${asset.underlying}`.toLowerCase());
      if (!token || !chainId) continue;
      const name = `${market.name} ${asset.symbol}`;
      const id = world.allocateId("LendingMarket", name);
      world.addEntity({ id, type: "LendingMarket", labels: ["LendingMarket"], name, source, prominence: 0.5 });
      world.rel(id, "marketOf", protocol, source);
      world.rel(id, "marketAsset", token, source);
      world.rel(id, "deployedOn", chainId, source);
      // A latent size for the demo series (labelled synthetic there); the market itself is real.
      ctx.markets.push({ id, protocol, chain: chainId, asset: token, supply: ctx.rng.pareto(2e7, 1.1) });
    }
  }
  ctx.protocols.push(
    ...[aave, ...versions.values()].map((id) => ({
      id,
      name: world.entities.get(id)!.name,
      root: "Aave",
      category: "Lending",
      chains: [...deployed].filter((d) => d.startsWith(`${id}|`)).map((d) => d.split("|")[1]!),
      tvl: 5e9,
      community: 0,
      founded: 2020,
    })),
  );
}

