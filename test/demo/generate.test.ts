import { describe, expect, test } from "bun:test";
import { generateWorld } from "../../src/demo/generate.ts";
import { planScale } from "../../src/demo/scale.ts";
import { SYNTHETIC_SOURCE } from "../../src/demo/synthetic/context.ts";
import { ENTITY_TYPES } from "../../src/entities/vocabulary.ts";
import { silentLogger } from "../../src/log.ts";

const asOf = new Date("2026-11-20T00:00:00Z");

describe("the default world", async () => {
  const ctx = await generateWorld({ scale: 60_000, seed: 11, asOf }, silentLogger);
  const { world } = ctx;
  const entities = [...world.entities.values()];
  const count = (type: string) => entities.filter((e) => e.type === type).length;

  test("meets the plan of its scale across all seven entity types", () => {
    const plan = planScale(60_000);
    const total = ENTITY_TYPES.reduce((sum, t) => sum + count(t), 0);
    expect(total).toBeGreaterThanOrEqual(plan.totalEntities * 0.98);
    expect(count("Protocol")).toBeGreaterThanOrEqual(plan.protocols);
    expect(count("Token")).toBeGreaterThanOrEqual(plan.tokens);
    expect(count("Pool")).toBeGreaterThanOrEqual(plan.pools * 0.98);
    expect(count("Person")).toBe(plan.persons);
    expect(count("Organization")).toBeGreaterThanOrEqual(plan.organizations);
    for (const type of ENTITY_TYPES) expect(count(type), type).toBeGreaterThan(0);
  });

  test("the full scale plans the published size", () => {
    const plan = planScale("full");
    expect(plan.protocols).toBeGreaterThanOrEqual(8200);
    const chains = count("Chain");
    expect(plan.tokens + plan.pools + plan.persons + plan.organizations + plan.protocols + plan.exchanges + chains).toBeGreaterThanOrEqual(586_000);
  });

  test("is whole: every fact's subject, target and source exists", () => {
    expect(world.validate()).toEqual([]);
  });

  test("every fact names its source; generated facts name the synthetic source", () => {
    const synthetic = world.sources.get(SYNTHETIC_SOURCE)!;
    expect(synthetic.synthetic).toBe(true);
    for (const source of world.facts.source) expect(world.sources.has(source)).toBe(true);
    const real = [...world.sources.values()].filter((s) => !s.synthetic);
    expect(real.length).toBeGreaterThanOrEqual(8);
    for (const s of real) expect(s.license).toMatch(/MIT|ISC|Apache-2.0/);
    const generated = entities.filter((e) => e.type === "Protocol" && e.name !== "Aave" && !e.name.startsWith("Aave "));
    expect(generated.length).toBeGreaterThan(0);
    for (const p of generated) {
      expect(p.source).toBe(SYNTHETIC_SOURCE);
    }
  });

  test("real reference entities are present with their links", () => {
    const byName = (name: string, type: string) => entities.find((e) => e.name === name && e.type === type);
    const ethereum = byName("Ethereum", "Chain")!;
    const arbitrum = byName("Arbitrum One", "Chain")!;
    expect(ethereum.source).not.toBe(SYNTHETIC_SOURCE);
    const facts = world.facts;
    const has = (s: string, p: string, o: string) => facts.subject.some((x, i) => x === s && facts.predicate[i] === p && facts.object[i] === o);
    expect(has(arbitrum.id, "parentChain", ethereum.id)).toBe(true);
    expect(byName("Aave", "Protocol")).toBeDefined();
    expect(entities.some((e) => e.type === "Token" && e.symbol === "USDC" && e.labels.includes("Stablecoin"))).toBe(true);
    expect(entities.filter((e) => e.type === "Exchange" && e.source === "ccxt").length).toBeGreaterThan(50);
  });

  test("has the structures signals look for: shared investors, shared developers, vesting", () => {
    const investorsOf = new Map<string, Set<string>>();
    const { subject, predicate, object } = world.facts;
    for (let i = 0; i < subject.length; i++) {
      if (predicate[i] !== "investedIn") continue;
      const set = investorsOf.get(object[i]!) ?? new Set();
      set.add(subject[i]!);
      investorsOf.set(object[i]!, set);
    }
    const funded = [...investorsOf.entries()].filter(([, s]) => s.size >= 3);
    let sharedPairs = 0;
    for (let a = 0; a < Math.min(funded.length, 300); a++) {
      for (let b = a + 1; b < Math.min(funded.length, 300); b++) {
        let shared = 0;
        for (const x of funded[a]![1]) if (funded[b]![1].has(x)) shared++;
        if (shared >= 3) sharedPairs++;
      }
    }
    expect(sharedPairs).toBeGreaterThan(0);
    const reposOf = new Map<string, number>();
    for (let i = 0; i < subject.length; i++) if (predicate[i] === "contributesTo") reposOf.set(subject[i]!, (reposOf.get(subject[i]!) ?? 0) + 1);
    expect([...reposOf.values()].some((n) => n >= 5)).toBe(true);
    expect(ctx.schedules.length).toBeGreaterThan(0);
    expect(world.changes.some((c) => c.operation === "CREATE") && world.changes.some((c) => c.operation === "UPDATE")).toBe(true);
  });

  test("listings: the large generated tokens trade on many venues, the long tail on few", () => {
    // Ranked among every token, the real ones (listed on no real venue by the demo) took the top
    // ranks and left every generated token the long tail's one or two venues.
    const venues = new Map<string, number>();
    const { subject, predicate } = world.facts;
    for (let i = 0; i < subject.length; i++) if (predicate[i] === "listedOn") venues.set(subject[i]!, (venues.get(subject[i]!) ?? 0) + 1);
    const generated = ctx.tokens.filter((t) => world.entities.get(t.id)?.source === SYNTHETIC_SOURCE).sort((a, b) => b.marketCap - a.marketCap);
    const count = (from: number, to: number) => generated.slice(from, to).map((t) => venues.get(t.id) ?? 0);
    expect(Math.min(...count(0, 50))).toBeGreaterThanOrEqual(15);
    expect(Math.min(...count(50, 1000))).toBeGreaterThanOrEqual(3);
    const tail = count(5000, generated.length);
    expect(tail.length).toBeGreaterThan(0);
    expect(Math.max(...tail)).toBeLessThanOrEqual(2);
  });

  test("the same seed gives the same world; another seed another", async () => {
    const again = await generateWorld({ scale: 60_000, seed: 11, asOf }, silentLogger);
    expect([...again.world.entities.keys()]).toEqual([...world.entities.keys()]);
    expect(again.world.facts.object).toEqual(world.facts.object);
    const other = await generateWorld({ scale: 60_000, seed: 12, asOf }, silentLogger);
    expect([...other.world.entities.keys()]).not.toEqual([...world.entities.keys()]);
  });
});
