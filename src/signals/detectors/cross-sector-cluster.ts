import { createHash } from "node:crypto";
import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { append } from "../kit.ts";
import { coInvestmentGraph, communities } from "../networks.ts";
import { SOURCES } from "../sources.ts";

/**
 * Communities (Louvain) of the graph of tokens sharing 2+ investors, when they span several
 * sectors: the same money behind unrelated businesses moves them together.
 */
export default defineDetector({
  slug: "cross-sector-cluster",
  category: "Investment Graph Intelligence",
  description: "Token communities of the co-investment graph spanning 3+ sectors; high: 5+ sectors (moderate 3-4).",
  inputs: ["graph:investedIn", "graph:issuedBy", "graph:category"],
  metric: { name: "sectors_spanned", description: "distinct sectors of the tokens in one Louvain community (tokens linked by 2+ shared investors)" },
  bands: { direction: "higher", unit: "sectors", moderate: 3, high: 5 },
  details: { community_size: z.number().int(), sectors: z.array(z.string()), members: z.array(z.string()).describe("members by number of co-investment links (at most 25)") },
  screens: { maxAgeDays: null },
  realData: {
    status: "yes",
    sources: [SOURCES.DL_RAISES, SOURCES.DL_CATEGORY],
  },
  async detect(ctx) {
    const { graph } = ctx;
    const g = coInvestmentGraph(graph, 2);
    const groups = new Map<number, string[]>();
    for (const [token, community] of communities(g, "cross-sector-cluster")) append(groups, community, token);
    const findings = [];
    for (const members of groups.values()) {
      if (members.length < 3) continue;
      const sectors = [...new Set(members.map((t) => graph.sectorOf.get(graph.issuerOf.get(t) ?? "")).filter((s): s is string => Boolean(s)))].sort();
      if (sectors.length < 3) continue;
      const ranked = members.sort((a, b) => g.degree(b) - g.degree(a) || a.localeCompare(b));
      const key = createHash("sha256").update([...members].sort().join("\n")).digest("hex").slice(0, 16);
      findings.push({
        entities: ranked.slice(0, 10),
        key: `community:${key}`,
        value: sectors.length,
        window: { from: ctx.asOf, to: ctx.asOf },
        lastDataDate: null,
        dataPoints: ranked.slice(0, 10).map((t) => ({ table: "graph", entity: t, date: null, column: "sector", value: graph.sectorOf.get(graph.issuerOf.get(t) ?? "") ?? null })),
        summary: `A community of ${members.length} co-invested tokens around ${ranked.slice(0, 3).map((t) => graph.name(t)).join(", ")} spans ${sectors.length} sectors (${sectors.slice(0, 5).join(", ")}).`,
        details: { community_size: members.length, sectors, members: ranked.slice(0, 25) },
      });
    }
    return findings;
  },
});
