/**
 * co-investment-network on hand-made graph facts: token pairs whose issuing protocols share
 * investors, banded 3 / 5 (docs/spec.md §2.4: 3+ shared investors; high 5+, moderate 3-4).
 */
import detector from "../../../src/signals/detectors/co-investment-network.ts";
import { type Case, type Inputs, detectorTable } from "../../support/detector-inputs.ts";

type Fact = NonNullable<Inputs["facts"]>[number];
const funds = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `organization/fund-${from + i + 1}`);

/** Token A (protocol/alpha, Dexes) and token B (protocol/beta, Lending), with `shared` funds behind both and one fund each of their own. */
function pair(shared: number): Inputs {
  const facts: Fact[] = [
    ["token/a", "issuedBy", "protocol/alpha"],
    ["token/b", "issuedBy", "protocol/beta"],
    ["protocol/alpha", "category", "Dexes"],
    ["protocol/beta", "category", "Lending"],
    ["organization/only-alpha", "investedIn", "protocol/alpha"],
    ["organization/only-beta", "investedIn", "protocol/beta"],
  ];
  for (const fund of funds(shared)) facts.push([fund, "investedIn", "protocol/alpha"], [fund, "investedIn", "protocol/beta"]);
  return { facts };
}

const cases: Case[] = [
  {
    name: "6 shared investors: high, naming them, both protocols and their sectors",
    inputs: pair(6),
    expect: [{ entities: ["token/a", "token/b"], severity: "high", value: 6, evidence: { metric: "shared_investors", shared_investors: funds(6), protocols: ["protocol/alpha", "protocol/beta"], sectors: ["Dexes", "Lending"] } }],
  },
  { name: "5 shared: high", inputs: pair(5), expect: [{ entities: ["token/a", "token/b"], severity: "high", value: 5 }] },
  { name: "4 shared: moderate", inputs: pair(4), expect: [{ entities: ["token/a", "token/b"], severity: "moderate", value: 4 }] },
  { name: "3 shared: moderate", inputs: pair(3), expect: [{ entities: ["token/a", "token/b"], severity: "moderate", value: 3 }] },
  { name: "2 shared: nothing", inputs: pair(2), expect: [] },
  {
    name: "two tokens of one issuer share its investors by construction: nothing",
    inputs: { facts: [["token/a", "issuedBy", "protocol/alpha"], ["token/a2", "issuedBy", "protocol/alpha"], ...funds(6).map((f): Fact => [f, "investedIn", "protocol/alpha"])] },
    expect: [],
  },
  { name: "protocols without tokens: nothing (pairs are of tokens)", inputs: { facts: pair(6).facts!.filter(([, p]) => p !== "issuedBy") }, expect: [] },
  {
    name: "a fund's duplicate investment facts count once",
    inputs: { facts: [...pair(4).facts!, ["organization/fund-1", "investedIn", "protocol/alpha", "another-source"]] },
    expect: [{ entities: ["token/a", "token/b"], severity: "moderate", value: 4 }],
  },
  {
    name: "made-up investments of a generated fund in real protocols do not count",
    inputs: {
      facts: [...pair(3).facts!, ...funds(3, 10).flatMap((f): Fact[] => [[f, "investedIn", "protocol/alpha", "synthetic"], [f, "investedIn", "protocol/beta", "synthetic"]])],
      entities: ["token/a", "token/b", "protocol/alpha", "protocol/beta"],
      synthetic: ["synthetic"],
    },
    expect: [{ entities: ["token/a", "token/b"], severity: "moderate", value: 3 }],
  },
  { name: "issuers without a category: no sectors", inputs: { facts: pair(5).facts!.filter(([, p]) => p !== "category") }, expect: [{ entities: ["token/a", "token/b"], severity: "high", evidence: { sectors: [] } }] },
  { name: "an empty graph: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
