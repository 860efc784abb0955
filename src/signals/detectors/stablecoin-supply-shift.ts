import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, point, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** Week-over-week change of a stablecoin's circulating supply: large mints or redemptions. */
export default defineDetector({
  slug: "stablecoin-supply-shift",
  category: "DeFi Risk & Opportunity",
  description: "Week-over-week stablecoin supply change above 10% with circulation above 1M USD; high: above 30% (moderate 15-30%).",
  inputs: ["ts:stablecoin"],
  metric: { name: "supply_change_7d_pct", description: "|circulatingUsd(D) / circulatingUsd(D-7) - 1|, percent" },
  bands: { direction: "higher", unit: "%", low: 10, moderate: 15, high: 30 },
  details: { direction: z.enum(["mint", "redemption"]), circulating_usd: z.number(), circulating_usd_week_before: z.number() },
  screens: { maxAgeDays: 2, sizeFloor: { what: "circulating supply", minUsd: 1_000_000 } },
  realData: {
    status: "yes",
    sources: [SOURCES.DL_STABLE],
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; now: number; before: number; last: string }>(
      ctx.c,
      `SELECT n.entity_id AS id, n.source_table AS src, n."circulatingUsd" AS now, b."circulatingUsd" AS before, n.date::VARCHAR AS last
       FROM stablecoin n JOIN stablecoin b ON b.entity_id = n.entity_id AND b.date = ${ctx.day(7)}
       WHERE n.date = ${ctx.day(0)} AND b."circulatingUsd" > 0 AND abs(n."circulatingUsd" / b."circulatingUsd" - 1) >= 0.10`,
    );
    return rows.map((r) => {
      const change = (r.now / r.before - 1) * 100;
      return {
        entities: [r.id],
        value: round(Math.abs(change), 4),
        window: { from: addDays(ctx.asOf, -7), to: ctx.asOf },
        lastDataDate: r.last,
        size: Math.max(r.now, r.before),
        dataPoints: [
          point(r, "circulatingUsd", round(r.before), addDays(ctx.asOf, -7)),
          point(r, "circulatingUsd", round(r.now), r.last),
        ],
        summary: `${ctx.graph.name(r.id)}: circulating supply ${change > 0 ? "grew" : "shrank"} ${Math.abs(change).toFixed(1)}% in a week, from ${usd(r.before)} to ${usd(r.now)}.`,
        details: { direction: change > 0 ? ("mint" as const) : ("redemption" as const), circulating_usd: round(r.now), circulating_usd_week_before: round(r.before) },
      };
    });
  },
});
