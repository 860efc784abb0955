/**
 * revenue-momentum on hand-made protocol rows: mean daily revenue over D-29..D against D-119..D-30,
 * banded 20 / 50 / 100 %, high only on a strong prior trend (D-59..D-30 at least 10% above
 * D-119..D-90), as docs/spec.md §2.4 has it: "high: above 100% in 30 days on strong 90-day trend".
 * Screened at 1K USD a day of prior revenue.
 */
import detector from "../../../src/signals/detectors/revenue-momentum.ts";
import { type Case, type Row, daily, detectorTable } from "../../support/detector-inputs.ts";

const P = "protocol/zorvex";

/**
 * Revenue a day: `early` over D-119..D-60 (sixty days), `late` over D-59..D-30, `recent` over
 * D-29..D. With early 9,000 and late 12,000 the prior 90 days average 10,000 and trend +33%.
 */
function revenue(recent: number | null, early = 9_000, late = 12_000, last = 0): Row<"protocol">[] {
  return daily<"protocol">(119, last, (_d, n) => ({ entity_id: P, revenueUsd: n >= 60 ? early : n >= 30 ? late : recent }));
}

const cases: Case[] = [
  {
    name: "revenue tripling on a rising trend: high, with both means and the trend",
    inputs: { series: { protocol: revenue(30_000) } },
    expect: [{ entities: [P], severity: "high", value: 200, evidence: { metric: "revenue_30d_vs_prior_90d_pct", revenue_30d_mean_usd: 30_000, revenue_prior_90d_mean_usd: 10_000, prior_trend_pct: 33.33 } }],
  },
  { name: "just over 100%: high", inputs: { series: { protocol: revenue(20_001) } }, expect: [{ entities: [P], severity: "high", value: 100.01 }] },
  { name: "just under 100%: moderate", inputs: { series: { protocol: revenue(19_999) } }, expect: [{ entities: [P], severity: "moderate", value: 99.99 }] },
  { name: "just over 50%: moderate", inputs: { series: { protocol: revenue(15_001) } }, expect: [{ entities: [P], severity: "moderate" }] },
  { name: "just under 50%: low", inputs: { series: { protocol: revenue(14_999) } }, expect: [{ entities: [P], severity: "low" }] },
  { name: "just over 20%: low", inputs: { series: { protocol: revenue(12_001) } }, expect: [{ entities: [P], severity: "low", value: 20.01 }] },
  { name: "just under 20%: nothing", inputs: { series: { protocol: revenue(11_999) } }, expect: [] },
  {
    name: "a prior trend just over 10% is strong: high",
    inputs: { series: { protocol: revenue(30_000, 10_000, 11_001) } },
    expect: [{ entities: [P], severity: "high", evidence: { prior_trend_pct: 10.01 } }],
  },
  {
    name: "a prior trend just under 10%: capped at moderate, and the evidence says why",
    inputs: { series: { protocol: revenue(30_000, 10_000, 10_999) } },
    expect: [{ entities: [P], severity: "moderate", evidence: { prior_trend_pct: 9.99, note: "capped at moderate: no strong 90-day trend before the jump (10.0%, 10% needed for high)" } }],
  },
  { name: "a flat prior: capped at moderate", inputs: { series: { protocol: revenue(40_000, 10_000, 10_000) } }, expect: [{ entities: [P], severity: "moderate", value: 300 }] },
  { name: "prior revenue under 1K USD a day: fails the size floor", inputs: { series: { protocol: revenue(3_000, 800, 1_000) } }, expect: [{ entities: [P], severity: "high", failed: ["below_size_floor"] }] },
  { name: "data ending three days ago: found, and stale", inputs: { series: { protocol: revenue(30_000, 9_000, 12_000, 3) } }, expect: [{ entities: [P], severity: "high", failed: ["stale"] }] },
  { name: "no prior revenue (zeros): nothing", inputs: { series: { protocol: revenue(30_000, 0, 0) } }, expect: [] },
  { name: "no revenue in the last 30 days (nulls): nothing", inputs: { series: { protocol: revenue(null) } }, expect: [] },
  { name: "no protocol series: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
