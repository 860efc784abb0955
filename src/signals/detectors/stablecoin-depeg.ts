import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { point, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/**
 * Price off its peg on the as-of day. USD stablecoins are measured against 1; others against their
 * own median price over the 30 days before (the exchange rate of their currency, as the market sets it).
 */
export default defineDetector({
  slug: "stablecoin-depeg",
  category: "DeFi Risk & Opportunity",
  description: "Stablecoin price deviating from its peg by more than 0.5% with supply above 1M USD; high: above 2% (moderate 1-2%).",
  inputs: ["ts:stablecoin"],
  metric: { name: "peg_deviation_pct", description: "|price(D) / peg - 1|, percent; peg 1 for USD, else the 30-day median price" },
  bands: { direction: "higher", unit: "%", low: 0.5, moderate: 1, high: 2 },
  details: { price: z.number(), peg: z.number(), peg_currency: z.string().nullable(), direction: z.enum(["below", "above"]), circulating_usd: z.number() },
  screens: { maxAgeDays: 2, sizeFloor: { what: "circulating supply", minUsd: 1_000_000 } },
  realData: {
    status: "yes",
    sources: [SOURCES.DL_STABLE],
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; price: number; peg: number; currency: string | null; circ: number; last: string }>(
      ctx.c,
      `WITH pegs AS (SELECT entity_id, median(price) AS fx FROM stablecoin WHERE date >= ${ctx.day(30)} AND date < ${ctx.day(0)} GROUP BY entity_id)
       SELECT s.entity_id AS id, s.source_table AS src, s.price, CASE WHEN coalesce(s."pegCurrency", 'USD') = 'USD' THEN 1.0 ELSE p.fx END AS peg,
         s."pegCurrency" AS currency, s."circulatingUsd" AS circ, s.date::VARCHAR AS last
       FROM stablecoin s LEFT JOIN pegs p USING (entity_id)
       WHERE s.date = ${ctx.day(0)} AND s.price > 0
         AND abs(s.price / CASE WHEN coalesce(s."pegCurrency", 'USD') = 'USD' THEN 1.0 ELSE p.fx END - 1) >= 0.005`,
    );
    return rows.map((r) => {
      const dev = Math.abs(r.price / r.peg - 1) * 100;
      const below = r.price < r.peg;
      return {
        entities: [r.id],
        value: round(dev, 4),
        window: { from: ctx.asOf, to: ctx.asOf },
        lastDataDate: r.last,
        size: r.circ,
        dataPoints: [
          point(r, "price", round(r.price, 6), r.last),
          point(r, "circulatingUsd", round(r.circ), r.last),
        ],
        summary: `${ctx.graph.name(r.id)} trades at ${r.price.toFixed(4)}, ${dev.toFixed(2)}% ${below ? "below" : "above"} its ${r.currency ?? "USD"} peg of ${r.peg.toFixed(4)}, with ${usd(r.circ)} circulating.`,
        details: { price: round(r.price, 6), peg: round(r.peg, 6), peg_currency: r.currency, direction: below ? ("below" as const) : ("above" as const), circulating_usd: round(r.circ) },
      };
    });
  },
});
