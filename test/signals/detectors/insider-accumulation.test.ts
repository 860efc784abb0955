/**
 * insider-accumulation on hand-made insider flows: |net flow| of a token's insiders over D-29..D,
 * banded 100K / 250K / 1M USD, high only with a strong skew (|net| / gross of 0.6 or more), as
 * docs/spec.md §2.4 has it: "high: more than 1M USD net with strong skew".
 */
import detector from "../../../src/signals/detectors/insider-accumulation.ts";
import { type Case, type Row, day, detectorTable } from "../../support/detector-inputs.ts";

const TOKEN = "token/zrv";
const TEAM = "eip155:1:0x00000000000000000000000000000000000000a1";
const FUND = "eip155:1:0x00000000000000000000000000000000000000b2";

function flow(net: number | null, over: Row<"insider_flows"> = {}): Row<"insider_flows"> {
  return { entity_id: TOKEN, date: day(3), wallet: TEAM, holder_id: "organization/zorvex-labs", holder_role: "team", netFlowUsd: net, balance: 1, ...over };
}

const cases: Case[] = [
  {
    name: "a team wallet buying 1.2M USD over two days: high, buying, not a whale proxy",
    inputs: { series: { insider_flows: [flow(700_000, { date: day(10) }), flow(500_000)] } },
    expect: [
      {
        entities: [TOKEN],
        severity: "high",
        value: 1_200_000,
        evidence: {
          metric: "insider_net_flow_30d_usd",
          unit: "USD",
          direction: "buying",
          net_flow_usd: 1_200_000,
          skew: 1,
          whale_proxy: false,
          insiders: 1,
          top_wallets: [{ wallet: TEAM, holder_id: "organization/zorvex-labs", role: "team", net_flow_usd: 1_200_000 }],
        },
      },
    ],
  },
  { name: "just over 1M with a strong skew: high", inputs: { series: { insider_flows: [flow(1_000_100)] } }, expect: [{ entities: [TOKEN], severity: "high", value: 1_000_100 }] },
  { name: "just under 1M: moderate", inputs: { series: { insider_flows: [flow(999_900)] } }, expect: [{ entities: [TOKEN], severity: "moderate", value: 999_900 }] },
  { name: "just over 250K: moderate", inputs: { series: { insider_flows: [flow(250_100)] } }, expect: [{ entities: [TOKEN], severity: "moderate" }] },
  { name: "just under 250K: low", inputs: { series: { insider_flows: [flow(249_900)] } }, expect: [{ entities: [TOKEN], severity: "low" }] },
  { name: "just over 100K: low", inputs: { series: { insider_flows: [flow(100_100)] } }, expect: [{ entities: [TOKEN], severity: "low" }] },
  { name: "just under 100K: nothing", inputs: { series: { insider_flows: [flow(99_900)] } }, expect: [] },
  {
    name: "1.5M net at a skew of exactly 0.6 (2M bought, 0.5M sold): high",
    inputs: { series: { insider_flows: [flow(2_000_000), flow(-500_000, { wallet: FUND, holder_id: "organization/polar-fund", holder_role: "investor" })] } },
    expect: [{ entities: [TOKEN], severity: "high", evidence: { skew: 0.6, insiders: 2 } }],
  },
  {
    name: "1.49M net at a skew just under 0.6 (2M bought, 0.51M sold): capped at moderate, and the evidence says why",
    inputs: { series: { insider_flows: [flow(2_000_000), flow(-510_000, { wallet: FUND, holder_role: "investor" })] } },
    expect: [{ entities: [TOKEN], severity: "moderate", value: 1_490_000, evidence: { skew: 0.5936, note: "capped at moderate: flows are mixed (skew 0.59, 0.6 needed for high)" } }],
  },
  {
    name: "insiders selling 1.5M: high, selling",
    inputs: { series: { insider_flows: [flow(-1_500_000)] } },
    expect: [{ entities: [TOKEN], severity: "high", evidence: { direction: "selling", net_flow_usd: -1_500_000 } }],
  },
  {
    name: "only unlabelled and whale wallets: a whale proxy",
    inputs: { series: { insider_flows: [flow(300_000, { holder_role: null, holder_id: null }), flow(300_000, { wallet: FUND, holder_role: "whale", holder_id: null })] } },
    expect: [{ entities: [TOKEN], severity: "moderate", evidence: { whale_proxy: true, insiders: 2 } }],
  },
  { name: "a flow on D-30 is outside the 30-day window", inputs: { series: { insider_flows: [flow(2_000_000, { date: day(30) })] } }, expect: [] },
  { name: "a flow on D-29 is inside it", inputs: { series: { insider_flows: [flow(2_000_000, { date: day(29) })] } }, expect: [{ entities: [TOKEN], severity: "high" }] },
  { name: "a flow after the as-of day is not read", inputs: { series: { insider_flows: [flow(2_000_000, { date: day(-1) })] } }, expect: [] },
  { name: "null flows: nothing", inputs: { series: { insider_flows: [flow(null), flow(null, { date: day(4) })] } }, expect: [] },
  { name: "no insider flows: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
