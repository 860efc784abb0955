/**
 * power-concentration on hand-made holder snapshots: the five largest holders' share of supply on
 * the latest holders day (within 14 days), banded 40 / 50 / 70 % (docs/spec.md §2.4: "high: top 5
 * holders above 70% of supply, moderate 50-70%"; the low band from 40% is the catalog's own).
 */
import detector from "../../../src/signals/detectors/power-concentration.ts";
import { type Case, type Row, day, detectorTable } from "../../support/detector-inputs.ts";

const TOKEN = "token/zrv";

/** Ten holders on day D-`at`, the first five holding `top5` of supply between them (the first twice each other's share). */
function holders(top5: number, at = 2): Row<"holders">[] {
  const shares = [2, 1, 1, 1, 1].map((w) => (w / 6) * top5);
  return Array.from({ length: 10 }, (_, i) => ({
    entity_id: TOKEN,
    date: day(at),
    rank: i + 1,
    wallet: `eip155:1:0x${String(i + 1).padStart(40, "0")}`,
    holder_id: i === 0 ? "organization/zorvex-labs" : null,
    balance: 1,
    shareOfSupply: i < 5 ? shares[i]! : 0.01,
  }));
}

const cases: Case[] = [
  {
    name: "the top 5 holding 75%: high, listing them",
    inputs: { series: { holders: holders(0.75) } },
    expect: [
      {
        entities: [TOKEN],
        severity: "high",
        value: 75,
        evidence: {
          metric: "top5_holder_share_pct",
          holders: [
            { rank: 1, wallet: `eip155:1:0x${"1".padStart(40, "0")}`, holder_id: "organization/zorvex-labs", share_pct: 25 },
            { rank: 2, holder_id: null, share_pct: 12.5 },
            { rank: 3, share_pct: 12.5 },
            { rank: 4, share_pct: 12.5 },
            { rank: 5, share_pct: 12.5 },
          ],
        },
      },
    ],
  },
  { name: "just over 70%: high", inputs: { series: { holders: holders(0.7001) } }, expect: [{ entities: [TOKEN], severity: "high", value: 70.01 }] },
  { name: "just under 70%: moderate", inputs: { series: { holders: holders(0.6999) } }, expect: [{ entities: [TOKEN], severity: "moderate", value: 69.99 }] },
  { name: "just over 50%: moderate", inputs: { series: { holders: holders(0.5001) } }, expect: [{ entities: [TOKEN], severity: "moderate" }] },
  { name: "just under 50%: low (the catalog's band below the spec's two, from 40%)", inputs: { series: { holders: holders(0.4999) } }, expect: [{ entities: [TOKEN], severity: "low", value: 49.99 }] },
  { name: "just over 40%: low", inputs: { series: { holders: holders(0.4001) } }, expect: [{ entities: [TOKEN], severity: "low" }] },
  { name: "just under 40%: nothing", inputs: { series: { holders: holders(0.3999) } }, expect: [] },
  { name: "holders ranked 6th and below are not counted", inputs: { series: { holders: holders(0.69).map((h) => (Number(h.rank) > 5 ? { ...h, shareOfSupply: 0.05 } : h)) } }, expect: [{ entities: [TOKEN], severity: "moderate", value: 69 }] },
  { name: "the latest day counts, not an earlier more concentrated one", inputs: { series: { holders: [...holders(0.9, 9), ...holders(0.55, 2)] } }, expect: [{ entities: [TOKEN], severity: "moderate", value: 55 }] },
  { name: "a latest day 12 days old: found, and stale", inputs: { series: { holders: holders(0.8, 12) } }, expect: [{ entities: [TOKEN], severity: "high", failed: ["stale"] }] },
  { name: "a latest day older than 14 days: nothing", inputs: { series: { holders: holders(0.8, 14) } }, expect: [] },
  { name: "null shares: nothing", inputs: { series: { holders: holders(0.8).map((h) => ({ ...h, shareOfSupply: null })) } }, expect: [] },
  { name: "no holder snapshots: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
