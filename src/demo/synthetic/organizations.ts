/**
 * @module demo/synthetic/organizations
 * Venture funds (grouped into co-investment communities, a few bridging several) and market makers.
 * Companies, DAOs and foundations are made beside the protocols they run (protocols.ts).
 */
import { CATEGORIES } from "./categories.ts";
import { type GenContext, caip10, ethereum } from "./context.ts";
import { COUNTRIES, FUND_WORDS } from "./names.ts";

/** The sectors each community of funds favours (derived from the category list, deterministic). */
export function communitySectors(community: number): string[] {
  const n = CATEGORIES.length;
  return [CATEGORIES[community % n]!.name, CATEGORIES[(community * 7 + 3) % n]!.name, CATEGORIES[(community * 11 + 5) % n]!.name];
}

export function generateFunds(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  const fundCount = Math.max(12, Math.round(ctx.plan.organizations * 0.35));
  const makerCount = Math.max(3, Math.round(ctx.plan.organizations * 0.02));
  for (let i = 0; i < fundCount; i++) {
    // Invented roots only: English ones ("Summit Partners", "Granite Ventures") are real firms' names.
    const name = uniqueOrgName(ctx, () => `${ctx.reserved.root(rng)} ${rng.pick(FUND_WORDS)}`);
    const id = world.allocateId("Organization", name);
    // About one fund in twelve spans two or three communities: the bridges between clusters.
    const home = rng.int(0, ctx.communities - 1);
    const communities = rng.chance(0.08) ? [home, ...rng.sample([...Array(ctx.communities).keys()], rng.int(1, 2))] : [home];
    const weight = rng.pareto(1, 1.3);
    const sectors = [...new Set(communities.flatMap(communitySectors))];
    world.addEntity({ id, type: "Organization", labels: ["Organization", "VentureFund"], name, source, prominence: Math.min(1, 0.2 + weight / 20) });
    world.attr(id, "category", "Venture Capital", source);
    world.attr(
      id,
      "schema:description",
      `${name} is a venture fund investing in crypto startups, focused on ${sectors.slice(0, 3).join(", ")} and DeFi infrastructure.`,
      source,
    );
    world.attr(id, "country", rng.pick(COUNTRIES), source);
    world.attr(id, "foundedYear", rng.int(2012, 2023), source);
    const wallet = caip10(ethereum(ctx), `0x${rng.hex(20)}`);
    world.attr(id, "walletAddress", wallet, source);
    ctx.wallets.set(id, wallet);
    ctx.funds.push({ id, communities: [...new Set(communities)], weight });
  }
  for (let i = 0; i < makerCount; i++) {
    const name = uniqueOrgName(ctx, () => `${ctx.reserved.root(rng)} ${rng.pick(["Trading", "Markets", "Liquidity", "Quant"])}`);
    const id = world.allocateId("Organization", name);
    world.addEntity({ id, type: "Organization", labels: ["Organization", "MarketMaker"], name, source, prominence: 0.3 });
    world.attr(id, "category", "Market Making", source);
    world.attr(id, "schema:description", `${name} is a crypto market maker providing liquidity for tokens on centralized and decentralized exchanges.`, source);
    world.attr(id, "country", rng.pick(COUNTRIES), source);
    ctx.marketMakers.push(id);
  }
}

const COMPANY_KINDS = [
  ["Wallet", "a crypto wallet provider for self-custody of tokens"],
  ["Custody", "a qualified custodian holding digital assets for institutions"],
  ["Analytics", "an on-chain analytics company tracking wallets, flows and protocol metrics"],
  ["Infrastructure", "a node and RPC infrastructure provider for blockchains"],
  ["Security", "a smart contract security firm performing audits"],
  ["Payments", "a crypto payments company for merchants"],
  ["Research", "a crypto research and data company"],
] as const;

/** Companies that run no protocol (wallets, custodians, auditors, ...) fill the organization quota. */
export function generateCompanies(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  const existing = [...world.entities.values()].filter((e) => e.type === "Organization").length;
  for (let i = existing; i < ctx.plan.organizations; i++) {
    const [kind, what] = rng.pick(COMPANY_KINDS);
    const name = uniqueOrgName(ctx, () => `${ctx.reserved.root(rng)} ${rng.pick([kind, "Labs", "Technologies", "Systems", "Group"])}`);
    const id = world.allocateId("Organization", name);
    world.addEntity({ id, type: "Organization", labels: ["Organization", "Company"], name, source, prominence: 0.15 });
    world.attr(id, "category", kind, source);
    world.attr(id, "schema:description", `${name} is ${what}.`, source);
    world.attr(id, "country", rng.pick(COUNTRIES), source);
    world.attr(id, "foundedYear", rng.int(2014, 2025), source);
    ctx.companies.push(id);
  }
}

/** A name no organization has yet and no real entity uses; `make` is asked again until one is free. */
export function uniqueOrgName(ctx: GenContext, make: () => string): string {
  const free = (name: string) => ctx.world.nameIsFree("Organization", name) && !ctx.reserved.has(name);
  for (let tries = 0; tries < 50; tries++) {
    const name = make();
    if (free(name)) return name;
  }
  const name = make();
  for (let n = 2; ; n++) if (free(`${name} ${n}`)) return `${name} ${n}`;
}
