import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, append, round, rowsOf, usd } from "../kit.ts";
import { sharedInvestorPairs } from "../graph-facts.ts";
import { SOURCES } from "../sources.ts";

/**
 * Unlocks falling together on tokens whose backers overlap: of a token and every token sharing 3+
 * investors with it, those unlocking 1% or more of their market cap in the next 30 days, when two or
 * more do. The same funds receive all of it at once. Seeds giving the same members are one signal.
 */
export default defineDetector({
  slug: "cluster-unlock-risk",
  category: "Token Lifecycle Risk",
  description: "Simultaneous unlocks across a co-invested cluster (tokens sharing 3+ investors); high: combined above 15% of the cluster's market cap (moderate 8-15%, low 5-8%).",
  inputs: ["ts:unlocks", "ts:token", "graph:investedIn", "graph:issuedBy"],
  metric: { name: "cluster_upcoming_unlock_value_pct_of_market_cap", description: "unlock value in D+1..D+30 / market cap, summed over the unlocking members of a co-invested cluster, percent" },
  bands: { direction: "higher", unit: "%", low: 5, moderate: 8, high: 15 },
  details: {
    seed: z.string().describe("the token whose co-invested neighbours form the cluster"),
    cluster_size: z.number().int().describe("the seed and every token sharing 3+ investors with it"),
    members: z.array(z.object({ token: z.string(), unlock_value_usd: z.number(), market_cap_usd: z.number() })),
    unlock_value_usd: z.number(),
    market_cap_usd: z.number(),
  },
  screens: { maxAgeDays: 3 },
  realData: {
    status: "yes",
    sources: [SOURCES.DL_UNLOCKS, SOURCES.DL_RAISES, SOURCES.CG_MARKETS],
  },
  async detect(ctx) {
    const neighbours = new Map<string, string[]>();
    for (const { a, b } of sharedInvestorPairs(ctx.graph, 3)) {
      append(neighbours, a, b);
      append(neighbours, b, a);
    }
    if (neighbours.size === 0) return [];
    const figures = new Map(
      (
        await rowsOf<{ id: string; value: number; cap: number; last: string | null; src: string }>(
          ctx.c,
          `WITH u AS (SELECT entity_id, sum("valueUsd") AS value, any_value(source_table) AS src FROM unlocks
                      WHERE date > ${ctx.day(0)} AND date <= ${ctx.day(-30)} GROUP BY entity_id),
             m AS (SELECT entity_id, arg_max("marketCap", date) AS cap, max(date)::VARCHAR AS last FROM token
                   WHERE date > ${ctx.day(7)} AND date <= ${ctx.day(0)} GROUP BY entity_id)
           SELECT m.entity_id AS id, coalesce(u.value, 0) AS value, m.cap, m.last, coalesce(u.src, '') AS src FROM m LEFT JOIN u USING (entity_id)
           WHERE m.cap > 0`,
        )
      ).map((r) => [r.id, r]),
    );
    const findings = [];
    for (const [seed, others] of [...neighbours].sort(([a], [b]) => a.localeCompare(b))) {
      const cluster = [seed, ...others.sort()].filter((t) => figures.has(t));
      // The members unlocking (1% of their market cap or more) are the cluster at risk.
      const members = cluster.filter((t) => figures.get(t)!.value / figures.get(t)!.cap >= 0.01);
      if (members.length < 2) continue;
      const value = members.reduce((sum, t) => sum + figures.get(t)!.value, 0);
      const cap = members.reduce((sum, t) => sum + figures.get(t)!.cap, 0);
      const share = (value / cap) * 100;
      if (share < 5) continue;
      const last = members.map((t) => figures.get(t)!.last).filter((d): d is string => d !== null).sort()[0] ?? null;
      findings.push({
        entities: members,
        value: round(share, 4),
        window: { from: addDays(ctx.asOf, 1), to: addDays(ctx.asOf, 30) },
        lastDataDate: last,
        dataPoints: members.slice(0, 10).map((t) => ({ table: figures.get(t)!.src, entity: t, date: null, column: "valueUsd D+1..D+30", value: round(figures.get(t)!.value) })),
        summary: `${members.length} co-invested tokens around ${ctx.graph.name(seed)} unlock ${usd(value)} in the next 30 days, ${share.toFixed(1)}% of their combined ${usd(cap)} market cap.`,
        details: {
          seed,
          cluster_size: cluster.length,
          members: members.map((t) => ({ token: t, unlock_value_usd: round(figures.get(t)!.value), market_cap_usd: round(figures.get(t)!.cap) })),
          unlock_value_usd: round(value),
          market_cap_usd: round(cap),
        },
      });
    }
    return findings;
  },
});
