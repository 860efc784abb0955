/**
 * narrative-synthesis on hand-made findings of the types that ran before: briefings per entity (two
 * or more types) and per sector (three or more of its protocols and tokens), by actionability, the
 * band (docs/spec.md §2.4: high urgent, moderate watchlist, low informational). Urgent: a high signal
 * among 3+ independent types, or high signals of 2 independent types; watchlist: any high or 2+
 * moderate; informational otherwise. Written by the offline narrator.
 */
import { expect } from "bun:test";
import detector from "../../../src/signals/detectors/narrative-synthesis.ts";
import type { ScoredFinding } from "../../../src/signals/detector.ts";
import { type Case, type Inputs, detectorTable, earlier } from "../../support/detector-inputs.ts";

const P = "protocol/zorvex";
const f = (type: string, severity: ScoredFinding["severity"], over: Partial<ScoredFinding> = {}) => earlier({ signalId: `sig_${type}`, type, entities: [P], severity, ...over });
const about = (...list: ScoredFinding[]): Inputs => ({ earlier: list, entities: [P] });

const cases: Case[] = [
  {
    name: "high signals of two independent types of one category on one entity: urgent, high, with the narrative and its links",
    inputs: about(f("utilization-stress", "high", { score: 80 }), f("yield-anomaly", "high", { score: 90 })),
    expect: [
      {
        entities: [P],
        severity: "high",
        value: 3 + 85 / 101,
        evidence: {
          metric: "actionability_level",
          actionability: "urgent",
          scope: "entity",
          subject: "zorvex",
          title: "Urgent: zorvex, 2 signal types (yield-anomaly, utilization-stress)",
          writer: "offline",
          linked_signals: [
            { signal_id: "sig_yield-anomaly", signal_type: "yield-anomaly", severity: "high", score: 90 },
            { signal_id: "sig_utilization-stress", signal_type: "utilization-stress", severity: "high", score: 80 },
          ],
        },
      },
    ],
  },
  { name: "one high among three independent types: urgent", inputs: about(f("utilization-stress", "high"), f("yield-anomaly", "low"), f("treasury-health", "low")), expect: [{ entities: [P], severity: "high", evidence: { actionability: "urgent" } }] },
  { name: "one high among two independent types: watchlist, moderate", inputs: about(f("utilization-stress", "high"), f("treasury-health", "low")), expect: [{ entities: [P], severity: "moderate", evidence: { actionability: "watchlist" } }] },
  {
    name: "two high signals of types reading the same input (lending) count as one: watchlist",
    inputs: about(f("utilization-stress", "high"), f("debt-ceiling-proximity", "high")),
    expect: [{ entities: [P], severity: "moderate", evidence: { actionability: "watchlist" } }],
  },
  { name: "two moderate signals: watchlist", inputs: about(f("utilization-stress", "moderate"), f("treasury-health", "moderate")), expect: [{ entities: [P], severity: "moderate", evidence: { actionability: "watchlist" } }] },
  { name: "one moderate and one low: informational, low", inputs: about(f("utilization-stress", "moderate"), f("treasury-health", "low")), expect: [{ entities: [P], severity: "low", evidence: { actionability: "informational" } }] },
  { name: "one type alone: nothing", inputs: about(f("utilization-stress", "high"), f("utilization-stress", "high", { signalId: "sig_other" })), expect: [] },
  {
    name: "types of two categories: a cross-domain narrative",
    inputs: about(f("utilization-stress", "moderate"), f("governance-apathy", "moderate")),
    expect: [{ entities: [P], severity: "moderate", evidence: { scope: "cross-domain" } }],
  },
  { name: "unscreened findings are not linked: nothing", inputs: about(f("utilization-stress", "high"), f("treasury-health", "high", { screened: false })), expect: [] },
  { name: "convergence alerts are not linked: nothing", inputs: about(f("utilization-stress", "high"), f("convergence-alert", "high")), expect: [] },
  {
    name: "signals on three protocols of one sector: a sector narrative (tokens count through their issuer)",
    inputs: {
      earlier: [
        f("utilization-stress", "moderate", { entities: ["protocol/alpha"] }),
        f("treasury-health", "moderate", { entities: ["protocol/beta"] }),
        f("unlock-pressure", "low", { entities: ["token/gam"] }),
      ],
      facts: [["protocol/alpha", "category", "Lending"], ["protocol/beta", "category", "Lending"], ["protocol/gamma", "category", "Lending"], ["token/gam", "issuedBy", "protocol/gamma"]],
    },
    expect: [{ entities: ["protocol/alpha", "protocol/beta", "token/gam"], severity: "moderate", evidence: { scope: "sector", subject: "Lending", actionability: "watchlist" } }],
  },
  {
    name: "a sector with two of its entities signalled: nothing",
    inputs: { earlier: [f("utilization-stress", "high", { entities: ["protocol/alpha"] }), f("treasury-health", "high", { entities: ["protocol/beta"] })], facts: [["protocol/alpha", "category", "Lending"], ["protocol/beta", "category", "Lending"]] },
    expect: [],
  },
  {
    name: "a synthetic linked signal makes the narrative synthetic and says so in its text",
    inputs: about(f("utilization-stress", "moderate", { synthetic: true }), f("treasury-health", "moderate")),
    expect: [{ entities: [P], severity: "moderate", evidence: { synthetic: true, text: expect.stringMatching(/\(synthetic demo data\)$/) } }],
  },
  { name: "no earlier findings: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
