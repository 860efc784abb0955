/**
 * sector-rotation on hand-made insider flows and graph facts: |net flow| over D-29..D summed over a
 * sector's tokens (a token's sector is its issuing protocol's category), banded 500K / 1M / 5M USD
 * (docs/spec.md §2.4: high above 5M USD, moderate 1-5M). Real and generated tokens are summed apart.
 */
import detector from "../../../src/signals/detectors/sector-rotation.ts";
import { type Case, type Inputs, type Row, day, detectorTable } from "../../support/detector-inputs.ts";

const FACTS: Inputs["facts"] = [
  ["token/uni", "issuedBy", "protocol/uniswap"],
  ["token/crv", "issuedBy", "protocol/curve"],
  ["token/aave", "issuedBy", "protocol/aave"],
  ["protocol/uniswap", "category", "Dexes"],
  ["protocol/curve", "category", "Dexes"],
  ["protocol/aave", "category", "Lending"],
];
const ENTITIES = ["token/uni", "token/crv", "token/aave", "protocol/uniswap", "protocol/curve", "protocol/aave"].map((id) => ({ id, source: "coingecko" }));

function flow(token: string, net: number, over: Row<"insider_flows"> = {}): Row<"insider_flows"> {
  return { entity_id: token, date: day(4), wallet: `eip155:1:0x${token.length}`, holder_role: "investor", netFlowUsd: net, ...over };
}
const flows = (...rows: Row<"insider_flows">[]): Inputs => ({ series: { insider_flows: rows }, facts: FACTS, entities: ENTITIES });

const cases: Case[] = [
  {
    name: "5.5M into Dexes over two tokens: high, an inflow led by the larger",
    inputs: flows(flow("token/uni", 3_000_000), flow("token/crv", 2_500_000), flow("token/aave", 100_000)),
    expect: [
      {
        entities: ["token/uni", "token/crv"],
        severity: "high",
        value: 5_500_000,
        evidence: {
          metric: "sector_insider_net_flow_30d_usd",
          sector: "Dexes",
          direction: "inflow",
          net_flow_usd: 5_500_000,
          tokens: [{ token: "token/uni", net_flow_usd: 3_000_000 }, { token: "token/crv", net_flow_usd: 2_500_000 }],
          whale_proxy: false,
        },
      },
    ],
  },
  { name: "just over 5M: high", inputs: flows(flow("token/uni", 5_000_100)), expect: [{ entities: ["token/uni"], severity: "high", value: 5_000_100 }] },
  { name: "just under 5M: moderate", inputs: flows(flow("token/uni", 4_999_900)), expect: [{ entities: ["token/uni"], severity: "moderate" }] },
  { name: "just over 1M: moderate", inputs: flows(flow("token/uni", 1_000_100)), expect: [{ entities: ["token/uni"], severity: "moderate" }] },
  { name: "just under 1M: low", inputs: flows(flow("token/uni", 999_900)), expect: [{ entities: ["token/uni"], severity: "low" }] },
  { name: "just over 500K: low", inputs: flows(flow("token/uni", 500_100)), expect: [{ entities: ["token/uni"], severity: "low" }] },
  { name: "just under 500K: nothing", inputs: flows(flow("token/uni", 499_900)), expect: [] },
  {
    name: "6M out of Lending: high, an outflow",
    inputs: flows(flow("token/aave", -6_000_000)),
    expect: [{ entities: ["token/aave"], severity: "high", evidence: { sector: "Lending", direction: "outflow" } }],
  },
  {
    name: "a token moving against its sector is in the evidence, not among the subjects",
    inputs: flows(flow("token/uni", 6_000_000), flow("token/crv", -500_000)),
    expect: [{ entities: ["token/uni"], severity: "high", value: 5_500_000, evidence: { tokens: [{ token: "token/uni", net_flow_usd: 6_000_000 }, { token: "token/crv", net_flow_usd: -500_000 }] } }],
  },
  {
    name: "a sector's real and generated tokens are summed apart (3M each: two moderate signals, not one high)",
    inputs: {
      series: { insider_flows: [flow("token/uni", 3_000_000), flow("token/zrv", 3_000_000)] },
      facts: [...FACTS!, ["token/zrv", "issuedBy", "protocol/zorvex", "synthetic"], ["protocol/zorvex", "category", "Dexes", "synthetic"]],
      entities: [...ENTITIES, { id: "token/zrv", source: "synthetic" }, { id: "protocol/zorvex", source: "synthetic" }],
      synthetic: ["synthetic"],
    },
    expect: [
      { entities: ["token/uni"], severity: "moderate" },
      { entities: ["token/zrv"], severity: "moderate" },
    ],
  },
  { name: "whale wallets only: a whale proxy", inputs: flows(flow("token/uni", 2_000_000, { holder_role: "whale" })), expect: [{ entities: ["token/uni"], severity: "moderate", evidence: { whale_proxy: true } }] },
  { name: "a token with no issuer has no sector: nothing", inputs: flows(flow("token/orphan", 9_000_000)), expect: [] },
  { name: "an issuer with no category: nothing", inputs: { series: { insider_flows: [flow("token/uni", 9_000_000)] }, facts: [["token/uni", "issuedBy", "protocol/uniswap"]] }, expect: [] },
  { name: "a flow on D-30 is outside the window", inputs: flows(flow("token/uni", 9_000_000, { date: day(30) })), expect: [] },
  { name: "no insider flows: nothing", inputs: { facts: FACTS }, expect: [] },
];

detectorTable(detector, cases);
