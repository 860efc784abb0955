/**
 * treasury-health on hand-made treasury rows: the own-token share of the as-of day, banded
 * 80 / 90 / 95 %, raised to high when the other reserves last under 90 days (docs/spec.md §2.4:
 * "own-token concentration above 80% and runway; high: own tokens above 95% or runway under 90
 * days"), screened at 1M USD of treasury.
 */
import detector from "../../../src/signals/detectors/treasury-health.ts";
import { type Case, type Row, day, detectorTable } from "../../support/detector-inputs.ts";

const DAO = "organization/zorvex-dao";
const TOKEN = "token/zrv";

/** A 100M USD treasury holding `share` of it in its own token; reserves last a year unless said. */
function treasury(share: number, over: Row<"treasury"> = {}): Row<"treasury">[] {
  const total = 100e6;
  const own = total * share;
  return [{ entity_id: DAO, date: day(0), token_id: TOKEN, totalUsd: total, ownTokenUsd: own, stablecoinUsd: (total - own) / 2, otherUsd: (total - own) / 2, ownTokenShare: share, monthlyExpensesUsd: ((total - own) / 365) * 30, ...over }];
}

const cases: Case[] = [
  {
    name: "96% in its own token: high, with the runway and the holdings",
    inputs: { series: { treasury: treasury(0.96) } },
    expect: [{ entities: [DAO, TOKEN], severity: "high", value: 96, evidence: { metric: "own_token_share_pct", runway_days: 365, total_usd: 100e6, own_token_usd: 96e6, token_id: TOKEN } }],
  },
  { name: "just over 95%: high", inputs: { series: { treasury: treasury(0.9501) } }, expect: [{ entities: [DAO, TOKEN], severity: "high", value: 95.01 }] },
  { name: "just under 95%: moderate", inputs: { series: { treasury: treasury(0.9499) } }, expect: [{ entities: [DAO, TOKEN], severity: "moderate", value: 94.99 }] },
  { name: "just over 90%: moderate", inputs: { series: { treasury: treasury(0.9001) } }, expect: [{ entities: [DAO, TOKEN], severity: "moderate" }] },
  { name: "just under 90%: low", inputs: { series: { treasury: treasury(0.8999) } }, expect: [{ entities: [DAO, TOKEN], severity: "low" }] },
  { name: "just over 80%: low", inputs: { series: { treasury: treasury(0.8001) } }, expect: [{ entities: [DAO, TOKEN], severity: "low", value: 80.01 }] },
  { name: "just under 80% with a long runway: nothing", inputs: { series: { treasury: treasury(0.7999) } }, expect: [] },
  {
    name: "half in its own token but 75 days of runway: raised to high, and the evidence says why",
    inputs: { series: { treasury: treasury(0.5, { stablecoinUsd: 500_000, otherUsd: 500_000, monthlyExpensesUsd: 400_000 }) } },
    expect: [{ entities: [DAO, TOKEN], severity: "high", value: 50, evidence: { runway_days: 75, note: "raised to high: runway under 90 days (75 days)" } }],
  },
  { name: "a runway of exactly 90 days is not under 90: nothing", inputs: { series: { treasury: treasury(0.5, { stablecoinUsd: 150_000, otherUsd: 150_000, monthlyExpensesUsd: 100_000 }) } }, expect: [] },
  {
    name: "85% in its own token with exactly 90 days of runway: low, not raised",
    inputs: { series: { treasury: treasury(0.85, { stablecoinUsd: 150_000, otherUsd: 150_000, monthlyExpensesUsd: 100_000 }) } },
    expect: [{ entities: [DAO, TOKEN], severity: "low", evidence: { runway_days: 90 } }],
  },
  {
    name: "a runway just under 90 days (89.97): high",
    inputs: { series: { treasury: treasury(0.5, { stablecoinUsd: 150_000, otherUsd: 149_900, monthlyExpensesUsd: 100_000 }) } },
    expect: [{ entities: [DAO, TOKEN], severity: "high", evidence: { runway_days: 90 } }],
  },
  { name: "no monthly expenses: no runway, only the share is scored", inputs: { series: { treasury: treasury(0.85, { monthlyExpensesUsd: null }) } }, expect: [{ entities: [DAO, TOKEN], severity: "low", evidence: { runway_days: null } }] },
  { name: "zero monthly expenses: no runway either", inputs: { series: { treasury: treasury(0.5, { monthlyExpensesUsd: 0 }) } }, expect: [] },
  { name: "a treasury under 1M USD: fails the size floor", inputs: { series: { treasury: treasury(0.97, { totalUsd: 999_999 }) } }, expect: [{ entities: [DAO, TOKEN], severity: "high", failed: ["below_size_floor"] }] },
  { name: "a holder without a token names itself only", inputs: { series: { treasury: treasury(0.97, { token_id: null }) } }, expect: [{ entities: [DAO], severity: "high", evidence: { token_id: null } }] },
  { name: "concentrated the day before only: nothing", inputs: { series: { treasury: treasury(0.99, { date: day(1) }) } }, expect: [] },
  { name: "no treasury series: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
