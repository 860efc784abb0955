/**
 * utilization-stress on hand-made lending rows: utilization of the as-of day, banded 85 / 90 / 95 %
 * (docs/spec.md §2.4: above 85%; high above 95%, moderate 90-95%), screened at 1M USD supplied.
 */
import detector from "../../../src/signals/detectors/utilization-stress.ts";
import { type Case, type Row, daily, day, detectorTable } from "../../support/detector-inputs.ts";

const MARKET = "lending-market/aave-usdc";
const ENTITIES = [MARKET, "protocol/aave", "token/usdc"];

/** A week of a market at `u` (the as-of day at `today`), 2M USD supplied. */
function market(today: number, u = 0.86, supply = 2_000_000): Row<"lending">[] {
  return daily<"lending">(6, 0, (_date, n) => {
    const util = n === 0 ? today : u;
    return { entity_id: MARKET, protocol_id: "protocol/aave", asset_id: "token/usdc", totalSupplyUsd: supply, totalBorrowUsd: supply * util, utilization: util, borrowApy: 7.5 };
  });
}

const cases: Case[] = [
  {
    name: "96% borrowed all week: high, with the week's count and the market's figures",
    inputs: { series: { lending: market(0.96, 0.9) } },
    expect: [
      {
        entities: ENTITIES,
        severity: "high",
        value: 96,
        evidence: { metric: "utilization_pct", unit: "%", days_above_85_pct: 7, total_supply_usd: 2_000_000, total_borrow_usd: 1_920_000, borrow_apy: 7.5, protocol_id: "protocol/aave", asset_id: "token/usdc" },
      },
    ],
  },
  { name: "just over 95%: high", inputs: { series: { lending: market(0.9501) } }, expect: [{ entities: ENTITIES, severity: "high", value: 95.01 }] },
  { name: "just under 95%: moderate", inputs: { series: { lending: market(0.9499) } }, expect: [{ entities: ENTITIES, severity: "moderate", value: 94.99 }] },
  { name: "just over 90%: moderate", inputs: { series: { lending: market(0.9001) } }, expect: [{ entities: ENTITIES, severity: "moderate" }] },
  { name: "just under 90%: low", inputs: { series: { lending: market(0.8999) } }, expect: [{ entities: ENTITIES, severity: "low" }] },
  { name: "just over 85%: low, counting only the days at or above 85%", inputs: { series: { lending: market(0.8501, 0.5) } }, expect: [{ entities: ENTITIES, severity: "low", evidence: { days_above_85_pct: 1 } }] },
  { name: "just under 85%: nothing", inputs: { series: { lending: market(0.8499, 0.99) } }, expect: [] },
  {
    name: "under 1M USD supplied: found, and fails the size floor",
    inputs: { series: { lending: market(0.97, 0.9, 999_999) } },
    expect: [{ entities: ENTITIES, severity: "high", failed: ["below_size_floor"] }],
  },
  {
    name: "a market without protocol and asset names itself only; a null borrow rate stays null",
    inputs: { series: { lending: market(0.92).map((r) => ({ ...r, protocol_id: null, asset_id: null, borrowApy: null })) } },
    expect: [{ entities: [MARKET], severity: "moderate", evidence: { borrow_apy: null, protocol_id: null } }],
  },
  { name: "no row on the as-of day (stressed the day before): nothing", inputs: { series: { lending: market(0.99).filter((r) => r.date !== day(0)) } }, expect: [] },
  { name: "a null utilization on the as-of day: nothing", inputs: { series: { lending: market(0.99).map((r) => (r.date === day(0) ? { ...r, utilization: null } : r)) } }, expect: [] },
  { name: "zero utilization and zero supply: nothing", inputs: { series: { lending: market(0, 0, 0) } }, expect: [] },
  { name: "no lending series at all: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
