/**
 * @module demo/synthetic/people
 * People and code: founders and teams of protocols, partners of funds, founders of exchanges,
 * advisors, and developers; repositories of each protocol with contributors drawn from their
 * community, so some developers work across several projects (the developer network) and many
 * repositories rest on one or two people (bus factor).
 */
import { type GenContext, isGenerated } from "./context.ts";
import { PersonNames } from "./names.ts";

const TEAM_TITLES = ["Engineer", "Smart Contract Engineer", "Head of Growth", "Product Lead", "Head of Research", "Community Lead", "Security Engineer"];
const FOUNDER_TITLES = ["Founder", "Co-founder", "Founder & CEO", "Co-founder & CTO"];
const PARTNER_TITLES = ["General Partner", "Partner", "Principal", "Managing Partner"];

class People {
  private readonly names: PersonNames;
  private budget: number;

  constructor(private readonly ctx: GenContext) {
    this.names = new PersonNames(ctx.rng.fork("people"), ctx.reserved);
    this.budget = ctx.plan.persons;
  }

  get remaining(): number {
    return this.budget;
  }

  /** A new person while the plan allows; afterwards an existing one takes the role too. */
  person(title: string): string {
    const { world, source, rng } = this.ctx;
    if (this.budget <= 0 && this.ctx.persons.length > 0) return rng.pick(this.ctx.persons);
    this.budget--;
    const name = this.names.next();
    const id = world.allocateId("Person", name);
    world.addEntity({ id, type: "Person", labels: ["Person"], name, source, prominence: 0.2 });
    world.attr(id, "jobTitle", title, source);
    this.ctx.persons.push(id);
    return id;
  }
}

export function generatePeople(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  const people = new People(ctx);
  const founders = ctx.teams;

  for (const protocol of ctx.protocols) {
    if (!isGenerated(ctx, protocol.id)) continue;
    if (/ V\d$/.test(protocol.name)) continue; // later versions share the first version's team
    const team: string[] = [];
    for (let i = 0; i < rng.int(1, 3); i++) {
      const person = people.person(rng.pick(FOUNDER_TITLES));
      world.rel(person, "founderOf", protocol.id, source);
      if (protocol.company) world.rel(person, "founderOf", protocol.company, source);
      team.push(person);
    }
    for (let i = 0; i < rng.int(0, 4); i++) {
      const person = people.person(rng.pick(TEAM_TITLES));
      world.rel(person, "worksAt", protocol.company ?? protocol.id, source);
      team.push(person);
    }
    founders.set(protocol.id, team);
  }
  for (const fund of ctx.funds) {
    for (let i = 0; i < rng.int(1, 3); i++) {
      const person = people.person(i === 0 ? "Founding Partner" : rng.pick(PARTNER_TITLES));
      world.rel(person, i === 0 ? "founderOf" : "worksAt", fund.id, source);
    }
  }
  for (const exchange of ctx.exchanges) {
    if (!isGenerated(ctx, exchange.id)) continue;
    for (let i = 0; i < rng.int(1, 2); i++) world.rel(people.person(rng.pick(FOUNDER_TITLES)), "founderOf", exchange.id, source);
  }
  // Advisors are people who already have a role elsewhere, of synthetic protocols: who advises a real one is not made up.
  for (const protocol of ctx.protocols) {
    if (ctx.persons.length > 0 && isGenerated(ctx, protocol.id) && rng.chance(0.15)) {
      for (const advisor of rng.sample(ctx.persons, rng.int(1, 2))) world.rel(advisor, "advisorOf", protocol.id, source);
    }
  }
  // Everyone the plan still allows is a developer in one community.
  for (let c = 0; c < ctx.communities; c++) ctx.developersByCommunity.set(c, []);
  while (people.remaining > 0) {
    const dev = people.person(rng.pick(["Developer", "Software Engineer", "Protocol Engineer", "Open Source Contributor"]));
    ctx.developersByCommunity.get(rng.int(0, ctx.communities - 1))!.push(dev);
  }
  generateRepositories(ctx);
}

const LANGUAGE_BY_FAMILY: Record<string, string> = { solana: "Rust", cosmos: "Go", near: "Rust", sui: "Move", aptos: "Move", ton: "FunC", starknet: "Cairo" };
const REPO_NAMES = ["contracts", "core", "periphery", "sdk", "interface", "subgraph", "docs", "audits", "keeper-bot", "v2-core", "governance", "oracle-adapter"];

function generateRepositories(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  for (const protocol of ctx.protocols) {
    const team = ctx.teams.get(protocol.id);
    if (!team) continue;
    const owner = protocol.root.toLowerCase();
    const devs = ctx.developersByCommunity.get(protocol.community) ?? [];
    const family = ctx.chainById.get(protocol.chains[0]!)?.family ?? "evm";
    for (const repo of rng.sample(REPO_NAMES, rng.int(1, 3))) {
      const name = `${owner}/${repo}`;
      if (!world.nameIsFree("Repository", name)) continue;
      const id = world.allocateId("Repository", name);
      world.addEntity({ id, type: "Repository", labels: ["Repository"], name, source, prominence: 0.1 });
      const language = repo === "sdk" || repo === "interface" || repo === "subgraph" ? "TypeScript" : (LANGUAGE_BY_FAMILY[family] ?? "Solidity");
      world.attr(id, "programmingLanguage", language, source);
      world.rel(protocol.id, "hasRepository", id, source);
      if (protocol.company) world.rel(protocol.company, "hasRepository", id, source);
      const contributors = new Set<string>();
      if (rng.chance(0.7)) contributors.add(team[0]!);
      const want = Math.min(40, Math.floor(rng.pareto(1, 1.1)));
      for (let tries = 0; contributors.size < want && devs.length > 0 && tries < want * 5; tries++) {
        // A few prolific developers commit to many of their community's projects.
        contributors.add(devs[rng.zipfIndex(devs.length, 1.05)]!);
      }
      if (contributors.size === 0) contributors.add(team[0]!);
      for (const person of contributors) world.rel(person, "contributesTo", id, source);
    }
  }
}
