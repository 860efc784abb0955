/**
 * @module demo/synthetic/funding
 * Funding rounds: projects raise in stages from funds of their co-investment community (big funds
 * join more rounds), with the odd fund from another community and the odd angel. This is what
 * makes token pairs share investors and funds bridge clusters.
 */
import { type FundInfo, type GenContext, isGenerated } from "./context.ts";

const STAGES = [
  { stage: "Pre-seed", median: 1.5e6 },
  { stage: "Seed", median: 4e6 },
  { stage: "Series A", median: 1.5e7 },
  { stage: "Series B", median: 4e7 },
  { stage: "Strategic", median: 1e7 },
];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

export function generateFunding(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  if (ctx.funds.length === 0) return;
  const anyFund = rng.sampler(ctx.funds.map((f) => [f, f.weight] as const));
  const byCommunity = new Map<number, () => FundInfo>();
  for (let c = 0; c < ctx.communities; c++) {
    const members = ctx.funds.filter((f) => f.communities.includes(c));
    if (members.length > 0) byCommunity.set(c, rng.sampler(members.map((f) => [f, f.weight] as const)));
  }
  const invested = new Set<string>();

  for (const protocol of ctx.protocols) {
    if (!isGenerated(ctx, protocol.id) || / V\d$/.test(protocol.name)) continue;
    if (!rng.chance(Math.min(0.9, 0.3 + Math.log10(protocol.tvl) / 25))) continue;
    const rounds = rng.int(1, 4);
    const startYear = protocol.founded;
    for (let r = 0; r < rounds; r++) {
      const { stage, median } = r === rounds - 1 && rounds > 2 && rng.chance(0.3) ? STAGES[4]! : STAGES[Math.min(r, 3)]!;
      const year = Math.min(ctx.asOf.getUTCFullYear(), startYear + r);
      const month = year === ctx.asOf.getUTCFullYear() ? rng.int(0, ctx.asOf.getUTCMonth()) : rng.int(0, 11);
      const day = rng.int(1, 28);
      const date = `${year}-${String(month + 1).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
      const name = `${protocol.name} ${stage} (${MONTHS[month]} ${year})`;
      if (!world.nameIsFree("FundingRound", name)) continue;
      const id = world.allocateId("FundingRound", name);
      world.addEntity({ id, type: "FundingRound", labels: ["FundingRound"], name, source, prominence: 0.1 });
      world.rel(id, "raisedBy", protocol.id, source);
      world.attr(id, "roundStage", stage, source);
      world.attr(id, "amountUsd", Math.round(rng.logNormal(median, 0.6)), source);
      world.attr(id, "announcedOn", date, source);

      const home = byCommunity.get(protocol.community) ?? anyFund;
      const investors = new Set<string>();
      const want = Math.min(15, 1 + Math.floor(rng.pareto(1.5, 1.6)));
      for (let tries = 0; investors.size < want && tries < want * 6; tries++) {
        investors.add((rng.chance(0.85) ? home() : anyFund()).id);
      }
      if (ctx.persons.length > 0 && rng.chance(0.1)) investors.add(rng.pick(ctx.persons));
      const backers = ctx.investors.get(protocol.id) ?? [];
      ctx.investors.set(protocol.id, backers);
      let first = true;
      for (const investor of investors) {
        if (!backers.includes(investor)) backers.push(investor);
        world.rel(id, first ? "leadInvestor" : "investor", investor, source);
        if (first) world.rel(id, "investor", investor, source);
        first = false;
        if (!invested.has(`${investor}|${protocol.id}`)) {
          invested.add(`${investor}|${protocol.id}`);
          world.rel(investor, "investedIn", protocol.id, source);
        }
      }
    }
  }
}
