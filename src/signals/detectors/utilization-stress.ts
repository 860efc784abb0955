import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { point, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** Lending markets borrowed close to their supply: withdrawals may fail, rates jump. */
export default defineDetector({
  slug: "utilization-stress",
  category: "DeFi Risk & Opportunity",
  description: "Lending utilization above 85%; high: above 95% (moderate 90-95%).",
  inputs: ["ts:lending"],
  metric: { name: "utilization_pct", description: "borrowed / supplied on the as-of day, percent" },
  bands: { direction: "higher", unit: "%", low: 85, moderate: 90, high: 95 },
  details: {
    days_above_85_pct: z.number().int().describe("days of the last seven with utilization at or above 85%"),
    total_supply_usd: z.number(),
    total_borrow_usd: z.number(),
    borrow_apy: z.number().nullable(),
    protocol_id: z.string().nullable(),
    asset_id: z.string().nullable(),
  },
  screens: { maxAgeDays: 2, sizeFloor: { what: "supplied", minUsd: 1_000_000 } },
  realData: {
    status: "yes",
    sources: [SOURCES.DL_LEND],
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; u: number; supply: number; borrow: number; apy: number | null; protocol: string | null; asset: string | null; days: number; last: string }>(
      ctx.c,
      `WITH week AS (SELECT entity_id, count(*) FILTER (WHERE utilization >= 0.85)::INTEGER AS days FROM lending
                     WHERE date > ${ctx.day(7)} AND date <= ${ctx.day(0)} GROUP BY entity_id)
       SELECT l.entity_id AS id, l.source_table AS src, l.utilization AS u, l."totalSupplyUsd" AS supply, l."totalBorrowUsd" AS borrow,
         l."borrowApy" AS apy, l.protocol_id AS protocol, l.asset_id AS asset, w.days, l.date::VARCHAR AS last
       FROM lending l JOIN week w USING (entity_id) WHERE l.date = ${ctx.day(0)} AND l.utilization >= 0.85`,
    );
    return rows.map((r) => ({
      entities: [r.id, r.protocol, r.asset].filter((e): e is string => Boolean(e)),
      value: round(r.u * 100, 4),
      window: { from: ctx.asOf, to: ctx.asOf },
      lastDataDate: r.last,
      size: r.supply,
      dataPoints: [
        point(r, "utilization", round(r.u, 6), r.last),
        point(r, "totalSupplyUsd", round(r.supply), r.last),
        point(r, "totalBorrowUsd", round(r.borrow), r.last),
      ],
      summary: `${ctx.graph.name(r.id)}: ${(r.u * 100).toFixed(1)}% of ${usd(r.supply)} supplied is borrowed (at or above 85% on ${r.days} of the last 7 days).`,
      details: { days_above_85_pct: r.days, total_supply_usd: round(r.supply), total_borrow_usd: round(r.borrow), borrow_apy: r.apy === null ? null : round(r.apy, 4), protocol_id: r.protocol, asset_id: r.asset },
    }));
  },
});
