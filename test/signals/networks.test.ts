/**
 * Our betweenness (exact below a size, sampled above) against graphology-metrics' reference
 * implementation, on real-shaped graphs.
 */
import { expect, test } from "bun:test";
import Graph from "graphology";
import referenceBetweenness from "graphology-metrics/centrality/betweenness";
import { Rng } from "../../src/rng.ts";
import { EXACT_BETWEENNESS_NODES, betweenness } from "../../src/signals/networks.ts";

function randomGraph(nodes: number, edges: number, seed: string): Graph {
  const rng = new Rng(seed);
  const g = new Graph({ type: "undirected" });
  for (let i = 0; i < nodes; i++) g.addNode(`n${i}`);
  // A preferential-attachment flavour: hubs, as investor graphs have.
  for (let e = 0; e < edges; e++) {
    const a = Math.floor(rng.next() * nodes);
    const b = Math.floor(rng.next() ** 2 * nodes);
    if (a !== b) g.mergeEdge(`n${a}`, `n${b}`);
  }
  return g;
}

test("exact betweenness equals graphology-metrics' on a small graph", () => {
  const g = randomGraph(300, 900, "small");
  const ours = betweenness(g, "t");
  const reference = referenceBetweenness(g, { getEdgeWeight: null });
  expect(ours.sampled).toBe(false);
  for (const node of g.nodes()) expect(ours.values.get(node)!).toBeCloseTo(reference[node]!, 9);
});

test("sampled betweenness ranks the top nodes as the exact one does on a large graph", () => {
  const g = randomGraph(EXACT_BETWEENNESS_NODES + 1000, 15000, "large");
  const ours = betweenness(g, "t");
  expect(ours.sampled).toBe(true);
  const reference = referenceBetweenness(g, { getEdgeWeight: null });
  const top = (values: (n: string) => number) => new Set([...g.nodes()].sort((a, b) => values(b) - values(a)).slice(0, 50));
  const exactTop = top((n) => reference[n]!);
  const sampledTop = top((n) => ours.values.get(n)!);
  const overlap = [...sampledTop].filter((n) => exactTop.has(n)).length;
  expect(overlap).toBeGreaterThanOrEqual(40);
});
