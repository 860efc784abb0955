/**
 * @module signals/networks
 * Graphs the investment detectors analyse, built with graphology: tokens linked by shared
 * investors, and the investor-protocol bipartite graph. Louvain runs with a seeded random source,
 * so the same graph gives the same communities in every scan. Betweenness is exact (Brandes) up
 * to EXACT_BETWEENNESS_NODES nodes and sampled above (Brandes & Pich 2007: shortest paths from a
 * random set of pivots, scaled by nodes / pivots), on graphology's indexed Brandes.
 */
import Graph from "graphology";
import louvain from "graphology-communities-louvain";
import { connectedComponents } from "graphology-components";
import { createUnweightedIndexedBrandes } from "graphology-shortest-path/indexed-brandes";
import { Rng } from "../rng.ts";
import { type GraphFacts, sharedInvestorPairs } from "./graph-facts.ts";

export const EXACT_BETWEENNESS_NODES = 4000;
const BETWEENNESS_PIVOTS = 1000;

/** Tokens as nodes, an edge (weight = shared investors) between tokens sharing at least `min`. */
export function coInvestmentGraph(graph: GraphFacts, min: number): Graph {
  const g = new Graph({ type: "undirected" });
  for (const { a, b, shared } of sharedInvestorPairs(graph, min)) {
    g.mergeNode(a);
    g.mergeNode(b);
    g.addEdge(a, b, { weight: shared.length });
  }
  return g;
}

/** Investors and protocols as nodes, an edge for each investment. */
export function investmentGraph(graph: GraphFacts): Graph {
  const g = new Graph({ type: "undirected" });
  for (const [protocol, investors] of graph.investorsOf) {
    g.mergeNode(protocol, { kind: "protocol" });
    for (const investor of investors) {
      g.mergeNode(investor, { kind: "investor" });
      g.mergeEdge(investor, protocol);
    }
  }
  return g;
}

/** Louvain communities, deterministic for a given graph. */
export function communities(g: Graph, seed: string): Map<string, number> {
  if (g.order === 0) return new Map();
  const rng = new Rng(seed);
  // Edges without a weight count 1 (graphology's weight getter), so one setting serves both graphs.
  const mapping = louvain(g, { getEdgeWeight: "weight", rng: () => rng.next() });
  return new Map(Object.entries(mapping));
}

/**
 * The connected parts of a graph, each as a graph of its own (the investment networks of separate
 * worlds: the demo's generated funds never share a protocol with real ones), largest first.
 */
export function components(g: Graph): Graph[] {
  return connectedComponents(g)
    .sort((a, b) => b.length - a.length)
    .map((nodes) => {
      const part = new Graph({ type: "undirected" });
      for (const node of nodes) part.addNode(node, g.getNodeAttributes(node));
      for (const node of nodes) g.forEachEdge(node, (_edge, attributes, source, target) => part.mergeEdge(source, target, attributes));
      return part;
    });
}

/** Betweenness centrality (unweighted, normalised like networkx), exact or sampled; says which. */
export function betweenness(g: Graph, seed: string): { values: Map<string, number>; sampled: boolean } {
  const n = g.order;
  const brandes = createUnweightedIndexedBrandes(g);
  const sampled = n > EXACT_BETWEENNESS_NODES;
  const sources = sampled ? new Rng(seed).sample([...Array(n).keys()], BETWEENNESS_PIVOTS) : [...Array(n).keys()];
  const delta = new Float64Array(n);
  const centrality = new Float64Array(n);
  for (const s of sources) {
    const [S, P, sigma] = brandes(s);
    delta.fill(0);
    while (S.size !== 0) {
      const w = S.pop()!;
      const coefficient = (1 + delta[w]!) / sigma[w]!;
      for (const v of P[w]!) delta[v]! += sigma[v]! * coefficient;
      if (w !== s) centrality[w]! += delta[w]!;
    }
  }
  // Undirected paths are counted from both ends; normalise by the pairs not involving the node.
  const scale = (n / sources.length) * (n > 2 ? 1 / ((n - 1) * (n - 2)) : 1);
  const values = new Map<string, number>();
  // The index numbers nodes in graph.nodes() order; its own list is the authority.
  const nodes = (brandes as unknown as { index: { nodes: string[] } }).index.nodes;
  nodes.forEach((node, i) => values.set(node, centrality[i]! * scale));
  return { values, sampled };
}

