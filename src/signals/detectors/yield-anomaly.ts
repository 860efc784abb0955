import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, point, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** APY on the as-of day against its mean over the seven days before: spikes and collapses alike. */
export default defineDetector({
  slug: "yield-anomaly",
  category: "DeFi Risk & Opportunity",
  description: "APY spikes or collapses in pools above 500K USD TVL; high: change above 500% (moderate 200-500%, low 100-200%).",
  inputs: ["ts:pool"],
  metric: {
    name: "apy_change_pct",
    description: "larger of APY(D)/mean APY(D-7..D-1) and its inverse, minus 1, in percent (a spike to 3x and a collapse to a third both read 200%)",
  },
  bands: { direction: "higher", unit: "%", low: 100, moderate: 200, high: 500 },
  details: {
    direction: z.enum(["spike", "collapse"]),
    apy: z.number(),
    baseline_apy: z.number(),
    tvl_usd: z.number(),
    protocol_id: z.string().nullable(),
    chain_id: z.string().nullable(),
  },
  screens: { maxAgeDays: 2, sizeFloor: { what: "pool TVL", minUsd: 500_000 } },
  realData: {
    status: "yes",
    sources: [SOURCES.DL_POOLS],
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; apy: number; base: number; tvl: number; protocol: string | null; chain: string | null; last: string }>(
      ctx.c,
      `WITH base AS (
         SELECT entity_id, avg(apy) AS base FROM pool WHERE date >= ${ctx.day(7)} AND date < ${ctx.day(0)} GROUP BY entity_id HAVING count(*) >= 4)
       SELECT p.entity_id AS id, p.source_table AS src, p.apy, b.base, p."tvlUsd" AS tvl, p.protocol_id AS protocol, p.chain_id AS chain, p.date::VARCHAR AS last
       FROM pool p JOIN base b USING (entity_id)
       WHERE p.date = ${ctx.day(0)} AND p.apy > 0 AND b.base > 0 AND greatest(p.apy / b.base, b.base / p.apy) >= 2`,
    );
    return rows.map((r) => {
      const spike = r.apy >= r.base;
      const change = (spike ? r.apy / r.base - 1 : r.base / r.apy - 1) * 100;
      return {
        entities: r.protocol ? [r.id, r.protocol] : [r.id],
        value: round(change, 4),
        window: { from: addDays(ctx.asOf, -7), to: ctx.asOf },
        lastDataDate: r.last,
        size: r.tvl,
        dataPoints: [
          point(r, "apy", round(r.apy, 4), ctx.asOf),
          point(r, "mean apy D-7..D-1", round(r.base, 4)),
          point(r, "tvlUsd", round(r.tvl), ctx.asOf),
        ],
        summary: `${ctx.graph.name(r.id)}: APY ${spike ? "spiked" : "collapsed"} to ${r.apy.toFixed(2)}% from a 7-day mean of ${r.base.toFixed(2)}% (${round(change, 0)}% change) with ${usd(r.tvl)} TVL.`,
        details: { direction: spike ? ("spike" as const) : ("collapse" as const), apy: round(r.apy, 4), baseline_apy: round(r.base, 4), tvl_usd: round(r.tvl), protocol_id: r.protocol, chain_id: r.chain },
      };
    });
  },
});

