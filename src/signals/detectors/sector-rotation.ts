import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** Insider flows summed by sector (the category of each token's issuing protocol). */
export default defineDetector({
  slug: "sector-rotation",
  category: "Smart Money & Insider Activity",
  description:
    "Insider flows aggregated by sector; high: sector net flow above 5M USD (moderate 1-5M, low 500K-1M). Where no wallet is a named insider the flows are the largest non-exchange holders' (a whale proxy, said in evidence.whale_proxy).",
  inputs: ["ts:insider_flows", "graph:issuedBy", "graph:category"],
  metric: { name: "sector_insider_net_flow_30d_usd", description: "|sum of insider netFlowUsd over D-29..D over a sector's tokens|, USD" },
  bands: { direction: "higher", unit: "USD", low: 500_000, moderate: 1_000_000, high: 5_000_000 },
  details: {
    sector: z.string(),
    direction: z.enum(["inflow", "outflow"]),
    net_flow_usd: z.number(),
    tokens: z.array(z.object({ token: z.string(), net_flow_usd: z.number() })).describe("the sector's tokens by size of their net flow (at most 10)"),
    whale_proxy: z.boolean().describe("true when no wallet is a named insider: the flows are large holders' balance changes, a proxy for insiders"),
  },
  screens: { maxAgeDays: 30 },
  realData: {
    status: "partial",
    sources: [SOURCES.BS_HOLDERS, SOURCES.CG_MARKETS, SOURCES.DL_CATEGORY],
    note: "a whale proxy where no insider is named (evidence.whale_proxy)",
  },
  async detect(ctx) {
    // A sector's real tokens and the demo world's are summed apart: the demo's sectors bear the same
    // names, and a real signal must not rest on generated flows. Their keys differ too, or the scan
    // would keep one of the two as a duplicate of the other (and give both the same signal id).
    const rows = await rowsOf<{ sector: string; real: boolean; src: string; net: number; last: string; proxy: boolean; tokens: { token: string; net: number }[] }>(
      ctx.c,
      `WITH s AS (SELECT i.token, p.sector, i.token IN (SELECT id FROM real_entities) AS real FROM token_issuer i JOIN protocol_sector p USING (protocol)),
         t AS (SELECT f.entity_id AS token, s.sector, s.real, sum(f."netFlowUsd") AS net, max(f.date) AS last, any_value(f.source_table) AS src,
                 bool_and(coalesce(f.holder_role, 'whale') = 'whale') AS proxy
               FROM insider_flows f JOIN s ON s.token = f.entity_id WHERE f.date > ${ctx.day(30)} AND f.date <= ${ctx.day(0)} GROUP BY ALL)
       SELECT sector, real, any_value(src) AS src, sum(net) AS net, max(last)::VARCHAR AS last, bool_and(proxy) AS proxy,
         list({'token': token, 'net': net} ORDER BY abs(net) DESC, token)[1:10] AS tokens
       FROM t GROUP BY sector, real HAVING abs(sum(net)) >= 500000`,
    );
    return rows.map((r) => {
      // The tokens moving with the sector carry it; the main subjects are those.
      const movers = r.tokens.filter((t) => Math.sign(t.net) === Math.sign(r.net));
      return {
        entities: movers.map((t) => t.token),
        key: r.real ? `sector:${r.sector}` : `generated-sector:${r.sector}`,
        value: round(Math.abs(r.net), 2),
        window: { from: addDays(ctx.asOf, -29), to: ctx.asOf },
        lastDataDate: r.last,
        dataPoints: r.tokens.map((t) => ({ table: r.src, entity: t.token, date: null, column: "netFlowUsd D-29..D", value: round(t.net) })),
        summary: `${r.proxy ? "The largest holders (a whale proxy for insiders)" : "Insiders"} moved ${usd(Math.abs(r.net))} net ${r.net > 0 ? "into" : "out of"} the ${r.sector} sector over 30 days, led by ${movers.slice(0, 3).map((t) => ctx.graph.name(t.token)).join(", ")}.`,
        details: {
          sector: r.sector,
          direction: r.net > 0 ? ("inflow" as const) : ("outflow" as const),
          net_flow_usd: round(r.net),
          tokens: r.tokens.map((t) => ({ token: t.token, net_flow_usd: round(t.net) })),
          whale_proxy: r.proxy,
        },
      };
    });
  },
});
