import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, point, round } from "../kit.ts";
import { closedProposals } from "./proposals.ts";
import { SOURCES } from "../sources.ts";

/** Proposals that passed in the last 30 days by a thin margin. */
export default defineDetector({
  slug: "controversial-proposal",
  category: "Governance Risk",
  description: "Proposals passing with a vote margin under 20%; high: margin under 5% (moderate 5-12%, low 12-20%).",
  inputs: ["ts:governance"],
  metric: { name: "passing_margin_pct", description: "(for - against) / (for + against) of a proposal passed in D-29..D, percent" },
  bands: { direction: "lower", unit: "%", low: 20, moderate: 12, high: 5 },
  details: { closed_on: z.string(), votes_for: z.number(), votes_against: z.number(), turnout_pct: z.number() },
  screens: { maxAgeDays: null },
  realData: {
    status: "yes",
    sources: [SOURCES.SNAP],
  },
  async detect(ctx) {
    const rows = await closedProposals(ctx, `margin < 0.20 AND margin >= 0`, ["passed"]);
    return rows.map((r) => ({
      entities: [r.proposal, r.org],
      value: round(r.margin * 100, 4),
      window: { from: addDays(ctx.asOf, -29), to: ctx.asOf },
      lastDataDate: r.closed,
      dataPoints: [
        point({ src: r.src, id: r.proposal }, "votesFor", round(r.for, 2), r.closed),
        point({ src: r.src, id: r.proposal }, "votesAgainst", round(r.against, 2), r.closed),
      ],
      summary: `${ctx.graph.name(r.proposal)} (${ctx.graph.name(r.org)}) passed on ${r.closed} by a ${(r.margin * 100).toFixed(1)}% margin.`,
      details: { closed_on: r.closed, votes_for: round(r.for, 2), votes_against: round(r.against, 2), turnout_pct: round(r.turnout * 100, 4) },
    }));
  },
});
