import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, point, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** Protocols losing money (incentives above revenue), and whether the loss deepens or eases. */
export default defineDetector({
  slug: "earnings-health",
  category: "Protocol Fundamentals",
  description: "Daily losses above 10K USD, worsening or improving; high: above 100K/day and worsening (moderate 50-100K/day, low 10-50K/day).",
  inputs: ["ts:protocol"],
  metric: { name: "daily_loss_usd", description: "-mean earningsUsd over D-29..D, USD a day" },
  bands: { direction: "higher", unit: "USD/day", low: 10_000, moderate: 50_000, high: 100_000 },
  details: {
    trend: z.enum(["worsening", "improving", "steady"]).describe("against the 30 days before: 10% deeper is worsening, 10% shallower improving"),
    daily_loss_prior_30d_usd: z.number(),
  },
  screens: { maxAgeDays: 2 },
  realData: {
    status: "partial",
    sources: [SOURCES.DL_FEES, SOURCES.DL_POOLS],
    note: "incentives are estimated from the reward yields of the protocol's pools (TVL x apyReward): rewards paid through pools DefiLlama tracks, whoever pays them",
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; loss: number; before: number; last: string }>(
      ctx.c,
      `SELECT entity_id AS id, any_value(source_table) AS src,
         -avg("earningsUsd") FILTER (WHERE date > ${ctx.day(30)}) AS loss,
         -avg("earningsUsd") FILTER (WHERE date <= ${ctx.day(30)}) AS before, max(date)::VARCHAR AS last
       FROM protocol WHERE date > ${ctx.day(60)} AND date <= ${ctx.day(0)}
       GROUP BY entity_id HAVING -avg("earningsUsd") FILTER (WHERE date > ${ctx.day(30)}) >= 10000`,
    );
    return rows.map((r) => {
      const before = r.before ?? 0;
      const trend = r.loss > before * 1.1 ? "worsening" : r.loss < before * 0.9 ? "improving" : "steady";
      return {
        entities: [r.id],
        value: round(r.loss, 2),
        cap: trend === "worsening" ? undefined : { severity: "moderate" as const, reason: `losses are ${trend}, not worsening` },
        window: { from: addDays(ctx.asOf, -59), to: ctx.asOf },
        lastDataDate: r.last,
        dataPoints: [
          point(r, "mean earningsUsd D-29..D", round(-r.loss)),
          point(r, "mean earningsUsd D-59..D-30", round(-before)),
        ],
        summary: `${ctx.graph.name(r.id)} lost ${usd(r.loss)} a day over the last 30 days (${usd(before)} a day the 30 days before: ${trend}).`,
        details: { trend: trend as "worsening" | "improving" | "steady", daily_loss_prior_30d_usd: round(before) },
      };
    });
  },
});
