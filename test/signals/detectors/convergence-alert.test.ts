/**
 * convergence-alert on hand-made findings of the types that ran before: the independent types
 * (reading none of the same inputs) with a screened finding on one entity, banded 3 / 4 / 5
 * (docs/spec.md §2.4: 3+ independent types; high 5+, moderate 4, low 3).
 */
import detector from "../../../src/signals/detectors/convergence-alert.ts";
import type { ScoredFinding } from "../../../src/signals/detector.ts";
import { type Case, detectorTable, earlier } from "../../support/detector-inputs.ts";

const P = "protocol/zorvex";
const TYPES = ["utilization-stress", "yield-anomaly", "treasury-health", "governance-apathy", "unlock-pressure", "earnings-health"];

/** Findings of the first `n` of TYPES on the entity (they read no input in common); the first high. */
function on(n: number, entity = P, over: Partial<ScoredFinding> = {}): ScoredFinding[] {
  return TYPES.slice(0, n).map((type, i) => earlier({ signalId: `sig_${type}`, type, entities: [entity], severity: i === 0 ? "high" : "moderate", ...over }));
}

const cases: Case[] = [
  {
    name: "6 independent types on a protocol: high, naming them, their categories and signals",
    inputs: { earlier: on(6) },
    expect: [
      {
        entities: [P],
        severity: "high",
        value: 6,
        evidence: {
          metric: "independent_signal_types",
          types: [...TYPES].sort(),
          all_types: [...TYPES].sort(),
          categories: ["DeFi Risk & Opportunity", "Governance Risk", "Protocol Fundamentals", "Token Lifecycle Risk"],
          signal_ids: ["sig_utilization-stress", ...TYPES.slice(1).map((t) => `sig_${t}`).sort()],
          highest_severity: "high",
        },
      },
    ],
  },
  { name: "5 types: high", inputs: { earlier: on(5) }, expect: [{ entities: [P], severity: "high", value: 5 }] },
  { name: "4 types: moderate", inputs: { earlier: on(4) }, expect: [{ entities: [P], severity: "moderate", value: 4 }] },
  { name: "3 types: low", inputs: { earlier: on(3) }, expect: [{ entities: [P], severity: "low", value: 3 }] },
  { name: "2 types: nothing", inputs: { earlier: on(2) }, expect: [] },
  {
    name: "types reading the same input count once: debt-ceiling-proximity reads lending as utilization-stress does, 3 of 4",
    inputs: { earlier: [...on(3), earlier({ signalId: "sig_debt", type: "debt-ceiling-proximity", entities: [P], severity: "high" })] },
    expect: [{ entities: [P], severity: "low", value: 3, evidence: { all_types: ["debt-ceiling-proximity", "treasury-health", "utilization-stress", "yield-anomaly"] } }],
  },
  { name: "unscreened findings do not count", inputs: { earlier: [...on(2), ...on(6).slice(2).map((f) => ({ ...f, screened: false }))] }, expect: [] },
  { name: "two findings of one type count once", inputs: { earlier: [...on(2), earlier({ signalId: "sig_again", type: TYPES[0]!, entities: [P], severity: "low" })] }, expect: [] },
  { name: "a wallet is not an entity of the graph: nothing", inputs: { earlier: on(5, "eip155:1:0x00000000000000000000000000000000000000a1") }, expect: [] },
  {
    name: "a finding counts on each entity it names (its second one too)",
    inputs: { earlier: [...on(2, "token/zrv"), earlier({ signalId: "sig_pair", type: "co-investment-network", entities: ["token/abc", "token/zrv"], severity: "moderate" })] },
    expect: [{ entities: ["token/zrv"], severity: "low", value: 3 }],
  },
  { name: "a synthetic finding makes the alert synthetic", inputs: { earlier: [...on(2), ...on(6).slice(2, 3).map((f) => ({ ...f, synthetic: true }))] }, expect: [{ entities: [P], severity: "low", evidence: { synthetic: true, summary: "protocol/zorvex triggers 3 independent signal types at once: treasury-health, utilization-stress, yield-anomaly. (synthetic demo data)" } }] },
  { name: "no earlier findings: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
