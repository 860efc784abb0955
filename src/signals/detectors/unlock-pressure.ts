import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, point, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** Scheduled unlocks over the next 30 days as a share of what circulates now. */
export default defineDetector({
  slug: "unlock-pressure",
  category: "Token Lifecycle Risk",
  description: "Upcoming unlocks above 5% of circulating supply within 30 days; high: above 15% (moderate 8-15%, low 5-8%).",
  inputs: ["ts:unlocks"],
  metric: { name: "upcoming_unlocks_30d_pct_of_circulating", description: "sum of shareOfCirculating of unlock events in D+1..D+30, percent" },
  bands: { direction: "higher", unit: "%", low: 5, moderate: 8, high: 15 },
  details: {
    unlock_value_usd: z.number(),
    events: z.array(z.object({ date: z.string(), allocation_group: z.string().nullable(), share_of_circulating_pct: z.number(), value_usd: z.number() })),
  },
  screens: { maxAgeDays: null },
  realData: {
    status: "yes",
    sources: [SOURCES.DL_UNLOCKS, SOURCES.CG_MARKETS],
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; share: number; value: number; events: { date: string; grp: string | null; share: number; value: number }[] }>(
      ctx.c,
      `SELECT entity_id AS id, any_value(source_table) AS src, sum("shareOfCirculating") AS share, sum("valueUsd") AS value,
         list({'date': date::VARCHAR, 'grp': allocation_group, 'share': "shareOfCirculating", 'value': "valueUsd"} ORDER BY date) AS events
       FROM unlocks WHERE date > ${ctx.day(0)} AND date <= ${ctx.day(-30)}
       GROUP BY entity_id HAVING sum("shareOfCirculating") >= 0.05`,
    );
    return rows.map((r) => ({
      entities: [r.id],
      value: round(r.share * 100, 4),
      window: { from: addDays(ctx.asOf, 1), to: addDays(ctx.asOf, 30) },
      lastDataDate: null,
      dataPoints: r.events.slice(0, 10).map((e) => point(r, "shareOfCirculating", round(e.share, 6), e.date)),
      summary: `${ctx.graph.name(r.id)}: ${(r.share * 100).toFixed(1)}% of its circulating supply (${usd(r.value)}) unlocks in the next 30 days over ${r.events.length} event${r.events.length > 1 ? "s" : ""}.`,
      details: {
        unlock_value_usd: round(r.value),
        events: r.events.map((e) => ({ date: e.date, allocation_group: e.grp, share_of_circulating_pct: round(e.share * 100, 4), value_usd: round(e.value) })),
      },
    }));
  },
});
