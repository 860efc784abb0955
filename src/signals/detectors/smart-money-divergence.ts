import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { point, round, rowsOf } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** Days around four weeks before the latest snapshot within which the earlier snapshot may lie. */
const SLACK_DAYS = 3;

/** The largest holder's balance against four weeks earlier: the best-informed wallet moving. */
export default defineDetector({
  slug: "smart-money-divergence",
  category: "Smart Money & Insider Activity",
  description: "Top holder's 30-day balance change above 20%; high: above 40% (moderate 20-40%, low 10-20%).",
  inputs: ["ts:holders"],
  metric: { name: "top_holder_balance_change_30d_pct", description: "|balance now / balance 28 days before - 1| of the wallet ranked first on the latest holders day, percent (the snapshot nearest 28 days before, 25 to 31)" },
  bands: { direction: "higher", unit: "%", low: 10, moderate: 20, high: 40 },
  details: { wallet: z.string(), holder_id: z.string().nullable(), direction: z.enum(["accumulating", "distributing"]), balance: z.number(), balance_before: z.number() },
  screens: { maxAgeDays: 10 },
  realData: {
    status: "yes",
    sources: [SOURCES.BS_HOLDERS],
    note: "needs holder snapshots about four weeks apart: fires once ckg has read holders daily for 25 days",
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; wallet: string; holder: string | null; now: number; before: number; d: string; d0: string }>(
      ctx.c,
      `WITH latest AS (SELECT entity_id, max(date) AS d FROM holders WHERE date <= ${ctx.day(0)} AND date > ${ctx.day(14)} GROUP BY entity_id),
         top AS (SELECT h.entity_id, h.source_table, h.wallet, h.holder_id, h.balance, h.date FROM holders h JOIN latest l ON l.entity_id = h.entity_id AND l.d = h.date WHERE h.rank = 1)
       SELECT t.entity_id AS id, t.source_table AS src, t.wallet, t.holder_id AS holder, t.balance AS now, b.balance AS before,
         t.date::VARCHAR AS d, b.date::VARCHAR AS d0
       FROM top t JOIN holders b ON b.entity_id = t.entity_id AND b.wallet = t.wallet
         AND b.date BETWEEN t.date - INTERVAL ${28 + SLACK_DAYS} DAY AND t.date - INTERVAL ${28 - SLACK_DAYS} DAY
       WHERE b.balance > 0 AND abs(t.balance / b.balance - 1) >= 0.10
       -- The snapshot nearest four weeks before (a day missed by a daily ingest moves it a little).
       QUALIFY row_number() OVER (PARTITION BY t.entity_id ORDER BY abs(datediff('day', b.date, t.date - INTERVAL 28 DAY)), b.date DESC) = 1`,
    );
    return rows.map((r) => {
      const change = (r.now / r.before - 1) * 100;
      return {
        entities: r.holder ? [r.id, r.holder] : [r.id],
        value: round(Math.abs(change), 4),
        window: { from: r.d0, to: r.d },
        lastDataDate: r.d,
        dataPoints: [
          point(r, `balance of ${r.wallet}`, round(r.before, 4), r.d0),
          point(r, `balance of ${r.wallet}`, round(r.now, 4), r.d),
        ],
        summary: `The largest holder of ${ctx.graph.name(r.id)}${r.holder ? ` (${ctx.graph.name(r.holder)})` : ""} ${change > 0 ? "added" : "cut"} ${Math.abs(change).toFixed(1)}% of its balance in four weeks.`,
        details: { wallet: r.wallet, holder_id: r.holder, direction: change > 0 ? ("accumulating" as const) : ("distributing" as const), balance: round(r.now, 4), balance_before: round(r.before, 4) },
      };
    });
  },
});
