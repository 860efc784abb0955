/**
 * earnings-health on hand-made protocol rows: the mean daily loss (negative earnings) over D-29..D,
 * banded 10K / 50K / 100K USD a day, high only when worsening (10% deeper than D-59..D-30), as
 * docs/spec.md §2.4 has it: "daily losses above 10K USD; high: above 100K/day and worsening".
 */
import detector from "../../../src/signals/detectors/earnings-health.ts";
import { type Case, type Row, daily, detectorTable } from "../../support/detector-inputs.ts";

const P = "protocol/zorvex";

/** Losing `before` USD a day over D-59..D-30 (null: no rows then) and `now` over D-29..D. */
function losses(now: number, before: number | null = 50_000): Row<"protocol">[] {
  return daily<"protocol">(before === null ? 29 : 59, 0, (_d, n) => ({ entity_id: P, revenueUsd: 1_000, earningsUsd: -(n >= 30 ? before! : now) }));
}

const cases: Case[] = [
  {
    name: "losing 150K a day, from 50K: high, worsening",
    inputs: { series: { protocol: losses(150_000) } },
    expect: [{ entities: [P], severity: "high", value: 150_000, evidence: { metric: "daily_loss_usd", unit: "USD/day", trend: "worsening", daily_loss_prior_30d_usd: 50_000 } }],
  },
  { name: "just over 100K a day, worsening: high", inputs: { series: { protocol: losses(100_001) } }, expect: [{ entities: [P], severity: "high", value: 100_001 }] },
  { name: "just under 100K: moderate", inputs: { series: { protocol: losses(99_999) } }, expect: [{ entities: [P], severity: "moderate", value: 99_999 }] },
  { name: "just over 50K: moderate", inputs: { series: { protocol: losses(50_001, 10_000) } }, expect: [{ entities: [P], severity: "moderate" }] },
  { name: "just under 50K: low", inputs: { series: { protocol: losses(49_999, 10_000) } }, expect: [{ entities: [P], severity: "low" }] },
  { name: "just over 10K: low", inputs: { series: { protocol: losses(10_001, 5_000) } }, expect: [{ entities: [P], severity: "low", value: 10_001 }] },
  { name: "just under 10K: nothing", inputs: { series: { protocol: losses(9_999, 5_000) } }, expect: [] },
  {
    name: "150K a day, down from 200K: improving, capped at moderate",
    inputs: { series: { protocol: losses(150_000, 200_000) } },
    expect: [{ entities: [P], severity: "moderate", evidence: { trend: "improving", note: "capped at moderate: losses are improving, not worsening" } }],
  },
  { name: "150K a day from 140K (within 10%): steady, capped at moderate", inputs: { series: { protocol: losses(150_000, 140_000) } }, expect: [{ entities: [P], severity: "moderate", evidence: { trend: "steady" } }] },
  { name: "just over 10% deeper (110,001 from 100K): worsening, high", inputs: { series: { protocol: losses(110_001, 100_000) } }, expect: [{ entities: [P], severity: "high", evidence: { trend: "worsening" } }] },
  { name: "just under 10% deeper (109,999 from 100K): steady, moderate", inputs: { series: { protocol: losses(109_999, 100_000) } }, expect: [{ entities: [P], severity: "moderate", evidence: { trend: "steady" } }] },
  { name: "no data for the 30 days before: counted as no loss then, so worsening", inputs: { series: { protocol: losses(150_000, null) } }, expect: [{ entities: [P], severity: "high", evidence: { trend: "worsening", daily_loss_prior_30d_usd: 0 } }] },
  { name: "a profitable protocol: nothing", inputs: { series: { protocol: losses(-20_000, -10_000) } }, expect: [] },
  { name: "zero earnings: nothing", inputs: { series: { protocol: losses(0, 0) } }, expect: [] },
  { name: "no protocol series: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
