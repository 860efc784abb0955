import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, point, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** Net buying or selling by a token's insiders over 30 days; high needs the flow to go one way. */
export default defineDetector({
  slug: "insider-accumulation",
  category: "Smart Money & Insider Activity",
  description:
    "Insiders net buying or selling over a rolling 30-day window; high: more than 1M USD net with strong skew (moderate 250K-1M, low 100-250K). Where no wallet is a named insider the flows are the largest non-exchange holders' (a whale proxy, said in evidence.whale_proxy).",
  inputs: ["ts:insider_flows"],
  metric: { name: "insider_net_flow_30d_usd", description: "|sum of insider netFlowUsd over D-29..D|, USD" },
  bands: { direction: "higher", unit: "USD", low: 100_000, moderate: 250_000, high: 1_000_000 },
  details: {
    direction: z.enum(["buying", "selling"]),
    net_flow_usd: z.number(),
    skew: z.number().describe("|net| / gross flow, 0..1; 0.6 or more is a strong skew"),
    whale_proxy: z.boolean().describe("true when no wallet is a named insider (team, investor, market maker): the flows are large holders' balance changes, a proxy for insiders"),
    insiders: z.number().int(),
    top_wallets: z.array(z.object({ wallet: z.string(), holder_id: z.string().nullable(), role: z.string().nullable(), net_flow_usd: z.number() })),
  },
  screens: { maxAgeDays: 30 },
  realData: {
    status: "partial",
    sources: [SOURCES.BS_HOLDERS, SOURCES.CG_MARKETS],
    note: "insiders are named only where the explorer labels a holder as a team, treasury or fund wallet; otherwise the flows are the largest non-exchange holders' balance changes, a whale proxy (evidence.whale_proxy)",
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; net: number; gross: number; n: number; last: string; proxy: boolean; top: { wallet: string; holder: string | null; role: string | null; net: number }[] }>(
      ctx.c,
      `WITH w AS (SELECT entity_id, wallet, any_value(holder_id) AS holder, any_value(holder_role) AS role, sum("netFlowUsd") AS net,
                    sum(abs("netFlowUsd")) AS gross, max(date) AS last, any_value(source_table) AS src
                  FROM insider_flows WHERE date > ${ctx.day(30)} AND date <= ${ctx.day(0)} GROUP BY entity_id, wallet)
       SELECT entity_id AS id, any_value(src) AS src, sum(net) AS net, sum(gross) AS gross, count(*)::INTEGER AS n, max(last)::VARCHAR AS last,
         bool_and(coalesce(role, 'whale') = 'whale') AS proxy,
         list({'wallet': wallet, 'holder': holder, 'role': role, 'net': net} ORDER BY abs(net) DESC)[1:5] AS top
       FROM w GROUP BY entity_id HAVING abs(sum(net)) >= 100000`,
    );
    return rows.map((r) => {
      const skew = r.gross > 0 ? Math.abs(r.net) / r.gross : 0;
      const buying = r.net > 0;
      return {
        entities: [r.id],
        value: round(Math.abs(r.net), 2),
        cap: skew >= 0.6 ? undefined : { severity: "moderate" as const, reason: `flows are mixed (skew ${skew.toFixed(2)}, 0.6 needed for high)` },
        window: { from: addDays(ctx.asOf, -29), to: ctx.asOf },
        lastDataDate: r.last,
        dataPoints: r.top.map((t) => point(r, `netFlowUsd of ${t.wallet} D-29..D`, round(t.net))),
        summary: `${r.proxy ? "The largest holders (a whale proxy for insiders)" : "Insiders"} of ${ctx.graph.name(r.id)} were net ${buying ? "buyers" : "sellers"} of ${usd(Math.abs(r.net))} over 30 days across ${r.n} wallet${r.n === 1 ? "" : "s"} (skew ${skew.toFixed(2)}).`,
        details: {
          direction: buying ? ("buying" as const) : ("selling" as const),
          net_flow_usd: round(r.net),
          skew: round(skew, 4),
          whale_proxy: r.proxy,
          insiders: r.n,
          top_wallets: r.top.map((t) => ({ wallet: t.wallet, holder_id: t.holder, role: t.role, net_flow_usd: round(t.net) })),
        },
      };
    });
  },
});
