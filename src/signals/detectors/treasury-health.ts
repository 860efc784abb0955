import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { point, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** Treasuries held mostly in their own token, and how long their other reserves last. */
export default defineDetector({
  slug: "treasury-health",
  category: "Protocol Fundamentals",
  description: "Own-token concentration above 80% of the treasury, and runway; high: own tokens above 95% or runway under 90 days (moderate 90-95%, low 80-90%).",
  inputs: ["ts:treasury"],
  metric: { name: "own_token_share_pct", description: "ownTokenUsd / totalUsd on the latest day, percent" },
  bands: { direction: "higher", unit: "%", low: 80, moderate: 90, high: 95 },
  details: {
    runway_days: z.number().nullable().describe("(stablecoins + other assets) / monthly expenses, in days; null without expenses"),
    total_usd: z.number(),
    own_token_usd: z.number(),
    token_id: z.string().nullable(),
  },
  screens: { maxAgeDays: 3, sizeFloor: { what: "treasury value", minUsd: 1_000_000 } },
  realData: {
    status: "partial",
    sources: [SOURCES.DL_TREASURY, SOURCES.DL_STABLE],
    note: "the own-token share is real; the runway needs monthly expenses, which no free source gives (null, so only the share is scored)",
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; share: number; total: number; own: number; reserves: number; monthly: number | null; token: string | null; last: string }>(
      ctx.c,
      `SELECT entity_id AS id, source_table AS src, "ownTokenShare" AS share, "totalUsd" AS total, "ownTokenUsd" AS own,
         "stablecoinUsd" + "otherUsd" AS reserves, "monthlyExpensesUsd" AS monthly, token_id AS token, date::VARCHAR AS last
       FROM treasury WHERE date = ${ctx.day(0)}
         AND ("ownTokenShare" >= 0.80 OR ("monthlyExpensesUsd" > 0 AND ("stablecoinUsd" + "otherUsd") / "monthlyExpensesUsd" * 30 < 90))`,
    );
    return rows.map((r) => {
      const runway = r.monthly && r.monthly > 0 ? (r.reserves / r.monthly) * 30 : null;
      const short = runway !== null && runway < 90;
      return {
        entities: r.token ? [r.id, r.token] : [r.id],
        value: round(r.share * 100, 4),
        floor: short ? { severity: "high" as const, reason: `runway under 90 days (${runway!.toFixed(0)} days)` } : undefined,
        window: { from: r.last, to: r.last },
        lastDataDate: r.last,
        size: r.total,
        dataPoints: [
          point(r, "ownTokenShare", round(r.share, 6), r.last),
          point(r, "totalUsd", round(r.total), r.last),
          point(r, "monthlyExpensesUsd", r.monthly === null ? null : round(r.monthly), r.last),
        ],
        summary: `${ctx.graph.name(r.id)} holds ${(r.share * 100).toFixed(1)}% of its ${usd(r.total)} treasury in its own token${runway === null ? "" : `; other reserves last ${runway.toFixed(0)} days`}.`,
        details: { runway_days: runway === null ? null : round(runway, 1), total_usd: round(r.total), own_token_usd: round(r.own), token_id: r.token },
      };
    });
  },
});
