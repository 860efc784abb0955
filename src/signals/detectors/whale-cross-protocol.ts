import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { addDays, round, rowsOf, usd } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** Large wallets moving through many protocols in a month. */
export default defineDetector({
  slug: "whale-cross-protocol",
  category: "Smart Money & Insider Activity",
  description: "Large wallets active across many protocols within 30 days; high: 15+ protocols (moderate 10-14, low 8-9).",
  inputs: ["ts:wallet_activity"],
  metric: { name: "distinct_protocols_30d", description: "distinct protocols a wallet used in D-29..D" },
  bands: { direction: "higher", unit: "protocols", low: 8, moderate: 10, high: 15 },
  details: { wallet: z.string(), volume_usd: z.number(), protocols: z.array(z.string()).describe("the protocols used, by volume (at most 20)") },
  screens: { maxAgeDays: 30 },
  realData: {
    status: "synthetic only",
    sources: [],
    note: "no free source tells which protocols a wallet used: explorers list a wallet's transactions, not which protocol each contract belongs to",
  },
  async detect(ctx) {
    const rows = await rowsOf<{ wallet: string; src: string; n: number; volume: number; last: string; protocols: string[] }>(
      ctx.c,
      `WITH p AS (SELECT wallet, entity_id, sum("volumeUsd") AS volume, max(date) AS last, any_value(source_table) AS src FROM wallet_activity
                  WHERE date > ${ctx.day(30)} AND date <= ${ctx.day(0)} GROUP BY wallet, entity_id)
       SELECT wallet, any_value(src) AS src, count(*)::INTEGER AS n, sum(volume) AS volume, max(last)::VARCHAR AS last,
         list(entity_id ORDER BY volume DESC, entity_id)[1:20] AS protocols
       FROM p GROUP BY wallet HAVING count(*) >= 8`,
    );
    return rows.map((r) => ({
      entities: [r.wallet, ...r.protocols.slice(0, 5)],
      key: `wallet:${r.wallet}`,
      value: r.n,
      window: { from: addDays(ctx.asOf, -29), to: ctx.asOf },
      lastDataDate: r.last,
      dataPoints: r.protocols.slice(0, 10).map((p) => ({ table: r.src, entity: p, date: null, column: `wallet ${r.wallet} active`, value: 1 })),
      summary: `Wallet ${r.wallet} moved ${usd(r.volume)} through ${r.n} protocols in 30 days, most through ${r.protocols.slice(0, 3).map((p) => ctx.graph.name(p)).join(", ")}.`,
      details: { wallet: r.wallet, volume_usd: round(r.volume), protocols: r.protocols },
    }));
  },
});
