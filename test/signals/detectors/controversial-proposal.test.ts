/**
 * controversial-proposal on hand-made governance tallies: the margin of proposals that passed in
 * D-29..D, banded 20 / 12 / 5 % downwards (docs/spec.md §2.4: passing with a margin under 20%; high
 * under 5%, moderate 5-12%).
 */
import detector from "../../../src/signals/detectors/controversial-proposal.ts";
import { type Case, type Row, day, detectorTable } from "../../support/detector-inputs.ts";

const DAO = "organization/zorvex-dao";
const PROPOSAL = "governance-proposal/zip-9";
const ENTITIES = [PROPOSAL, DAO];

/** A proposal passed by `margin` (for - against over for + against) out of 10,000 votes. */
function passed(margin: number | null, over: Row<"governance"> = {}): Row<"governance"> {
  const m = margin ?? 0;
  return { entity_id: DAO, date: day(3), proposal_id: PROPOSAL, votesFor: 5_000 * (1 + m), votesAgainst: 5_000 * (1 - m), votesAbstain: 0, turnout: 0.25, margin, status: "passed", ...over };
}

const cases: Case[] = [
  {
    name: "passed by 3%: high, with the votes and turnout",
    inputs: { series: { governance: [passed(0.03)] } },
    expect: [{ entities: ENTITIES, severity: "high", value: 3, evidence: { metric: "passing_margin_pct", closed_on: day(3), votes_for: 5_150, votes_against: 4_850, turnout_pct: 25 } }],
  },
  { name: "just under 5%: high", inputs: { series: { governance: [passed(0.0499)] } }, expect: [{ entities: ENTITIES, severity: "high", value: 4.99 }] },
  { name: "just over 5%: moderate", inputs: { series: { governance: [passed(0.0501)] } }, expect: [{ entities: ENTITIES, severity: "moderate", value: 5.01 }] },
  { name: "just under 12%: moderate", inputs: { series: { governance: [passed(0.1199)] } }, expect: [{ entities: ENTITIES, severity: "moderate" }] },
  { name: "just over 12%: low", inputs: { series: { governance: [passed(0.1201)] } }, expect: [{ entities: ENTITIES, severity: "low" }] },
  { name: "just under 20%: low", inputs: { series: { governance: [passed(0.1999)] } }, expect: [{ entities: ENTITIES, severity: "low", value: 19.99 }] },
  { name: "just over 20%: nothing", inputs: { series: { governance: [passed(0.2001)] } }, expect: [] },
  { name: "a tie that passed (margin 0): high", inputs: { series: { governance: [passed(0)] } }, expect: [{ entities: ENTITIES, severity: "high", value: 0 }] },
  { name: "a negative margin (more against) is no passing margin: nothing", inputs: { series: { governance: [passed(-0.02)] } }, expect: [] },
  { name: "a thin margin that failed: nothing", inputs: { series: { governance: [passed(0.02, { status: "failed" })] } }, expect: [] },
  { name: "still open: nothing", inputs: { series: { governance: [passed(0.02, { status: "active" })] } }, expect: [] },
  { name: "the final tally counts: thin while open, wide when passed", inputs: { series: { governance: [passed(0.01, { date: day(6), status: "active" }), passed(0.4, { date: day(4) })] } }, expect: [] },
  { name: "passed on D-30: outside the window", inputs: { series: { governance: [passed(0.01, { date: day(30) })] } }, expect: [] },
  { name: "a null margin: nothing", inputs: { series: { governance: [passed(null)] } }, expect: [] },
  { name: "no governance series: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
