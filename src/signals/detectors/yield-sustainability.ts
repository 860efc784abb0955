import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, point, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** Reward APY against base APY over the last week: yields paid in emissions rather than fees or interest. */
export default defineDetector({
  slug: "yield-sustainability",
  category: "DeFi Risk & Opportunity",
  description: "Reward APY above 5x base APY; high: ratio above 15x (moderate 8-15x, low 5-8x).",
  inputs: ["ts:pool"],
  metric: { name: "reward_to_base_apy_ratio", description: "mean apyReward / mean apyBase over D-6..D" },
  bands: { direction: "higher", unit: "x", low: 5, moderate: 8, high: 15 },
  details: { apy_reward: z.number(), apy_base: z.number(), tvl_usd: z.number(), protocol_id: z.string().nullable() },
  screens: { maxAgeDays: 2, sizeFloor: { what: "pool TVL", minUsd: 500_000 } },
  realData: {
    status: "yes",
    sources: [SOURCES.DL_POOLS],
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; reward: number; base: number; tvl: number; protocol: string | null; last: string }>(
      ctx.c,
      `SELECT entity_id AS id, any_value(source_table) AS src, avg("apyReward") AS reward, avg("apyBase") AS base,
         arg_max("tvlUsd", date) AS tvl, any_value(protocol_id) AS protocol, max(date)::VARCHAR AS last
       FROM pool WHERE date > ${ctx.day(7)} AND date <= ${ctx.day(0)}
       GROUP BY entity_id HAVING avg("apyBase") > 0 AND avg("apyReward") >= 5 * avg("apyBase")`,
    );
    return rows.map((r) => {
      const ratio = r.reward / r.base;
      return {
        entities: r.protocol ? [r.id, r.protocol] : [r.id],
        value: round(ratio, 4),
        window: { from: addDays(ctx.asOf, -6), to: ctx.asOf },
        lastDataDate: r.last,
        size: r.tvl,
        dataPoints: [
          point(r, "mean apyReward D-6..D", round(r.reward, 4)),
          point(r, "mean apyBase D-6..D", round(r.base, 4)),
          point(r, "tvlUsd", round(r.tvl), r.last),
        ],
        summary: `${ctx.graph.name(r.id)}: reward APY ${r.reward.toFixed(2)}% is ${ratio.toFixed(1)}x its base APY of ${r.base.toFixed(2)}% over the last week (${usd(r.tvl)} TVL).`,
        details: { apy_reward: round(r.reward, 4), apy_base: round(r.base, 4), tvl_usd: round(r.tvl), protocol_id: r.protocol },
      };
    });
  },
});
