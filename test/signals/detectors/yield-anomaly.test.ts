/**
 * yield-anomaly on hand-made pool rows: APY of the as-of day against its mean over the 7 days before
 * (at least 4 of them), spikes and collapses alike, banded 100 / 200 / 500 % (docs/spec.md §2.4: high above
 * 500%, moderate 200-500%, low 100-200%), screened at 500K USD TVL.
 */
import detector from "../../../src/signals/detectors/yield-anomaly.ts";
import { type Case, type Row, daily, detectorTable } from "../../support/detector-inputs.ts";

const POOL = "pool/curve-3pool";
const ENTITIES = [POOL, "protocol/curve"];

/** Seven days at a 5% APY, then `today` on the as-of day (null: no row that day). */
function pool(today: number | null, over: Row<"pool"> = {}, baseDays = 7): Row<"pool">[] {
  return daily<"pool">(baseDays, 0, (_d, n) => ({ entity_id: POOL, protocol_id: "protocol/curve", chain_id: "chain/ethereum", tvlUsd: 2_000_000, apy: n === 0 ? today : 5, ...over })).filter(
    (r) => r.apy !== null,
  );
}

const cases: Case[] = [
  {
    name: "a spike from 5% to 35% (600%): high, with both yields and the pool's TVL",
    inputs: { series: { pool: pool(35) } },
    expect: [{ entities: ENTITIES, severity: "high", value: 600, evidence: { metric: "apy_change_pct", direction: "spike", apy: 35, baseline_apy: 5, tvl_usd: 2_000_000, protocol_id: "protocol/curve", chain_id: "chain/ethereum" } }],
  },
  { name: "just over 500%: high", inputs: { series: { pool: pool(30.0005) } }, expect: [{ entities: ENTITIES, severity: "high", value: 500.01 }] },
  { name: "just under 500%: moderate", inputs: { series: { pool: pool(29.9995) } }, expect: [{ entities: ENTITIES, severity: "moderate", value: 499.99 }] },
  { name: "just over 200%: moderate", inputs: { series: { pool: pool(15.0005) } }, expect: [{ entities: ENTITIES, severity: "moderate" }] },
  { name: "just under 200%: low", inputs: { series: { pool: pool(14.9995) } }, expect: [{ entities: ENTITIES, severity: "low" }] },
  { name: "just over 100%: low", inputs: { series: { pool: pool(10.0005) } }, expect: [{ entities: ENTITIES, severity: "low", value: 100.01 }] },
  { name: "just under 100%: nothing", inputs: { series: { pool: pool(9.9995) } }, expect: [] },
  {
    name: "a collapse from 5% to 0.7 (a seventh, 614%): high, direction collapse",
    inputs: { series: { pool: pool(5 / 7.14) } },
    expect: [{ entities: ENTITIES, severity: "high", value: 614, evidence: { direction: "collapse" } }],
  },
  { name: "under 500K USD TVL: fails the size floor", inputs: { series: { pool: pool(35, { tvlUsd: 499_999 }) } }, expect: [{ entities: ENTITIES, severity: "high", failed: ["below_size_floor"] }] },
  { name: "only 3 days of baseline: nothing", inputs: { series: { pool: pool(35, {}, 3) } }, expect: [] },
  { name: "4 days of baseline: enough", inputs: { series: { pool: pool(35, {}, 4) } }, expect: [{ entities: ENTITIES, severity: "high" }] },
  { name: "an APY of zero on the as-of day: nothing (no ratio)", inputs: { series: { pool: pool(0) } }, expect: [] },
  { name: "no row on the as-of day: nothing", inputs: { series: { pool: pool(null) } }, expect: [] },
  { name: "a pool with no protocol names itself only", inputs: { series: { pool: pool(35, { protocol_id: null }) } }, expect: [{ entities: [POOL], severity: "high", evidence: { protocol_id: null } }] },
];

detectorTable(detector, cases);
