/**
 * @module demo/synthetic/protocols
 * Synthetic protocols: a DeFi sector mix, power-law sizes, deployments on real chains weighted by
 * activity, forks and versions (lineage), the labs company behind each, governance tokens, DAOs,
 * foundations and stablecoin issuers.
 */
import { CATEGORIES, type CategorySpec } from "./categories.ts";
import { type GenContext, type ProtocolInfo, address, caip10, isGenerated, pickChains } from "./context.ts";
import { communitySectors, uniqueOrgName } from "./organizations.ts";

export function generateProtocols(ctx: GenContext): void {
  const { rng, reserved } = ctx;
  const target = Math.max(0, ctx.plan.protocols - ctx.protocols.length);
  const weighted = CATEGORIES.map((c) => [c, c.weight] as const);
  const roots = new Set<string>();
  let made = 0;
  while (made < target) {
    const spec = rng.weighted(weighted);
    let root = reserved.root(rng);
    let name = `${root} ${rng.pick(spec.suffixes)}`;
    // A root of its own, no real name or word of one: its token, DAO and labs take the root's name.
    while (roots.has(root) || reserved.has(name)) name = `${(root = reserved.root(rng))} ${rng.pick(spec.suffixes)}`;
    roots.add(root);
    const base = addProtocol(ctx, spec, root, name);
    made++;
    // Some protocols ship later versions: V2 succeeds V1, both belong to the first as parent.
    if (made < target && rng.chance(0.06)) {
      let previous = base;
      for (let v = 2; v <= (rng.chance(0.3) ? 3 : 2) && made < target; v++) {
        const version = addProtocol(ctx, spec, root, `${base.name} V${v}`, base);
        ctx.world.rel(version.id, "successorOf", previous.id, ctx.source);
        ctx.world.rel(version.id, "parentProtocol", base.id, ctx.source);
        previous = version;
        made++;
      }
    }
  }
  addIntegrations(ctx);
}

function addProtocol(ctx: GenContext, spec: CategorySpec, root: string, name: string, parent?: ProtocolInfo): ProtocolInfo {
  const { world, rng, source } = ctx;
  const id = world.allocateId("Protocol", name);
  const chainCount = Math.min(25, Math.floor(rng.pareto(1, 1.4)));
  const chains = parent ? parent.chains : pickChains(ctx, chainCount).map((c) => c.id);
  const tvl = Math.min(2e10, rng.pareto(spec.tvlMedian * 0.25, 1.0));
  const favoured = [...Array(ctx.communities).keys()].filter((c) => communitySectors(c).includes(spec.name));
  const community = favoured.length > 0 && rng.chance(0.7) ? rng.pick(favoured) : rng.int(0, ctx.communities - 1);
  const founded = parent ? Math.min(2025, parent.founded + rng.int(1, 3)) : rng.int(2017, 2025);
  const info: ProtocolInfo = { id, name, root, category: spec.name, chains, tvl, community, founded };

  world.addEntity({ id, type: "Protocol", labels: ["Protocol"], name, source, prominence: Math.min(1, Math.log10(tvl) / 10.3) });
  world.attr(id, "category", spec.name, source);
  world.attr(id, "foundedYear", founded, source);
  world.attr(id, "schema:url", `https://${root.toLowerCase()}.example`, source);
  for (const chain of chains) world.rel(id, "deployedOn", chain, source);

  // Forks: later protocols of the code-heavy sectors often start from a bigger one's contracts.
  const peers = ctx.protocols.filter((p) => p.category === spec.name && p.root !== root);
  let forkOf: ProtocolInfo | undefined;
  if (!parent && peers.length > 5 && ["Dexes", "Lending", "Yield", "CDP", "Derivatives"].includes(spec.name) && rng.chance(0.15)) {
    forkOf = peers[rng.zipfIndex(Math.min(peers.length, 200))]!;
    world.rel(id, "forkOf", forkOf.id, source);
  }

  if (parent?.company) {
    info.company = parent.company;
  } else if (rng.chance(0.75)) {
    const company = uniqueOrgName(ctx, () => `${root} ${rng.pick(["Labs", "Labs", "Foundation Labs", "Technologies", "Inc"])}`);
    info.company = world.allocateId("Organization", company);
    world.addEntity({ id: info.company, type: "Organization", labels: ["Organization", "Company"], name: company, source, prominence: 0.3 });
    world.attr(info.company, "schema:description", `${company} is the company that builds ${name}.`, source);
    world.attr(info.company, "foundedYear", founded, source);
    ctx.companies.push(info.company);
  }
  if (info.company) world.rel(id, "operatedBy", info.company, source);

  if (parent?.token) {
    info.token = parent.token;
    info.dao = parent.dao;
  } else if (rng.chance(Math.min(0.9, 0.4 + Math.log10(tvl) / 30))) {
    addGovernance(ctx, info);
  }
  if (info.token) world.rel(id, "governanceToken", info.token, source);
  if (info.dao) world.rel(id, "governedBy", info.dao, source);
  // Later versions keep the first version's stablecoin.
  if (!parent && (spec.name === "CDP" || spec.name === "Algo-Stables")) addStablecoin(ctx, info);

  const chainNames = chains.slice(0, 4).map((c) => ctx.chainById.get(c)!.name);
  const token = info.token ? ` Its governance token is ${world.entities.get(info.token)!.symbol}.` : "";
  const fork = forkOf ? ` It started as a fork of ${forkOf.name}.` : "";
  world.attr(id, "schema:description", `${name} is ${spec.what}, live on ${listText(chainNames)}.${fork}${token}`, source);
  ctx.protocols.push(info);
  return info;
}

/** A governance token, and for most token protocols a DAO (and sometimes a foundation) around it. */
function addGovernance(ctx: GenContext, info: ProtocolInfo): void {
  const { world, rng, source } = ctx;
  const symbol = ctx.reserved.ticker(info.root, rng);
  const tokenId = world.allocateId("Token", `${symbol}-${info.root}`);
  world.addEntity({ id: tokenId, type: "Token", labels: ["Token"], name: info.root, symbol, source, prominence: Math.min(1, Math.log10(info.tvl) / 10.5) });
  world.attr(tokenId, "decimals", 18, source);
  world.rel(tokenId, "issuedBy", info.id, source);
  const tokenChains = info.chains.slice(0, rng.int(1, Math.min(3, info.chains.length)));
  for (const chainId of tokenChains) {
    const chain = ctx.chainById.get(chainId)!;
    world.rel(tokenId, "deployedOn", chainId, source);
    world.attr(tokenId, "contractAddress", caip10(chain, address(ctx)), source);
  }
  ctx.tokens.push({ id: tokenId, symbol, chains: tokenChains, marketCap: info.tvl * rng.logNormal(0.6, 0.8), stablecoin: false, protocol: info.id });
  info.token = tokenId;

  if (rng.chance(0.7)) {
    const dao = uniqueOrgName(ctx, () => `${info.root} DAO`);
    info.dao = world.allocateId("Organization", dao);
    world.addEntity({ id: info.dao, type: "Organization", labels: ["Organization", "DAO"], name: dao, source, prominence: 0.3 });
    world.attr(info.dao, "schema:description", `${dao} governs ${info.name} through ${symbol} token votes.`, source);
    world.rel(info.dao, "governanceToken", tokenId, source);
  }
  if (rng.chance(0.1)) {
    const foundation = uniqueOrgName(ctx, () => `${info.root} Foundation`);
    const id = world.allocateId("Organization", foundation);
    world.addEntity({ id, type: "Organization", labels: ["Organization", "Foundation"], name: foundation, source, prominence: 0.25 });
    world.attr(id, "schema:description", `${foundation} is the non-profit foundation stewarding the ${info.name} ecosystem.`, source);
    world.rel(tokenId, "issuedBy", id, source);
  }
}

/** CDP and algorithmic-stable protocols issue a dollar stablecoin backed by collateral tokens. */
function addStablecoin(ctx: GenContext, info: ProtocolInfo): void {
  const { world, rng, source } = ctx;
  const stem = ctx.reserved.ticker(info.root, rng).slice(0, 3);
  const name = `${info.root} USD`;
  let symbol = `${stem}USD`;
  for (let n = 2; ctx.reserved.has(symbol); n++) symbol = `${stem}${n}USD`;
  const id = world.allocateId("Token", `${symbol}-${name}`);
  world.addEntity({ id, type: "Token", labels: ["Token", "Stablecoin"], name, symbol, source, prominence: 0.4 });
  world.attr(id, "pegCurrency", "USD", source);
  world.attr(id, "decimals", 18, source);
  world.rel(id, "issuedBy", info.id, source);
  const chainId = info.chains[0]!;
  world.rel(id, "deployedOn", chainId, source);
  world.attr(id, "contractAddress", caip10(ctx.chainById.get(chainId)!, address(ctx)), source);
  const collateral = ctx.tokens.filter((t) => !t.stablecoin && t.chains.includes(chainId)).slice(0, 40);
  for (const token of rng.sample(collateral, rng.int(1, 3))) {
    world.rel(info.id, "collateralToken", token.id, source);
    world.rel(id, "collateralToken", token.id, source);
  }
  ctx.tokens.push({ id, symbol, chains: [chainId], marketCap: info.tvl * rng.logNormal(0.7, 0.3), stablecoin: true, protocol: info.id });
  ctx.stablecoins.push(id);
}

/** Synthetic aggregators, yield and derivatives protocols build on bigger protocols of other sectors (real ones too: a fact of the synthetic protocol). */
function addIntegrations(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  const bySize = [...ctx.protocols].sort((a, b) => b.tvl - a.tvl);
  for (const protocol of ctx.protocols) {
    if (!isGenerated(ctx, protocol.id) || !["Yield Aggregator", "Yield", "Derivatives", "Options", "Indexes", "Services"].includes(protocol.category)) continue;
    if (!rng.chance(0.5)) continue;
    const targets = new Set<string>();
    for (let i = 0; i < rng.int(1, 4); i++) {
      const target = bySize[rng.zipfIndex(Math.min(bySize.length, 300))]!;
      if (target.id !== protocol.id && target.category !== protocol.category) targets.add(target.id);
    }
    for (const target of targets) world.rel(protocol.id, "integratesWith", target, source);
  }
}

function listText(items: string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
