/**
 * @module demo/synthetic/governance
 * Governance proposals of token-governed protocols (a few DAOs propose a lot, most rarely), and
 * treasuries: what each protocol or DAO holds. Votes, turnout and balances are time-series.
 */
import { type GenContext, daysAgo, isGenerated } from "./context.ts";

const TOPICS = [
  "Increase the {asset} supply cap on {chain}",
  "Enable the protocol fee switch",
  "Treasury diversification into stablecoins",
  "Add {asset} as collateral",
  "Adjust interest rate parameters for {asset}",
  "Renew the security council",
  "Fund a liquidity mining program on {chain}",
  "Deploy the protocol on {chain}",
  "Grant to the core development team",
  "Reduce emissions by 25%",
  "Migrate liquidity to V2",
  "Onboard a new risk service provider",
  "Buy back and distribute {token}",
  "Raise the debt ceiling for {asset}",
  "Freeze the deprecated {asset} market",
];

export function generateGovernance(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  for (const protocol of ctx.protocols) {
    if (!protocol.token || !isGenerated(ctx, protocol.id) || / V\d$/.test(protocol.name)) continue;
    const token = world.entities.get(protocol.token)!;
    const chain = ctx.chainById.get(protocol.chains[0]!)!;
    const assets = ctx.tokensByChain.get(chain.id)?.slice(0, 20) ?? [];
    const count = Math.min(80, Math.floor(rng.pareto(1, 0.9)) - 1);
    const prefix = `${(token.symbol ?? protocol.root).slice(0, 4).toUpperCase()}IP`;
    const owner = protocol.dao ?? protocol.id;
    for (let n = 1; n <= count; n++) {
      const topic = rng
        .pick(TOPICS)
        .replace("{asset}", assets.length > 0 ? (world.entities.get(rng.pick(assets))!.symbol ?? "ETH") : "ETH")
        .replace("{chain}", ctx.chainById.get(rng.pick(protocol.chains))!.name)
        .replace("{token}", token.symbol ?? protocol.root);
      const name = `${prefix}-${n}: ${topic}`;
      if (!world.nameIsFree("GovernanceProposal", `${protocol.name} ${name}`)) continue;
      const id = world.allocateId("GovernanceProposal", `${protocol.root}-${prefix}-${n}`);
      // Proposals are spread over two years, numbered in time order; the last fortnight's are active.
      const age = Math.round(((count - n + 1) / (count + 1)) * 730 * rng.next() + rng.int(0, 20));
      world.addEntity({ id, type: "GovernanceProposal", labels: ["GovernanceProposal"], name: `${protocol.name} ${name}`, source, prominence: 0.05 });
      world.rel(id, "proposalOf", owner, source);
      world.attr(id, "announcedOn", daysAgo(ctx, age), source);
      const status = age <= 14 ? "active" : rng.weighted([["passed", 0.78], ["failed", 0.15], ["cancelled", 0.07]] as const);
      world.attr(id, "proposalStatus", status, source);
      ctx.proposals.push({ id, owner, token: protocol.token, announced: daysAgo(ctx, age), status });
    }
  }
}

export function generateTreasuries(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  const topStables = ctx.tokens
    .filter((t) => t.stablecoin)
    .sort((a, b) => b.marketCap - a.marketCap)
    .slice(0, 4)
    .map((t) => t.id);
  // A DAO can hold for several protocols: each holding is stated once (a fact is a set member).
  const held = new Set<string>();
  const hold = (holder: string, token: string) => {
    const key = `${holder} ${token}`;
    if (held.has(key)) return;
    held.add(key);
    world.rel(holder, "treasuryHolds", token, source);
  };
  for (const protocol of ctx.protocols) {
    if (!protocol.token || !isGenerated(ctx, protocol.id)) continue;
    const holder = protocol.dao ?? protocol.id;
    hold(holder, protocol.token);
    const chain = protocol.chains[0]!;
    const reserves = [ctx.chainById.get(chain)?.nativeToken, ...topStables].filter((t): t is string => Boolean(t));
    for (const reserve of rng.sample(reserves, rng.int(0, 2))) hold(holder, reserve);
    if (rng.chance(0.5)) world.rel(protocol.id, "feeToken", rng.chance(0.5) && topStables[0] ? topStables[0] : protocol.token, source);
  }
}
