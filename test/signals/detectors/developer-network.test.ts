/**
 * developer-network on hand-made graph facts and protocol TVL: protocols sharing developers, banded
 * 3 / 5 / 10 (docs/spec.md §2.4: high 10+ shared developers, moderate 5-9), and the bus factor:
 * 1-2 contributors behind a protocol above 10M USD TVL is moderate.
 */
import detector from "../../../src/signals/detectors/developer-network.ts";
import { type Case, type Inputs, type Row, day, detectorTable } from "../../support/detector-inputs.ts";

type Fact = NonNullable<Inputs["facts"]>[number];
const people = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `person/dev-${String(from + i + 1).padStart(2, "0")}`);

/** protocol/alpha and protocol/beta, each with a repository of its own and 4 developers of its own, sharing `shared` more. */
function pair(shared: number): Fact[] {
  const facts: Fact[] = [
    ["protocol/alpha", "hasRepository", "repository/alpha-core"],
    ["protocol/beta", "hasRepository", "repository/beta-core"],
  ];
  for (const p of people(4, 50)) facts.push([p, "contributesTo", "repository/alpha-core"]);
  for (const p of people(4, 60)) facts.push([p, "contributesTo", "repository/beta-core"]);
  for (const p of people(shared)) facts.push([p, "contributesTo", "repository/alpha-core"], [p, "contributesTo", "repository/beta-core"]);
  return facts;
}
/** protocol/solo with `contributors` people on its repository. */
function solo(contributors: number): Fact[] {
  return [["protocol/solo", "hasRepository", "repository/solo"], ...people(contributors, 90).map((p): Fact => [p, "contributesTo", "repository/solo"])];
}
const tvl = (usd: number | null, at = 1): Row<"protocol">[] => [{ entity_id: "protocol/solo", date: day(at), tvlUsd: usd }];

const cases: Case[] = [
  {
    name: "11 shared developers: high, naming them",
    inputs: { facts: pair(11) },
    expect: [{ entities: ["protocol/alpha", "protocol/beta"], severity: "high", value: 11, evidence: { metric: "shared_developers", kind: "shared_developers", developers: people(11), tvl_usd: null } }],
  },
  { name: "10 shared: high", inputs: { facts: pair(10) }, expect: [{ entities: ["protocol/alpha", "protocol/beta"], severity: "high", value: 10 }] },
  { name: "9 shared: moderate", inputs: { facts: pair(9) }, expect: [{ entities: ["protocol/alpha", "protocol/beta"], severity: "moderate", value: 9 }] },
  { name: "5 shared: moderate", inputs: { facts: pair(5) }, expect: [{ entities: ["protocol/alpha", "protocol/beta"], severity: "moderate", value: 5 }] },
  { name: "4 shared: low", inputs: { facts: pair(4) }, expect: [{ entities: ["protocol/alpha", "protocol/beta"], severity: "low", value: 4 }] },
  { name: "3 shared: low", inputs: { facts: pair(3) }, expect: [{ entities: ["protocol/alpha", "protocol/beta"], severity: "low", value: 3 }] },
  { name: "2 shared: nothing", inputs: { facts: pair(2) }, expect: [] },
  { name: "protocols of one family are one project: nothing", inputs: { facts: [...pair(12), ["protocol/beta", "parentProtocol", "protocol/alpha"]] }, expect: [] },
  { name: "protocols sharing a repository are one project: nothing", inputs: { facts: [...pair(12), ["protocol/beta", "hasRepository", "repository/alpha-core"]] }, expect: [] },
  {
    name: "one contributor behind 25M USD TVL: a moderate bus-factor signal",
    inputs: { facts: solo(1), series: { protocol: tvl(25_000_000) } },
    expect: [{ entities: ["protocol/solo"], severity: "moderate", value: 1, evidence: { metric: "contributors", unit: "people", kind: "bus_factor", developers: people(1, 90), tvl_usd: 25_000_000 } }],
  },
  { name: "two contributors at exactly 10M USD: moderate", inputs: { facts: solo(2), series: { protocol: tvl(10_000_000) } }, expect: [{ entities: ["protocol/solo"], severity: "moderate", value: 2 }] },
  { name: "two contributors just under 10M USD: nothing", inputs: { facts: solo(2), series: { protocol: tvl(9_999_999) } }, expect: [] },
  { name: "three contributors: no bus-factor risk", inputs: { facts: solo(3), series: { protocol: tvl(50_000_000) } }, expect: [] },
  { name: "the latest TVL counts: 50M a week ago, 5M now: nothing", inputs: { facts: solo(1), series: { protocol: [...tvl(50_000_000, 5), ...tvl(5_000_000, 0)] } }, expect: [] },
  { name: "TVL only from before the last 7 days: nothing", inputs: { facts: solo(1), series: { protocol: tvl(50_000_000, 7) } }, expect: [] },
  { name: "no TVL series: nothing", inputs: { facts: solo(1) }, expect: [] },
  { name: "a null TVL: nothing", inputs: { facts: solo(1), series: { protocol: tvl(null) } }, expect: [] },
  { name: "an empty graph: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
