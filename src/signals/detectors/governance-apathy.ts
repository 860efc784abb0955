import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, point, round } from "../kit.ts";
import { closedProposals } from "./proposals.ts";
import { SOURCES } from "../sources.ts";

/** Proposals that closed in the last 30 days with almost nobody voting. */
export default defineDetector({
  slug: "governance-apathy",
  category: "Governance Risk",
  description: "Governance proposals closing with very low turnout; high: turnout under 1% (moderate 1-3%, low 3-5%).",
  inputs: ["ts:governance"],
  metric: { name: "turnout_pct", description: "votes cast / voting supply when the proposal closed (in D-29..D), percent" },
  bands: { direction: "lower", unit: "%", low: 5, moderate: 3, high: 1 },
  details: { proposal_status: z.string(), closed_on: z.string(), votes_cast: z.number(), margin_pct: z.number() },
  screens: { maxAgeDays: null },
  realData: {
    status: "partial",
    sources: [SOURCES.SNAP, SOURCES.CG_MARKETS],
    note: "turnout needs a voting supply: only spaces that vote with a token CoinGecko gives a circulating supply for",
  },
  async detect(ctx) {
    const rows = await closedProposals(ctx, `turnout < 0.05`, ["passed", "failed"]);
    return rows.map((r) => ({
      entities: [r.proposal, r.org],
      value: round(r.turnout * 100, 4),
      window: { from: addDays(ctx.asOf, -29), to: ctx.asOf },
      lastDataDate: r.closed,
      dataPoints: [
        point({ src: r.src, id: r.proposal }, "turnout", round(r.turnout, 6), r.closed),
        point({ src: r.src, id: r.proposal }, "status", r.status, r.closed),
      ],
      summary: `${ctx.graph.name(r.proposal)} (${ctx.graph.name(r.org)}) ${r.status} on ${r.closed} with ${(r.turnout * 100).toFixed(2)}% turnout.`,
      details: { proposal_status: r.status, closed_on: r.closed, votes_cast: round(r.votes, 2), margin_pct: round(r.margin * 100, 2) },
    }));
  },
});
