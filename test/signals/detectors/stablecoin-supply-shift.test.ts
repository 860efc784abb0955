/**
 * stablecoin-supply-shift on hand-made stablecoin rows: circulating supply on the as-of day against
 * seven days before, banded 10 / 15 / 30 % (docs/spec.md §2.4: above 10%; high above 30%, moderate 15-30%),
 * screened at 1M USD circulating (the larger of the two days).
 */
import detector from "../../../src/signals/detectors/stablecoin-supply-shift.ts";
import { type Case, type Row, day, detectorTable } from "../../support/detector-inputs.ts";

const COIN = "token/usdx";

/** The coin at `before` USD seven days ago and `now` on the as-of day. */
function supply(before: number | null, now: number): Row<"stablecoin">[] {
  const rows: Row<"stablecoin">[] = [{ entity_id: COIN, date: day(0), price: 1, circulatingUsd: now, pegCurrency: "USD" }];
  if (before !== null) rows.push({ entity_id: COIN, date: day(7), price: 1, circulatingUsd: before, pegCurrency: "USD" });
  return rows;
}
const M = 1_000_000;

const cases: Case[] = [
  {
    name: "100M to 140M in a week: high, a mint",
    inputs: { series: { stablecoin: supply(100 * M, 140 * M) } },
    expect: [{ entities: [COIN], severity: "high", value: 40, evidence: { metric: "supply_change_7d_pct", direction: "mint", circulating_usd: 140 * M, circulating_usd_week_before: 100 * M } }],
  },
  { name: "just over 30%: high", inputs: { series: { stablecoin: supply(100 * M, 130.01 * M) } }, expect: [{ entities: [COIN], severity: "high", value: 30.01 }] },
  { name: "just under 30%: moderate", inputs: { series: { stablecoin: supply(100 * M, 129.99 * M) } }, expect: [{ entities: [COIN], severity: "moderate", value: 29.99 }] },
  { name: "just over 15%: moderate", inputs: { series: { stablecoin: supply(100 * M, 115.01 * M) } }, expect: [{ entities: [COIN], severity: "moderate" }] },
  { name: "just under 15%: low", inputs: { series: { stablecoin: supply(100 * M, 114.99 * M) } }, expect: [{ entities: [COIN], severity: "low" }] },
  { name: "just over 10%: low", inputs: { series: { stablecoin: supply(100 * M, 110.01 * M) } }, expect: [{ entities: [COIN], severity: "low", value: 10.01 }] },
  { name: "just under 10%: nothing", inputs: { series: { stablecoin: supply(100 * M, 109.99 * M) } }, expect: [] },
  { name: "100M to 60M: high, a redemption", inputs: { series: { stablecoin: supply(100 * M, 60 * M) } }, expect: [{ entities: [COIN], severity: "high", value: 40, evidence: { direction: "redemption" } }] },
  { name: "600K to 900K (50%): fails the 1M size floor", inputs: { series: { stablecoin: supply(600_000, 900_000) } }, expect: [{ entities: [COIN], severity: "high", failed: ["below_size_floor"] }] },
  { name: "1.2M redeemed to 0.5M: the week before's supply passes the floor", inputs: { series: { stablecoin: supply(1_200_000, 500_000) } }, expect: [{ entities: [COIN], severity: "high", failed: [] }] },
  { name: "no row seven days before: nothing", inputs: { series: { stablecoin: supply(null, 140 * M) } }, expect: [] },
  { name: "zero supply seven days before: nothing (no ratio)", inputs: { series: { stablecoin: supply(0, 140 * M) } }, expect: [] },
];

detectorTable(detector, cases);
