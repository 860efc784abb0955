/**
 * unlock-pressure on hand-made unlock schedules: unlocks in D+1..D+30 as a share of circulating
 * supply, banded 5 / 8 / 15 % (docs/spec.md §2.4: above 5%; high above 15%, moderate 8-15%).
 */
import detector from "../../../src/signals/detectors/unlock-pressure.ts";
import { type Case, type Row, day, detectorTable } from "../../support/detector-inputs.ts";

const TOKEN = "token/zrv";

/** An unlock of `share` of circulating supply on D+`inDays`, worth 1M USD per percent. */
function unlock(share: number | null, inDays = 10, group: string | null = "investors"): Row<"unlocks"> {
  return { entity_id: TOKEN, date: day(-inDays), schedule_id: "vesting-schedule/zrv-investors", allocation_group: group, amount: 1, valueUsd: (share ?? 0) * 100e6, shareOfSupply: (share ?? 0) / 2, shareOfCirculating: share };
}

const cases: Case[] = [
  {
    name: "10% and 6% unlocking within 30 days: high, listing the events",
    inputs: { series: { unlocks: [unlock(0.1, 5, "team"), unlock(0.06, 20)] } },
    expect: [
      {
        entities: [TOKEN],
        severity: "high",
        value: 16,
        evidence: {
          metric: "upcoming_unlocks_30d_pct_of_circulating",
          window: { from: day(-1), to: day(-30) },
          unlock_value_usd: 16e6,
          events: [
            { date: day(-5), allocation_group: "team", share_of_circulating_pct: 10, value_usd: 10e6 },
            { date: day(-20), allocation_group: "investors", share_of_circulating_pct: 6, value_usd: 6e6 },
          ],
        },
      },
    ],
  },
  { name: "just over 15%: high", inputs: { series: { unlocks: [unlock(0.1501)] } }, expect: [{ entities: [TOKEN], severity: "high", value: 15.01 }] },
  { name: "just under 15%: moderate", inputs: { series: { unlocks: [unlock(0.1499)] } }, expect: [{ entities: [TOKEN], severity: "moderate", value: 14.99 }] },
  { name: "just over 8%: moderate", inputs: { series: { unlocks: [unlock(0.0801)] } }, expect: [{ entities: [TOKEN], severity: "moderate" }] },
  { name: "just under 8%: low", inputs: { series: { unlocks: [unlock(0.0799)] } }, expect: [{ entities: [TOKEN], severity: "low" }] },
  { name: "just over 5%: low", inputs: { series: { unlocks: [unlock(0.0501)] } }, expect: [{ entities: [TOKEN], severity: "low", value: 5.01 }] },
  { name: "just under 5%: nothing", inputs: { series: { unlocks: [unlock(0.0499)] } }, expect: [] },
  { name: "an unlock on D+30 is inside the window", inputs: { series: { unlocks: [unlock(0.2, 30)] } }, expect: [{ entities: [TOKEN], severity: "high" }] },
  { name: "an unlock on D+31 is outside it", inputs: { series: { unlocks: [unlock(0.2, 31)] } }, expect: [] },
  { name: "an unlock on the as-of day has happened: not upcoming", inputs: { series: { unlocks: [unlock(0.2, 0)] } }, expect: [] },
  { name: "past unlocks: nothing", inputs: { series: { unlocks: [unlock(0.2, -3)] } }, expect: [] },
  { name: "an event without a share of circulating supply adds nothing", inputs: { series: { unlocks: [unlock(0.06), unlock(null, 12)] } }, expect: [{ entities: [TOKEN], severity: "low", value: 6 }] },
  { name: "no unlock schedules: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
