/**
 * governance-apathy on hand-made governance tallies: the turnout of proposals that closed (passed or
 * failed) in D-29..D, banded 5 / 3 / 1 % downwards (docs/spec.md §2.4: high under 1%, moderate 1-3%,
 * low 3-5%). A proposal's latest row is its result.
 */
import detector from "../../../src/signals/detectors/governance-apathy.ts";
import { type Case, type Row, day, detectorTable } from "../../support/detector-inputs.ts";

const DAO = "organization/zorvex-dao";
const PROPOSAL = "governance-proposal/zip-7";
const ENTITIES = [PROPOSAL, DAO];

function tally(turnout: number | null, over: Row<"governance"> = {}): Row<"governance"> {
  return { entity_id: DAO, date: day(5), proposal_id: PROPOSAL, votesFor: 600, votesAgainst: 300, votesAbstain: 100, turnout, margin: 1 / 3, status: "passed", ...over };
}

const cases: Case[] = [
  {
    name: "a proposal passing on 0.5% turnout: high, with its result and votes",
    inputs: { series: { governance: [tally(0.005)] } },
    expect: [{ entities: ENTITIES, severity: "high", value: 0.5, evidence: { metric: "turnout_pct", unit: "%", proposal_status: "passed", closed_on: day(5), votes_cast: 1_000, margin_pct: 33.33 } }],
  },
  { name: "just under 1%: high", inputs: { series: { governance: [tally(0.0099)] } }, expect: [{ entities: ENTITIES, severity: "high", value: 0.99 }] },
  { name: "just over 1%: moderate", inputs: { series: { governance: [tally(0.0101)] } }, expect: [{ entities: ENTITIES, severity: "moderate", value: 1.01 }] },
  { name: "just under 3%: moderate", inputs: { series: { governance: [tally(0.0299)] } }, expect: [{ entities: ENTITIES, severity: "moderate" }] },
  { name: "just over 3%: low", inputs: { series: { governance: [tally(0.0301)] } }, expect: [{ entities: ENTITIES, severity: "low" }] },
  { name: "just under 5%: low", inputs: { series: { governance: [tally(0.0499)] } }, expect: [{ entities: ENTITIES, severity: "low", value: 4.99 }] },
  { name: "just over 5%: nothing", inputs: { series: { governance: [tally(0.0501)] } }, expect: [] },
  { name: "a failed proposal counts too", inputs: { series: { governance: [tally(0.005, { status: "failed" })] } }, expect: [{ entities: ENTITIES, severity: "high", evidence: { proposal_status: "failed" } }] },
  { name: "a proposal still open: nothing", inputs: { series: { governance: [tally(0.005, { status: "active" })] } }, expect: [] },
  { name: "a cancelled proposal: nothing", inputs: { series: { governance: [tally(0.005, { status: "cancelled" })] } }, expect: [] },
  {
    name: "the latest row is the result: open at 0.5%, passed at 2%",
    inputs: { series: { governance: [tally(0.005, { date: day(8), status: "active" }), tally(0.02, { date: day(2) })] } },
    expect: [{ entities: ENTITIES, severity: "moderate", value: 2, evidence: { closed_on: day(2) } }],
  },
  { name: "closed on D-29: inside the window", inputs: { series: { governance: [tally(0.005, { date: day(29) })] } }, expect: [{ entities: ENTITIES, severity: "high" }] },
  { name: "closed on D-30: outside it", inputs: { series: { governance: [tally(0.005, { date: day(30) })] } }, expect: [] },
  { name: "a result after the as-of day is not read", inputs: { series: { governance: [tally(0.005, { date: day(-1) })] } }, expect: [] },
  { name: "a null turnout (no voting supply): nothing", inputs: { series: { governance: [tally(null)] } }, expect: [] },
  { name: "zero turnout: high", inputs: { series: { governance: [tally(0, { votesFor: 0, votesAgainst: 0, votesAbstain: 0, margin: 0 })] } }, expect: [{ entities: ENTITIES, severity: "high", value: 0 }] },
  { name: "no governance series: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
