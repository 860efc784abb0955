import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { sharedInvestorPairs } from "../graph-facts.ts";
import { SOURCES } from "../sources.ts";

/** Token pairs whose issuers (two different protocols) share three or more investors. */
export default defineDetector({
  slug: "co-investment-network",
  category: "Investment Graph Intelligence",
  description: "Token pairs sharing 3+ investors; high: 5+ shared investors (moderate 3-4).",
  inputs: ["graph:investedIn", "graph:issuedBy"],
  metric: { name: "shared_investors", description: "investors of both tokens' issuing protocols" },
  bands: { direction: "higher", unit: "investors", moderate: 3, high: 5 },
  details: { shared_investors: z.array(z.string()), protocols: z.array(z.string()), sectors: z.array(z.string()) },
  screens: { maxAgeDays: null },
  realData: {
    status: "yes",
    sources: [SOURCES.DL_RAISES, SOURCES.DL_CATEGORY],
  },
  async detect(ctx) {
    const { graph } = ctx;
    return sharedInvestorPairs(graph, 3).map(({ a, b, shared }) => {
      const protocols = [graph.issuerOf.get(a)!, graph.issuerOf.get(b)!];
      const sectors = [...new Set(protocols.map((p) => graph.sectorOf.get(p)).filter((s): s is string => Boolean(s)))];
      return {
        entities: [a, b],
        value: shared.length,
        window: { from: ctx.asOf, to: ctx.asOf },
        lastDataDate: null,
        dataPoints: shared.slice(0, 10).map((investor) => ({ table: "graph", entity: investor, date: null, column: "investedIn", value: protocols.join(" & ") })),
        summary: `${graph.name(a)} and ${graph.name(b)} share ${shared.length} investors: ${shared.slice(0, 4).map((i) => graph.name(i)).join(", ")}${shared.length > 4 ? " and others" : ""}.`,
        details: { shared_investors: shared, protocols, sectors },
      };
    });
  },
});
