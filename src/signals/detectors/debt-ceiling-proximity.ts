import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { point, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** Borrowing against a governance debt ceiling: near the cap, new borrowing stops. */
export default defineDetector({
  slug: "debt-ceiling-proximity",
  category: "DeFi Risk & Opportunity",
  description: "Borrowing near its governance debt ceiling; high: above 95% of the ceiling (moderate 90-95%, low 85-90%).",
  inputs: ["ts:lending"],
  metric: { name: "borrow_to_ceiling_pct", description: "totalBorrowUsd / debtCeilingUsd on the as-of day, percent" },
  bands: { direction: "higher", unit: "%", low: 85, moderate: 90, high: 95 },
  details: { total_borrow_usd: z.number(), debt_ceiling_usd: z.number(), headroom_usd: z.number(), protocol_id: z.string().nullable(), asset_id: z.string().nullable() },
  screens: { maxAgeDays: 2, sizeFloor: { what: "supplied", minUsd: 1_000_000 } },
  realData: {
    status: "partial",
    sources: [SOURCES.DL_LEND],
    note: "only markets DefiLlama gives a debt ceiling for (debtCeilingUsd)",
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; borrow: number; ceiling: number; supply: number; protocol: string | null; asset: string | null; last: string }>(
      ctx.c,
      `SELECT entity_id AS id, source_table AS src, "totalBorrowUsd" AS borrow, "debtCeilingUsd" AS ceiling, "totalSupplyUsd" AS supply,
         protocol_id AS protocol, asset_id AS asset, date::VARCHAR AS last
       FROM lending WHERE date = ${ctx.day(0)} AND "debtCeilingUsd" > 0 AND "totalBorrowUsd" >= 0.85 * "debtCeilingUsd"`,
    );
    return rows.map((r) => {
      const use = (r.borrow / r.ceiling) * 100;
      return {
        entities: [r.id, r.protocol, r.asset].filter((e): e is string => Boolean(e)),
        value: round(use, 4),
        window: { from: ctx.asOf, to: ctx.asOf },
        lastDataDate: r.last,
        size: r.supply,
        dataPoints: [
          point(r, "totalBorrowUsd", round(r.borrow), r.last),
          point(r, "debtCeilingUsd", round(r.ceiling), r.last),
        ],
        summary: `${ctx.graph.name(r.id)}: ${usd(r.borrow)} borrowed is ${use.toFixed(1)}% of its ${usd(r.ceiling)} debt ceiling.`,
        details: { total_borrow_usd: round(r.borrow), debt_ceiling_usd: round(r.ceiling), headroom_usd: round(r.ceiling - r.borrow), protocol_id: r.protocol, asset_id: r.asset },
      };
    });
  },
});
