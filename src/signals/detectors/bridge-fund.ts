import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { round } from "../kit.ts";
import { betweenness, communities, components, investmentGraph } from "../networks.ts";
import { lowerBound } from "../../sorted.ts";
import { SOURCES } from "../sources.ts";

/**
 * Investors on the shortest paths between otherwise separate parts of the investment graph. The
 * raw metric is the fund's betweenness percentile among the investors of its connected investment
 * network, so the bands mean the same at any scale; a fund must also back protocols in two or more
 * Louvain communities.
 */
export default defineDetector({
  slug: "bridge-fund",
  category: "Investment Graph Intelligence",
  description: "Funds with high betweenness centrality connecting separate investment clusters; high: very high betweenness (top 1% of investors; moderate top 3%, low top 10%).",
  inputs: ["graph:investedIn"],
  metric: { name: "betweenness_percentile", description: "percent of the investors of its connected investor-protocol network with lower betweenness centrality" },
  bands: { direction: "higher", unit: "percentile", low: 90, moderate: 97, high: 99 },
  details: {
    betweenness: z.number().describe("normalised betweenness centrality"),
    sampled: z.boolean().describe("true when betweenness was estimated from sampled pivots"),
    communities_bridged: z.number().int(),
    portfolio_size: z.number().int(),
    network_investors: z.number().int().describe("investors in the fund's connected investment network, among whom it is ranked"),
  },
  screens: { maxAgeDays: null },
  realData: {
    status: "yes",
    sources: [SOURCES.DL_RAISES],
  },
  async detect(ctx) {
    const { graph } = ctx;
    const g = investmentGraph(graph);
    if (g.order === 0) return [];
    const findings = [];
    // Each investor is ranked, and its network split into communities, within its own investment
    // network: networks that share no protocol (the demo's generated funds and the real ones) are
    // separate worlds, a fund's centrality says nothing about funds it has no path to, and Louvain
    // over them all would merge a small network's communities (its resolution limit).
    for (const [part, network] of components(g).entries()) {
      const investors = network.filterNodes((_, attrs) => attrs.kind === "investor");
      if (investors.length < 3) continue;
      const community = communities(network, `bridge-fund ${part}`);
      const { values, sampled } = betweenness(network, `bridge-fund ${part}`);
      const sorted = investors.map((i) => values.get(i) ?? 0).sort((a, b) => a - b);
      for (const investor of investors.sort()) {
        const b = values.get(investor) ?? 0;
        if (b <= 0) continue;
        const percentile = (lowerBound(sorted, b) / sorted.length) * 100;
        if (percentile < 90) continue;
        const portfolio = network.neighbors(investor);
        const bridged = new Set(portfolio.map((p) => community.get(p)));
        if (bridged.size < 2) continue;
        findings.push({
          entities: [investor],
          value: round(percentile, 4),
          window: { from: ctx.asOf, to: ctx.asOf },
          lastDataDate: null,
          dataPoints: [{ table: "graph", entity: investor, date: null, column: "betweenness", value: b }],
          summary: `${graph.name(investor)} sits on more shortest paths than ${percentile.toFixed(1)}% of the ${investors.length} investors of its network, backing ${portfolio.length} protocols across ${bridged.size} investment communities.`,
          details: { betweenness: b, sampled, communities_bridged: bridged.size, portfolio_size: portfolio.length, network_investors: investors.length },
        });
      }
    }
    return findings;
  },
});
