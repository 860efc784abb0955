/**
 * yield-sustainability on hand-made pool rows: mean reward APY / mean base APY over D-6..D, banded
 * 5 / 8 / 15 x (docs/spec.md §2.4: reward above 5x base; high above 15x, moderate 8-15x, low 5-8x), screened
 * at 500K USD TVL.
 */
import detector from "../../../src/signals/detectors/yield-sustainability.ts";
import { type Case, type Row, daily, day, detectorTable } from "../../support/detector-inputs.ts";

const POOL = "pool/velo-op-usdc";
const ENTITIES = [POOL, "protocol/velodrome"];

/** A week of a pool paying `ratio` times its 2% base APY in rewards. */
function pool(ratio: number, over: Row<"pool"> = {}): Row<"pool">[] {
  return daily<"pool">(6, 0, () => ({ entity_id: POOL, protocol_id: "protocol/velodrome", tvlUsd: 3_000_000, apyBase: 2, apyReward: 2 * ratio, ...over }));
}

const cases: Case[] = [
  {
    name: "rewards 16x the base: high, with both means and the TVL",
    inputs: { series: { pool: pool(16) } },
    expect: [{ entities: ENTITIES, severity: "high", value: 16, evidence: { metric: "reward_to_base_apy_ratio", apy_reward: 32, apy_base: 2, tvl_usd: 3_000_000, protocol_id: "protocol/velodrome" } }],
  },
  { name: "just over 15x: high", inputs: { series: { pool: pool(15.01) } }, expect: [{ entities: ENTITIES, severity: "high", value: 15.01 }] },
  { name: "just under 15x: moderate", inputs: { series: { pool: pool(14.99) } }, expect: [{ entities: ENTITIES, severity: "moderate" }] },
  { name: "just over 8x: moderate", inputs: { series: { pool: pool(8.01) } }, expect: [{ entities: ENTITIES, severity: "moderate" }] },
  { name: "just under 8x: low", inputs: { series: { pool: pool(7.99) } }, expect: [{ entities: ENTITIES, severity: "low" }] },
  { name: "just over 5x: low", inputs: { series: { pool: pool(5.01) } }, expect: [{ entities: ENTITIES, severity: "low", value: 5.01 }] },
  { name: "just under 5x: nothing", inputs: { series: { pool: pool(4.99) } }, expect: [] },
  {
    name: "the ratio of the week's means, not of one day: a single day's 100x among 1x days is 15.14x",
    inputs: { series: { pool: pool(1).map((r) => (r.date === day(3) ? { ...r, apyReward: 200 } : r)) } },
    expect: [{ entities: ENTITIES, severity: "high", value: (6 * 2 + 200) / 7 / 2 }],
  },
  { name: "a row from D-7 is outside the week", inputs: { series: { pool: [...pool(1), { entity_id: POOL, date: day(7), tvlUsd: 3_000_000, apyBase: 2, apyReward: 10_000 }] } }, expect: [] },
  { name: "under 500K USD TVL on the latest day: fails the size floor", inputs: { series: { pool: pool(20).map((r) => (r.date === day(0) ? { ...r, tvlUsd: 400_000 } : r)) } }, expect: [{ entities: ENTITIES, severity: "high", failed: ["below_size_floor"] }] },
  { name: "a zero base APY: nothing (no ratio)", inputs: { series: { pool: pool(20, { apyBase: 0, apyReward: 40 }) } }, expect: [] },
  { name: "null base APYs: nothing", inputs: { series: { pool: pool(20, { apyBase: null }) } }, expect: [] },
  { name: "no pool series: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
