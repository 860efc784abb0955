/**
 * flow-anomaly on hand-made insider flows: the as-of day's net flow in standard deviations from the
 * 30 days before (missing days 0, at least 15 active), banded 1.5 / 2 / 3 (docs/spec.md §2.4: high z above 3,
 * moderate 2-3, low 1.5-2). The baseline here alternates +100K and -100K: mean 0, sd 100K, so the
 * day's flow in 100K units is its z-score.
 */
import detector from "../../../src/signals/detectors/flow-anomaly.ts";
import { type Case, type Row, daily, day, detectorTable } from "../../support/detector-inputs.ts";

const TOKEN = "token/zrv";
const WALLET = "eip155:1:0x00000000000000000000000000000000000000a1";

/** Baseline on D-30..D-1 (`activeDays` of them, the latest first, alternating +-100K), then `today` on D. */
function flows(today: number | null, activeDays = 30, over: Row<"insider_flows"> = {}): Row<"insider_flows">[] {
  const base = daily<"insider_flows">(30, 1, (_d, n) => ({ entity_id: TOKEN, wallet: WALLET, holder_role: "team", netFlowUsd: n % 2 === 0 ? 100_000 : -100_000, ...over })).slice(30 - activeDays);
  return today === null ? base : [...base, { entity_id: TOKEN, date: day(0), wallet: WALLET, holder_role: "team", netFlowUsd: today, ...over }];
}

const cases: Case[] = [
  {
    name: "350K against a 100K baseline: high, with the day's flow and the baseline",
    inputs: { series: { insider_flows: flows(350_000) } },
    expect: [{ entities: [TOKEN], severity: "high", value: 3.5, evidence: { metric: "insider_flow_z_score", unit: "sd", flow_usd: 350_000, baseline_mean_usd: 0, baseline_sd_usd: 100_000, baseline_active_days: 30, whale_proxy: false } }],
  },
  { name: "just over 3 sd: high", inputs: { series: { insider_flows: flows(300_100) } }, expect: [{ entities: [TOKEN], severity: "high", value: 3.001 }] },
  { name: "just under 3 sd: moderate", inputs: { series: { insider_flows: flows(299_900) } }, expect: [{ entities: [TOKEN], severity: "moderate", value: 2.999 }] },
  { name: "just over 2 sd: moderate", inputs: { series: { insider_flows: flows(200_100) } }, expect: [{ entities: [TOKEN], severity: "moderate" }] },
  { name: "just under 2 sd: low", inputs: { series: { insider_flows: flows(199_900) } }, expect: [{ entities: [TOKEN], severity: "low" }] },
  { name: "just over 1.5 sd: low", inputs: { series: { insider_flows: flows(150_100) } }, expect: [{ entities: [TOKEN], severity: "low", value: 1.501 }] },
  { name: "just under 1.5 sd: nothing", inputs: { series: { insider_flows: flows(149_900) } }, expect: [] },
  { name: "an outflow of 350K: high (the size of z either way)", inputs: { series: { insider_flows: flows(-350_000) } }, expect: [{ entities: [TOKEN], severity: "high", value: 3.5, evidence: { flow_usd: -350_000 } }] },
  {
    name: "two wallets on the day are summed (200K + 110K)",
    inputs: { series: { insider_flows: [...flows(200_000), { entity_id: TOKEN, date: day(0), wallet: "eip155:1:0xb2", holder_role: "investor", netFlowUsd: 110_000 }] } },
    expect: [{ entities: [TOKEN], severity: "high", value: 3.1 }],
  },
  { name: "a baseline of 14 active days is too sparse: nothing", inputs: { series: { insider_flows: flows(1_000_000, 14) } }, expect: [] },
  { name: "a baseline of 15 active days is enough", inputs: { series: { insider_flows: flows(1_000_000, 15) } }, expect: [{ entities: [TOKEN], severity: "high", evidence: { baseline_active_days: 15 } }] },
  { name: "whale wallets only: a whale proxy", inputs: { series: { insider_flows: flows(350_000, 30, { holder_role: "whale" }) } }, expect: [{ entities: [TOKEN], severity: "high", evidence: { whale_proxy: true } }] },
  { name: "no flow on the as-of day: nothing", inputs: { series: { insider_flows: flows(null) } }, expect: [] },
  {
    name: "a flat baseline (sd 0): nothing",
    inputs: { series: { insider_flows: [...daily<"insider_flows">(30, 1, () => ({ entity_id: TOKEN, wallet: WALLET, netFlowUsd: 50_000 })), { entity_id: TOKEN, date: day(0), wallet: WALLET, netFlowUsd: 5_000_000 }] } },
    expect: [],
  },
  { name: "no insider flows: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
