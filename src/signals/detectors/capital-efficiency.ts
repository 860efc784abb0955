import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, point, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** Fees growing faster than the capital behind them: the same TVL earns more. */
export default defineDetector({
  slug: "capital-efficiency",
  category: "Protocol Fundamentals",
  description: "Fee growth against TVL growth; high: fees outpacing TVL by more than 50 percentage points (moderate 35-50, low 20-35).",
  inputs: ["ts:protocol"],
  metric: { name: "fees_growth_minus_tvl_growth_pp", description: "fees growth - TVL growth, percentage points; growth = mean of D-6..D against mean of the 30 days before (D-36..D-7)" },
  bands: { direction: "higher", unit: "pp", low: 20, moderate: 35, high: 50 },
  details: { fees_growth_pct: z.number(), tvl_growth_pct: z.number(), fees_7d_mean_usd: z.number(), tvl_usd: z.number() },
  screens: { maxAgeDays: 2, sizeFloor: { what: "mean daily fees over the last week", minUsd: 1_000 } },
  realData: {
    status: "yes",
    sources: [SOURCES.DL_FEES, SOURCES.DL_TVL],
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; fg: number; tg: number; fees: number; tvl: number; last: string }>(
      ctx.c,
      `SELECT * FROM (
         SELECT entity_id AS id, any_value(source_table) AS src, max(date)::VARCHAR AS last,
           avg("feesUsd") FILTER (WHERE date > ${ctx.day(7)}) / avg("feesUsd") FILTER (WHERE date <= ${ctx.day(7)}) - 1 AS fg,
           avg("tvlUsd") FILTER (WHERE date > ${ctx.day(7)}) / avg("tvlUsd") FILTER (WHERE date <= ${ctx.day(7)}) - 1 AS tg,
           avg("feesUsd") FILTER (WHERE date > ${ctx.day(7)}) AS fees, arg_max("tvlUsd", date) AS tvl
         FROM protocol WHERE date > ${ctx.day(37)} AND date <= ${ctx.day(0)} GROUP BY entity_id
         HAVING avg("feesUsd") FILTER (WHERE date <= ${ctx.day(7)}) > 0 AND avg("tvlUsd") FILTER (WHERE date <= ${ctx.day(7)}) > 0)
       WHERE fg - tg >= 0.20`,
    );
    return rows.map((r) => {
      const gap = (r.fg - r.tg) * 100;
      return {
        entities: [r.id],
        value: round(gap, 4),
        window: { from: addDays(ctx.asOf, -36), to: ctx.asOf },
        lastDataDate: r.last,
        size: r.fees,
        dataPoints: [
          point(r, "feesUsd growth", round(r.fg * 100, 2)),
          point(r, "tvlUsd growth", round(r.tg * 100, 2)),
        ],
        summary: `${ctx.graph.name(r.id)}: fees grew ${(r.fg * 100).toFixed(1)}% on the month before while TVL moved ${(r.tg * 100).toFixed(1)}% (now ${usd(r.fees)} a day on ${usd(r.tvl)}).`,
        details: { fees_growth_pct: round(r.fg * 100, 2), tvl_growth_pct: round(r.tg * 100, 2), fees_7d_mean_usd: round(r.fees), tvl_usd: round(r.tvl) },
      };
    });
  },
});
