import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, point, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** Revenue of the last 30 days against the 90 days before; high needs a strong trend before the jump. */
export default defineDetector({
  slug: "revenue-momentum",
  category: "Protocol Fundamentals",
  description: "Revenue acceleration, last 30 days against the 90 days before; high: above 100% in 30 days on a strong 90-day trend (moderate 50-100%, low 20-50%).",
  inputs: ["ts:protocol"],
  metric: { name: "revenue_30d_vs_prior_90d_pct", description: "mean revenueUsd D-29..D / mean revenueUsd D-119..D-30 - 1, percent" },
  bands: { direction: "higher", unit: "%", low: 20, moderate: 50, high: 100 },
  details: {
    revenue_30d_mean_usd: z.number(),
    revenue_prior_90d_mean_usd: z.number(),
    prior_trend_pct: z.number().describe("mean revenue D-59..D-30 against D-119..D-90, percent; 10% or more counts as a strong trend"),
  },
  screens: { maxAgeDays: 2, sizeFloor: { what: "mean daily revenue over the prior 90 days", minUsd: 1_000 } },
  realData: {
    status: "yes",
    sources: [SOURCES.DL_FEES],
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; recent: number; prior: number; early: number; late: number; last: string }>(
      ctx.c,
      `SELECT entity_id AS id, any_value(source_table) AS src,
         avg("revenueUsd") FILTER (WHERE date > ${ctx.day(30)}) AS recent,
         avg("revenueUsd") FILTER (WHERE date <= ${ctx.day(30)}) AS prior,
         avg("revenueUsd") FILTER (WHERE date <= ${ctx.day(90)}) AS early,
         avg("revenueUsd") FILTER (WHERE date > ${ctx.day(60)} AND date <= ${ctx.day(30)}) AS late,
         max(date)::VARCHAR AS last
       FROM protocol WHERE date > ${ctx.day(120)} AND date <= ${ctx.day(0)}
       GROUP BY entity_id
       HAVING avg("revenueUsd") FILTER (WHERE date <= ${ctx.day(30)}) > 0
          AND avg("revenueUsd") FILTER (WHERE date > ${ctx.day(30)}) >= 1.20 * avg("revenueUsd") FILTER (WHERE date <= ${ctx.day(30)})`,
    );
    return rows.map((r) => {
      const growth = (r.recent / r.prior - 1) * 100;
      const trend = r.early > 0 ? (r.late / r.early - 1) * 100 : 0;
      return {
        entities: [r.id],
        value: round(growth, 4),
        cap: trend >= 10 ? undefined : { severity: "moderate" as const, reason: `no strong 90-day trend before the jump (${trend.toFixed(1)}%, 10% needed for high)` },
        window: { from: addDays(ctx.asOf, -119), to: ctx.asOf },
        lastDataDate: r.last,
        size: r.prior,
        dataPoints: [
          point(r, "mean revenueUsd D-29..D", round(r.recent)),
          point(r, "mean revenueUsd D-119..D-30", round(r.prior)),
        ],
        summary: `${ctx.graph.name(r.id)}: revenue averaged ${usd(r.recent)} a day over 30 days, ${growth.toFixed(0)}% above the ${usd(r.prior)} of the 90 days before (prior trend ${trend.toFixed(0)}%).`,
        details: { revenue_30d_mean_usd: round(r.recent), revenue_prior_90d_mean_usd: round(r.prior), prior_trend_pct: round(trend, 2) },
      };
    });
  },
});
