/**
 * @module demo/apply-aave
 * Writes Aave, the reference data's one protocol, into the world from its address book: the
 * protocol, one protocol per version (each the successor of the one before), and a lending market
 * per asset of each market. Runs after apply-reference.ts has written the real chains and tokens:
 * a market's asset is the token deployed at its underlying address.
 */
import type { GenContext } from "./synthetic/context.ts";
import type { ReferenceAaveMarket } from "./reference.ts";

/**
 * Aave, its versions, and one lending market per asset of each market in the address book.
 * Returns Aave's protocol ids by lower-case name.
 */
export function addAave(ctx: GenContext, markets: ReferenceAaveMarket[]): Map<string, string> {
  if (markets.length === 0) return new Map();
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
    }
  }
  ctx.protocols.push(
    ...[aave, ...versions.values()].map((id) => ({
      id,
      name: world.entities.get(id)!.name,
      root: "Aave",
      category: "Lending",
      chains: [...deployed].filter((d) => d.startsWith(`${id}|`)).map((d) => d.split("|")[1]!),
      // A size hint only: synthetic protocols fork and integrate with big ones more often. No series is made from it.
      tvl: 5e9,
      community: 0,
      founded: 2020,
    })),
  );
  return new Map([aave, ...versions.values()].map((id) => [world.entities.get(id)!.name.toLowerCase(), id]));
}
