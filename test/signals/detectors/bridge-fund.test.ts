/**
 * bridge-fund on hand-made investment graphs: a fund's betweenness percentile among the investors of
 * its network, banded 90 / 97 / 99 (docs/spec.md §2.4: "high: very high betweenness"; the catalog
 * reads it as the top 1%, moderate top 3%, low top 10%), when it backs two or more communities.
 *
 * The graphs: two protocols, each with funds of its own only, and one bridge fund backing both. The
 * single-protocol funds sit on no path (betweenness 0), so the bridge's percentile is
 * (investors - 1) / investors: 100 investors put it at 99, 34 at 97.06, 10 at 90.
 */
import detector from "../../../src/signals/detectors/bridge-fund.ts";
import { type Case, type Inputs, detectorTable } from "../../support/detector-inputs.ts";

type Fact = NonNullable<Inputs["facts"]>[number];
const BRIDGE = "organization/bridge-capital";

/** `investors` investors in all: the bridge, and the others split between protocol/alpha and protocol/beta. */
function network(investors: number, bridge: string[] = ["protocol/alpha", "protocol/beta"]): Inputs {
  const facts: Fact[] = bridge.map((p): Fact => [BRIDGE, "investedIn", p]);
  for (let i = 1; i < investors; i++) facts.push([`organization/fund-${i}`, "investedIn", i % 2 === 0 ? "protocol/alpha" : "protocol/beta"]);
  return { facts };
}

const cases: Case[] = [
  {
    name: "the only fund between two clusters of 120 investors: high, with its betweenness and the communities it bridges",
    inputs: network(120),
    expect: [{ entities: [BRIDGE], severity: "high", value: (119 / 120) * 100, evidence: { metric: "betweenness_percentile", sampled: false, communities_bridged: 2, portfolio_size: 2, network_investors: 120 } }],
  },
  { name: "100 investors (the 99th percentile): high", inputs: network(100), expect: [{ entities: [BRIDGE], severity: "high", value: 99 }] },
  { name: "99 investors (98.99th): moderate", inputs: network(99), expect: [{ entities: [BRIDGE], severity: "moderate", value: (98 / 99) * 100 }] },
  { name: "34 investors (97.06th): moderate", inputs: network(34), expect: [{ entities: [BRIDGE], severity: "moderate", value: (33 / 34) * 100 }] },
  { name: "33 investors (96.97th): low", inputs: network(33), expect: [{ entities: [BRIDGE], severity: "low", value: (32 / 33) * 100 }] },
  { name: "10 investors (the 90th): low", inputs: network(10), expect: [{ entities: [BRIDGE], severity: "low", value: 90 }] },
  { name: "9 investors (88.9th): nothing", inputs: network(9), expect: [] },
  { name: "a fund backing one protocol sits on no path: nothing", inputs: network(120, ["protocol/alpha"]), expect: [] },
  {
    name: "the bridge's investments seen through a generated fund's facts about real protocols do not count",
    inputs: { ...network(120), facts: network(120).facts!.map(([s, p, o]): Fact => [s, p, o, s === BRIDGE ? "synthetic" : "test"]), entities: ["protocol/alpha", "protocol/beta"], synthetic: ["synthetic"] },
    expect: [],
  },
  { name: "fewer than three investors: nothing", inputs: { facts: [[BRIDGE, "investedIn", "protocol/alpha"], [BRIDGE, "investedIn", "protocol/beta"], ["organization/fund-1", "investedIn", "protocol/alpha"]] }, expect: [] },
  { name: "an empty graph: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
