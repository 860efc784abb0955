import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { point, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/**
 * Thin listings: few exchanges and wide spreads. The raw metric adds both, so that two exchanges
 * with a normal spread read low, one exchange moderate, and one exchange with a spread above 2% high:
 * points = (3 - min(exchanges, 3)) + spread % / 2, where the spread is the volume-weighted mean over
 * the token's pairs: what a trade meets where trades happen. A widest spread would let one idle
 * pair on a small venue (real tickers have them, even for Bitcoin) make any token look illiquid.
 */
export default defineDetector({
  slug: "exchange-liquidity-risk",
  category: "Token Lifecycle Risk",
  description: "Tokens listed on only 1-2 exchanges or with spreads above 2%; high: a single exchange with a wide spread.",
  inputs: ["ts:listings", "ts:token"],
  metric: { name: "liquidity_risk_points", description: "(3 - min(exchanges, 3)) + volume-weighted spread % / 2, on the latest listings day" },
  bands: { direction: "higher", unit: "points", low: 1, moderate: 1.5, high: 3 },
  details: {
    exchanges: z.number().int(),
    spread_pct: z.number().describe("volume-weighted mean spread over the token's pairs, percent"),
    widest_spread_pct: z.number(),
    exchange_ids: z.array(z.string()),
    volume_usd: z.number(),
    market_cap_usd: z.number().nullable(),
  },
  screens: { maxAgeDays: 10, sizeFloor: { what: "market cap", minUsd: 1_000_000 } },
  realData: {
    status: "yes",
    sources: [SOURCES.CG_TICKERS, SOURCES.CG_MARKETS],
  },
  async detect(ctx) {
    const rows = await rowsOf<{ id: string; src: string; last: string; n: number; spread: number; widest: number; ids: string[]; volume: number; cap: number | null }>(
      ctx.c,
      `WITH latest AS (SELECT entity_id, max(date) AS d FROM listings WHERE date <= ${ctx.day(0)} AND date > ${ctx.day(14)} GROUP BY entity_id),
         l AS (SELECT x.entity_id AS id, any_value(x.source_table) AS src, any_value(x.date)::VARCHAR AS last, count(DISTINCT x.exchange_id)::INTEGER AS n,
                 coalesce(sum(x."spreadPct" * x."volumeUsd") FILTER (WHERE x."volumeUsd" > 0) / nullif(sum(x."volumeUsd") FILTER (WHERE x."volumeUsd" > 0), 0), avg(x."spreadPct")) AS spread,
                 max(x."spreadPct") AS widest, list(DISTINCT x.exchange_id ORDER BY x.exchange_id) AS ids, coalesce(sum(x."volumeUsd"), 0) AS volume
               FROM listings x JOIN latest ON latest.entity_id = x.entity_id AND latest.d = x.date GROUP BY x.entity_id),
         m AS (SELECT entity_id, arg_max("marketCap", date) AS cap FROM token WHERE date > ${ctx.day(7)} AND date <= ${ctx.day(0)} GROUP BY entity_id)
       SELECT l.*, m.cap FROM l LEFT JOIN m ON m.entity_id = l.id
       WHERE (3 - least(l.n, 3)) + l.spread / 2 >= 1`,
    );
    return rows.map((r) => {
      const points = 3 - Math.min(r.n, 3) + r.spread / 2;
      return {
        entities: [r.id],
        value: round(points, 4),
        window: { from: r.last, to: r.last },
        lastDataDate: r.last,
        size: r.cap ?? 0,
        dataPoints: [
          point(r, "exchanges", r.n, r.last),
          point(r, "volume-weighted spreadPct", round(r.spread, 4), r.last),
        ],
        summary: `${ctx.graph.name(r.id)} trades on ${r.n} exchange${r.n === 1 ? "" : "s"} with a ${r.spread.toFixed(2)}% spread where it trades (up to ${r.widest.toFixed(2)}%; ${usd(r.volume)} daily volume).`,
        details: {
          exchanges: r.n,
          spread_pct: round(r.spread, 4),
          widest_spread_pct: round(r.widest, 4),
          exchange_ids: r.ids,
          volume_usd: round(r.volume),
          market_cap_usd: r.cap === null ? null : round(r.cap),
        },
      };
    });
  },
});
