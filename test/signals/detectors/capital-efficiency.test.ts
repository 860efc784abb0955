/**
 * capital-efficiency on hand-made protocol rows: fee growth minus TVL growth (mean of D-6..D against
 * mean of D-36..D-7), banded 20 / 35 / 50 points (docs/spec.md §2.4: "high: fees outpacing TVL by
 * more than 50%"), screened at 1K USD a day of fees.
 */
import detector from "../../../src/signals/detectors/capital-efficiency.ts";
import { type Case, type Row, daily, day, detectorTable } from "../../support/detector-inputs.ts";

const P = "protocol/zorvex";

/** Fees and TVL over D-36..D-7 (`feesBefore`, `tvlBefore`) and over D-6..D (`feesNow`, `tvlNow`). */
function protocol(feesNow: number, tvlNow = 100e6, feesBefore = 10_000, tvlBefore = 100e6): Row<"protocol">[] {
  return daily<"protocol">(36, 0, (_d, n) => ({ entity_id: P, feesUsd: n >= 7 ? feesBefore : feesNow, tvlUsd: n >= 7 ? tvlBefore : tvlNow }));
}

const cases: Case[] = [
  {
    name: "fees up 60% on flat TVL: high, with both growths and the week's fees",
    inputs: { series: { protocol: protocol(16_000) } },
    expect: [{ entities: [P], severity: "high", value: 60, evidence: { metric: "fees_growth_minus_tvl_growth_pp", fees_growth_pct: 60, tvl_growth_pct: 0, fees_7d_mean_usd: 16_000, tvl_usd: 100e6 } }],
  },
  { name: "just over 50 points: high", inputs: { series: { protocol: protocol(15_001) } }, expect: [{ entities: [P], severity: "high", value: 50.01 }] },
  { name: "just under 50 points: moderate", inputs: { series: { protocol: protocol(14_999) } }, expect: [{ entities: [P], severity: "moderate", value: 49.99 }] },
  { name: "just over 35 points: moderate", inputs: { series: { protocol: protocol(13_501) } }, expect: [{ entities: [P], severity: "moderate" }] },
  { name: "just under 35 points: low", inputs: { series: { protocol: protocol(13_499) } }, expect: [{ entities: [P], severity: "low" }] },
  { name: "just over 20 points: low", inputs: { series: { protocol: protocol(12_001) } }, expect: [{ entities: [P], severity: "low", value: 20.01 }] },
  { name: "just under 20 points: nothing", inputs: { series: { protocol: protocol(11_999) } }, expect: [] },
  { name: "fees up 80% while TVL rose 40%: 40 points, moderate", inputs: { series: { protocol: protocol(18_000, 140e6) } }, expect: [{ entities: [P], severity: "moderate", value: 40, evidence: { tvl_growth_pct: 40 } }] },
  { name: "fees flat while TVL fell by half: 50 points, high", inputs: { series: { protocol: protocol(10_000, 50e6) } }, expect: [{ entities: [P], severity: "high", value: 50 }] },
  { name: "under 1K USD of fees a day: fails the size floor", inputs: { series: { protocol: protocol(900, 100e6, 500) } }, expect: [{ entities: [P], severity: "high", failed: ["below_size_floor"] }] },
  { name: "no fees before: nothing (no growth)", inputs: { series: { protocol: protocol(16_000, 100e6, 0) } }, expect: [] },
  { name: "no TVL before: nothing", inputs: { series: { protocol: protocol(16_000, 100e6, 10_000, 0) } }, expect: [] },
  { name: "no rows in the last week: nothing", inputs: { series: { protocol: protocol(16_000).filter((r) => r.date! < day(6)) } }, expect: [] },
  { name: "no protocol series: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
