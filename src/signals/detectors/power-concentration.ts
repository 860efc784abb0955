import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { point, round, rowsOf } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** The five largest holders' share of a token's supply: who can swing a vote or the market. */
export default defineDetector({
  slug: "power-concentration",
  category: "Governance Risk",
  description: "Holder concentration; high: top 5 holders above 70% of supply (moderate 50-70%, low 40-50%).",
  inputs: ["ts:holders"],
  metric: { name: "top5_holder_share_pct", description: "sum of the five largest holders' shareOfSupply on the latest holders day, percent" },
  bands: { direction: "higher", unit: "%", low: 40, moderate: 50, high: 70 },
  details: { holders: z.array(z.object({ rank: z.number().int(), wallet: z.string(), holder_id: z.string().nullable(), share_pct: z.number() })) },
  screens: { maxAgeDays: 10 },
  realData: {
    status: "yes",
    sources: [SOURCES.BS_HOLDERS],
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; last: string; top5: number; holders: { rank: number; wallet: string; holder_id: string | null; share: number }[] }>(
      ctx.c,
      `WITH latest AS (SELECT entity_id, max(date) AS d FROM holders WHERE date <= ${ctx.day(0)} AND date > ${ctx.day(14)} GROUP BY entity_id)
       SELECT h.entity_id AS id, any_value(h.source_table) AS src, any_value(h.date)::VARCHAR AS last, sum(h."shareOfSupply") AS top5,
         list({'rank': h.rank::INTEGER, 'wallet': h.wallet, 'holder_id': h.holder_id, 'share': h."shareOfSupply"} ORDER BY h.rank) AS holders
       FROM holders h JOIN latest l ON l.entity_id = h.entity_id AND l.d = h.date WHERE h.rank <= 5
       GROUP BY h.entity_id HAVING sum(h."shareOfSupply") >= 0.40`,
    );
    return rows.map((r) => ({
      entities: [r.id],
      value: round(r.top5 * 100, 4),
      window: { from: r.last, to: r.last },
      lastDataDate: r.last,
      dataPoints: r.holders.map((h) => point(r, `shareOfSupply rank ${h.rank}`, round(h.share, 6), r.last)),
      summary: `The five largest holders of ${ctx.graph.name(r.id)} own ${(r.top5 * 100).toFixed(1)}% of its supply.`,
      details: { holders: r.holders.map((h) => ({ rank: h.rank, wallet: h.wallet, holder_id: h.holder_id, share_pct: round(h.share * 100, 3) })) },
    }));
  },
});
