import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, round, rowsOf } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** A protocol's user growth against its own token's price growth over the same month. */
export default defineDetector({
  slug: "usage-price-mismatch",
  category: "Protocol Fundamentals",
  description: "Divergence of user growth and token price growth; high: above 40 percentage points (moderate 20-40, low 10-20).",
  inputs: ["ts:protocol", "ts:token", "graph:issuedBy"],
  metric: {
    name: "users_growth_minus_price_growth_pp",
    description: "|users growth - price growth|, percentage points; growth = mean of D-6..D against mean of D-36..D-30",
  },
  bands: { direction: "higher", unit: "pp", low: 10, moderate: 20, high: 40 },
  details: { token_id: z.string(), users_growth_pct: z.number(), price_growth_pct: z.number(), direction: z.enum(["usage_ahead", "price_ahead"]), daily_users: z.number() },
  screens: { maxAgeDays: 2 },
  realData: {
    status: "synthetic only",
    sources: [],
    note: "daily active users per protocol are on DefiLlama's paid plan only (/api/activeUsers, /api/userData); no free source gives them",
  },
  async detect(ctx) {
    const growth = (table: string, column: string) => `
      SELECT entity_id, any_value(source_table) AS src, max(date)::VARCHAR AS last,
        avg("${column}") FILTER (WHERE date > ${ctx.day(7)}) / avg("${column}") FILTER (WHERE date <= ${ctx.day(30)}) - 1 AS g,
        avg("${column}") FILTER (WHERE date > ${ctx.day(7)}) AS recent
      FROM ${table} WHERE date > ${ctx.day(37)} AND date <= ${ctx.day(0)} GROUP BY entity_id
      HAVING avg("${column}") FILTER (WHERE date <= ${ctx.day(30)}) > 0 AND count(*) FILTER (WHERE date > ${ctx.day(7)}) > 0`;
    const rows = await rowsOf<{ protocol: string; token: string; usrc: string; psrc: string; ug: number; pg: number; users: number; last: string }>(
      ctx.c,
      `WITH u AS (${growth("protocol", "dailyUsers")}), p AS (${growth("token", "currentPrice")})
       SELECT i.protocol, i.token, u.src AS usrc, p.src AS psrc, u.g AS ug, p.g AS pg, u.recent AS users, least(u.last, p.last) AS last
       FROM token_issuer i JOIN u ON u.entity_id = i.protocol JOIN p ON p.entity_id = i.token
       WHERE abs(u.g - p.g) >= 0.10 AND u.recent >= 100`,
    );
    return rows.map((r) => {
      const gap = (r.ug - r.pg) * 100;
      return {
        entities: [r.protocol, r.token],
        value: round(Math.abs(gap), 4),
        window: { from: addDays(ctx.asOf, -36), to: ctx.asOf },
        lastDataDate: r.last,
        dataPoints: [
          { table: r.usrc, entity: r.protocol, date: null, column: "dailyUsers growth", value: round(r.ug * 100, 2) },
          { table: r.psrc, entity: r.token, date: null, column: "currentPrice growth", value: round(r.pg * 100, 2) },
        ],
        summary: `${ctx.graph.name(r.protocol)}: users ${fmt(r.ug)} in a month while ${ctx.graph.name(r.token)}'s price ${fmt(r.pg)} (${Math.abs(gap).toFixed(0)} points apart).`,
        details: { token_id: r.token, users_growth_pct: round(r.ug * 100, 2), price_growth_pct: round(r.pg * 100, 2), direction: gap > 0 ? ("usage_ahead" as const) : ("price_ahead" as const), daily_users: round(r.users, 0) },
      };
    });
  },
});

function fmt(growth: number): string {
  return `${growth >= 0 ? "rose" : "fell"} ${Math.abs(growth * 100).toFixed(1)}%`;
}
