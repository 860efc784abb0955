/**
 * cluster-unlock-risk on hand-made graph facts, unlocks and market caps: of a token and the tokens
 * sharing 3+ investors with it, those unlocking 1% or more of their market cap in D+1..D+30 (two or
 * more), their combined unlocks against their combined market cap, banded 5 / 8 / 15 %
 * (docs/spec.md §2.4: high combined above 15%, moderate 8-15%).
 */
import detector from "../../../src/signals/detectors/cluster-unlock-risk.ts";
import { type Case, type Inputs, type Row, day, detectorTable } from "../../support/detector-inputs.ts";

type Fact = NonNullable<Inputs["facts"]>[number];
const FUNDS = ["organization/fund-1", "organization/fund-2", "organization/fund-3"];

/** Tokens token/<name>, each issued by protocol/<name>, backed by the first `shared` of FUNDS. */
function backed(names: string[], shared = 3): Fact[] {
  return names.flatMap((name): Fact[] => [[`token/${name}`, "issuedBy", `protocol/${name}`], ...FUNDS.slice(0, shared).map((f): Fact => [f, "investedIn", `protocol/${name}`])]);
}
/** A token's market cap (100M USD) on D-`at` and its unlock of `pct` % of it on D+10. */
function figures(name: string, pct: number | null, at = 1, cap: number | null = 100e6): { token: Row<"token">[]; unlocks: Row<"unlocks">[] } {
  return {
    token: [{ entity_id: `token/${name}`, date: day(at), marketCap: cap, currentPrice: 1 }],
    unlocks: pct === null ? [] : [{ entity_id: `token/${name}`, date: day(-10), allocation_group: "investors", valueUsd: (pct / 100) * 100e6, shareOfCirculating: pct / 100 }],
  };
}
function inputs(facts: Fact[], ...each: ReturnType<typeof figures>[]): Inputs {
  return { facts, series: { token: each.flatMap((f) => f.token), unlocks: each.flatMap((f) => f.unlocks) } };
}
const AB = ["token/a", "token/b"];

const cases: Case[] = [
  {
    name: "two co-invested tokens unlocking 20% and 12%: high, with each member's figures",
    inputs: inputs(backed(["a", "b"]), figures("a", 20), figures("b", 12)),
    expect: [
      {
        entities: AB,
        severity: "high",
        value: 16,
        evidence: {
          metric: "cluster_upcoming_unlock_value_pct_of_market_cap",
          seed: "token/a",
          cluster_size: 2,
          members: [{ token: "token/a", unlock_value_usd: 20e6, market_cap_usd: 100e6 }, { token: "token/b", unlock_value_usd: 12e6, market_cap_usd: 100e6 }],
          unlock_value_usd: 32e6,
          market_cap_usd: 200e6,
        },
      },
    ],
  },
  { name: "just over 15% combined: high", inputs: inputs(backed(["a", "b"]), figures("a", 15.02), figures("b", 15)), expect: [{ entities: AB, severity: "high", value: 15.01 }] },
  { name: "just under 15%: moderate", inputs: inputs(backed(["a", "b"]), figures("a", 14.98), figures("b", 15)), expect: [{ entities: AB, severity: "moderate", value: 14.99 }] },
  { name: "just over 8%: moderate", inputs: inputs(backed(["a", "b"]), figures("a", 8.02), figures("b", 8)), expect: [{ entities: AB, severity: "moderate" }] },
  { name: "just under 8%: low", inputs: inputs(backed(["a", "b"]), figures("a", 7.98), figures("b", 8)), expect: [{ entities: AB, severity: "low" }] },
  { name: "just over 5%: low", inputs: inputs(backed(["a", "b"]), figures("a", 5.02), figures("b", 5)), expect: [{ entities: AB, severity: "low", value: 5.01 }] },
  { name: "just under 5%: nothing", inputs: inputs(backed(["a", "b"]), figures("a", 4.98), figures("b", 5)), expect: [] },
  {
    name: "a co-invested token unlocking just under 1% of its cap is not a member",
    inputs: inputs(backed(["a", "b", "c"]), figures("a", 20), figures("b", 12), figures("c", 0.99)),
    expect: [{ entities: AB, severity: "high", value: 16, evidence: { cluster_size: 3 } }],
  },
  {
    name: "one unlocking exactly 1% of its cap is a member",
    inputs: inputs(backed(["a", "b", "c"]), figures("a", 20), figures("b", 12), figures("c", 1)),
    expect: [{ entities: ["token/a", "token/b", "token/c"], severity: "moderate", value: 11 }],
  },
  { name: "only one member unlocking: nothing", inputs: inputs(backed(["a", "b"]), figures("a", 30), figures("b", null)), expect: [] },
  { name: "tokens sharing two investors are no cluster: nothing", inputs: inputs(backed(["a", "b"], 2), figures("a", 20), figures("b", 20)), expect: [] },
  { name: "a member without a market cap is left out: nothing", inputs: inputs(backed(["a", "b"]), figures("a", 20), figures("b", 20, 1, null)), expect: [] },
  { name: "a market cap older than a week is not read: nothing", inputs: inputs(backed(["a", "b"]), figures("a", 20), figures("b", 20, 7)), expect: [] },
  { name: "market caps 5 days old: found, and stale (older than 3 days)", inputs: inputs(backed(["a", "b"]), figures("a", 20, 5), figures("b", 20, 5)), expect: [{ entities: AB, severity: "high", failed: ["stale"] }] },
  { name: "no graph: nothing", inputs: { series: inputs([], figures("a", 20), figures("b", 20)).series }, expect: [] },
];

detectorTable(detector, cases);
