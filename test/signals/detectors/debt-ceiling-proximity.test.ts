/**
 * debt-ceiling-proximity on hand-made lending rows: borrowing / debt ceiling on the as-of day, banded
 * 85 / 90 / 95 % (docs/spec.md §2.4: high above 95%, moderate 90-95%, low 85-90%), screened at 1M USD supplied.
 */
import detector from "../../../src/signals/detectors/debt-ceiling-proximity.ts";
import { type Case, type Row, day, detectorTable } from "../../support/detector-inputs.ts";

const MARKET = "lending-market/maker-eth-a";
const ENTITIES = [MARKET, "protocol/maker", "token/weth"];

/** The market on the as-of day, borrowing `pct` % of a 10M USD ceiling. */
function market(pct: number, over: Row<"lending"> = {}): Row<"lending">[] {
  return [
    { entity_id: MARKET, date: day(0), protocol_id: "protocol/maker", asset_id: "token/weth", totalSupplyUsd: 50_000_000, totalBorrowUsd: pct * 100_000, debtCeilingUsd: 10_000_000, utilization: 0.2, ...over },
  ];
}

const cases: Case[] = [
  {
    name: "96% of the ceiling: high, with borrowing, ceiling and headroom",
    inputs: { series: { lending: market(96) } },
    expect: [{ entities: ENTITIES, severity: "high", value: 96, evidence: { metric: "borrow_to_ceiling_pct", total_borrow_usd: 9_600_000, debt_ceiling_usd: 10_000_000, headroom_usd: 400_000, protocol_id: "protocol/maker", asset_id: "token/weth" } }],
  },
  { name: "just over 95%: high", inputs: { series: { lending: market(95.01) } }, expect: [{ entities: ENTITIES, severity: "high", value: 95.01 }] },
  { name: "just under 95%: moderate", inputs: { series: { lending: market(94.99) } }, expect: [{ entities: ENTITIES, severity: "moderate", value: 94.99 }] },
  { name: "just over 90%: moderate", inputs: { series: { lending: market(90.01) } }, expect: [{ entities: ENTITIES, severity: "moderate" }] },
  { name: "just under 90%: low", inputs: { series: { lending: market(89.99) } }, expect: [{ entities: ENTITIES, severity: "low" }] },
  { name: "just over 85%: low", inputs: { series: { lending: market(85.01) } }, expect: [{ entities: ENTITIES, severity: "low", value: 85.01 }] },
  { name: "just under 85%: nothing", inputs: { series: { lending: market(84.99) } }, expect: [] },
  { name: "over the ceiling: high, with negative headroom", inputs: { series: { lending: market(110) } }, expect: [{ entities: ENTITIES, severity: "high", evidence: { headroom_usd: -1_000_000 } }] },
  { name: "under 1M USD supplied: fails the size floor", inputs: { series: { lending: market(97, { totalSupplyUsd: 999_999 }) } }, expect: [{ entities: ENTITIES, severity: "high", failed: ["below_size_floor"] }] },
  { name: "a market without a ceiling (null): nothing", inputs: { series: { lending: market(97, { debtCeilingUsd: null }) } }, expect: [] },
  { name: "a zero ceiling: nothing", inputs: { series: { lending: market(97, { debtCeilingUsd: 0 }) } }, expect: [] },
  { name: "near the ceiling the day before only: nothing", inputs: { series: { lending: market(97, { date: day(1) }) } }, expect: [] },
  { name: "no lending series: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
