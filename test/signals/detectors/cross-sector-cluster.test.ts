/**
 * cross-sector-cluster on hand-made graph facts: Louvain communities of tokens linked by 2+ shared
 * investors, by the sectors they span, banded 3 / 5 (docs/spec.md §2.4: communities spanning 3+
 * sectors; high 5+, moderate 3-4).
 */
import detector from "../../../src/signals/detectors/cross-sector-cluster.ts";
import { type Case, type Inputs, detectorTable } from "../../support/detector-inputs.ts";

type Fact = NonNullable<Inputs["facts"]>[number];
const SECTORS = ["Dexes", "Lending", "Bridge", "Derivatives", "Gaming", "Oracle"];

/**
 * `tokens` tokens, each issued by a protocol of its own in sector `sectorOf(i)`, all backed by the
 * same `investors` funds (a clique of co-invested tokens).
 */
function cluster(tokens: number, sectorOf: (i: number) => string | null, investors = 2, prefix = "t"): Fact[] {
  const facts: Fact[] = [];
  for (let i = 0; i < tokens; i++) {
    facts.push([`token/${prefix}${i}`, "issuedBy", `protocol/${prefix}${i}`]);
    const sector = sectorOf(i);
    if (sector) facts.push([`protocol/${prefix}${i}`, "category", sector]);
    for (let f = 0; f < investors; f++) facts.push([`organization/${prefix}-fund-${f}`, "investedIn", `protocol/${prefix}${i}`]);
  }
  return facts;
}
const members = (n: number, prefix = "t") => Array.from({ length: n }, (_, i) => `token/${prefix}${i}`);

const cases: Case[] = [
  {
    name: "6 co-invested tokens in 6 sectors: high, with the community and its sectors",
    inputs: { facts: cluster(6, (i) => SECTORS[i]!) },
    expect: [{ entities: members(6), severity: "high", value: 6, evidence: { metric: "sectors_spanned", community_size: 6, sectors: [...SECTORS].sort(), members: members(6) } }],
  },
  { name: "5 sectors: high", inputs: { facts: cluster(5, (i) => SECTORS[i]!) }, expect: [{ entities: members(5), severity: "high", value: 5 }] },
  { name: "4 sectors: moderate", inputs: { facts: cluster(5, (i) => SECTORS[Math.min(i, 3)]!) }, expect: [{ entities: members(5), severity: "moderate", value: 4 }] },
  { name: "3 sectors: moderate", inputs: { facts: cluster(3, (i) => SECTORS[i]!) }, expect: [{ entities: members(3), severity: "moderate", value: 3 }] },
  { name: "2 sectors: nothing", inputs: { facts: cluster(4, (i) => SECTORS[i % 2]!) }, expect: [] },
  { name: "a community of two tokens is too small, whatever their sectors", inputs: { facts: cluster(2, (i) => SECTORS[i]!) }, expect: [] },
  { name: "tokens sharing one investor are not linked: nothing", inputs: { facts: cluster(6, (i) => SECTORS[i]!, 1) }, expect: [] },
  { name: "tokens whose issuers have no category count no sector", inputs: { facts: cluster(5, (i) => (i < 3 ? SECTORS[i]! : null)) }, expect: [{ entities: members(5), severity: "moderate", value: 3 }] },
  {
    name: "two separate cliques are two communities, each judged on its own sectors",
    inputs: { facts: [...cluster(5, (i) => SECTORS[i]!, 2, "a"), ...cluster(4, (i) => SECTORS[i % 2]!, 2, "b")] },
    expect: [{ entities: members(5, "a"), severity: "high", value: 5 }],
  },
  { name: "an empty graph: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
