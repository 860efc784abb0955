import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, point, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/**
 * A token's insider flow on the as-of day against the 30 days before (days without flow count as
 * zero). Tokens need flows on half of those 30 days: against a sparse baseline any flow is "many
 * deviations" and says nothing. With trades of up to `a` either way on k of 30 days, the baseline's
 * sd is about a * sqrt(k / 90), so one ordinary trade is sqrt(90 / k) deviations: 3 (high) at
 * k = 10, 2.45 at k = 15.
 */
const MIN_ACTIVE_DAYS = 15;

export default defineDetector({
  slug: "flow-anomaly",
  category: "Smart Money & Insider Activity",
  description:
    "Z-score of a token's daily insider flow against its 30-day baseline; high: z above 3 (moderate 2-3, low 1.5-2). Where no wallet is a named insider the flows are the largest non-exchange holders' (a whale proxy, said in evidence.whale_proxy).",
  inputs: ["ts:insider_flows"],
  metric: { name: "insider_flow_z_score", description: "(flow(D) - mean flow(D-30..D-1)) / population sd of flow(D-30..D-1); missing days are 0" },
  bands: { direction: "higher", unit: "sd", low: 1.5, moderate: 2, high: 3 },
  details: {
    flow_usd: z.number(),
    baseline_mean_usd: z.number(),
    baseline_sd_usd: z.number(),
    baseline_active_days: z.number().int(),
    whale_proxy: z.boolean().describe("true when no wallet is a named insider: the flows are large holders' balance changes, a proxy for insiders"),
  },
  screens: { maxAgeDays: 1 },
  realData: {
    status: "partial",
    sources: [SOURCES.BS_HOLDERS, SOURCES.CG_MARKETS],
    note: "a whale proxy where no insider is named (evidence.whale_proxy), and it needs flows on 15 of 30 days: daily holder snapshots for at least 16 days",
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; flow: number; mean: number; sd: number; active: number; proxy: boolean }>(
      ctx.c,
      `WITH daily AS (SELECT entity_id, date, sum("netFlowUsd") AS flow, any_value(source_table) AS src, bool_and(coalesce(holder_role, 'whale') = 'whale') AS proxy FROM insider_flows
                      WHERE date >= ${ctx.day(30)} AND date <= ${ctx.day(0)} GROUP BY entity_id, date),
         base AS (SELECT entity_id, sum(flow) / 30 AS mean, count(*)::INTEGER AS active, bool_and(proxy) AS proxy,
                    sqrt(greatest(sum(flow * flow) / 30 - (sum(flow) / 30) ^ 2, 0)) AS sd
                  FROM daily WHERE date < ${ctx.day(0)} GROUP BY entity_id HAVING count(*) >= ${MIN_ACTIVE_DAYS})
       SELECT d.entity_id AS id, d.src, d.flow, b.mean, b.sd, b.active, b.proxy AND d.proxy AS proxy FROM daily d JOIN base b USING (entity_id)
       WHERE d.date = ${ctx.day(0)} AND b.sd > 0 AND abs(d.flow - b.mean) / b.sd >= 1.5`,
    );
    return rows.map((r) => {
      const z = (r.flow - r.mean) / r.sd;
      return {
        entities: [r.id],
        value: round(Math.abs(z), 4),
        window: { from: addDays(ctx.asOf, -30), to: ctx.asOf },
        lastDataDate: ctx.asOf,
        dataPoints: [
          point(r, "netFlowUsd (sum of wallets)", round(r.flow), ctx.asOf),
          point(r, "mean netFlowUsd D-30..D-1", round(r.mean)),
          point(r, "sd netFlowUsd D-30..D-1", round(r.sd)),
        ],
        summary: `${r.proxy ? "The largest holders (a whale proxy for insiders)" : "Insiders"} of ${ctx.graph.name(r.id)} moved ${usd(r.flow)} on ${ctx.asOf}, ${Math.abs(z).toFixed(1)} standard deviations ${z > 0 ? "above" : "below"} their 30-day mean of ${usd(r.mean)}.`,
        details: { flow_usd: round(r.flow), baseline_mean_usd: round(r.mean), baseline_sd_usd: round(r.sd), baseline_active_days: r.active, whale_proxy: r.proxy },
      };
    });
  },
});
