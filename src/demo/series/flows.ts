/**
 * @module demo/series/flows
 * Wallet flows: insiders of vesting tokens (the graph's insiderOf links, with their known wallets)
 * and a few hundred whale wallets trade now and then in small amounts; whales also use a handful of
 * protocols. Only days with activity are rows. Large, one-sided or many-protocol activity appears
 * only where a plant puts it.
 */
import type { Coverage } from "./coverage.ts";
import { type SeriesContext, loadRows } from "./series-db.ts";

export interface Whale {
  wallet: string;
  protocols: string[];
}

export function makeWhales(s: SeriesContext, coverage: Coverage): Whale[] {
  const { rng } = s;
  const pick = rng.sampler(coverage.protocols.map((p) => [p.id, Math.sqrt(p.tvl)] as const));
  const count = Math.max(40, Math.round(s.ctx.plan.persons * 0.03));
  return Array.from({ length: count }, () => {
    const protocols = new Set<string>();
    const want = rng.int(1, 6);
    for (let tries = 0; protocols.size < want && tries < 30; tries++) protocols.add(pick());
    return { wallet: `eip155:1:0x${rng.hex(20)}`, protocols: [...protocols] };
  });
}

export async function insiderFlowSeries(s: SeriesContext, coverage: Coverage, whales: Whale[]): Promise<void> {
  const { rng, ctx } = s;
  const covered = new Set(coverage.tokens.map((t) => t.id));
  const rows: (string | number | null)[][] = [];
  for (const insider of ctx.insiders) {
    if (!covered.has(insider.token)) continue;
    rows.push([insider.token, insider.wallet, insider.holder, insider.role, 0.002 + 0.018 * rng.next(), 200 + 2800 * rng.next()]);
  }
  const liquid = coverage.tokens.filter((t) => !t.stablecoin && coverage.rank.get(t.id)! < 500);
  for (const whale of whales) {
    for (const token of rng.sample(liquid, rng.int(1, 2))) rows.push([token.id, whale.wallet, null, "whale", 0.0005 + 0.003 * rng.next(), 500 + 3000 * rng.next()]);
  }
  await loadRows(
    s.c,
    "insider_params",
    { entity_id: "VARCHAR", wallet: "VARCHAR", holder_id: "VARCHAR", role: "VARCHAR", holding: "DOUBLE", amount: "DOUBLE" },
    rows,
  );
  // A wallet trades on about 3% of days, a few hundred to a few thousand dollars either way.
  await s.c.run(`
    CREATE TABLE insider_flows AS
    WITH active AS (
      SELECT p.*, d.day, d.date, (u01(p.wallet || p.entity_id, d.day, 50) - 0.5) * 2 * p.amount AS flow
      FROM insider_params p CROSS JOIN days d
      WHERE u01(p.wallet || p.entity_id, d.day, 51) < 0.03
    )
    SELECT a.entity_id, a.date, a.wallet, a.holder_id, a.role AS holder_role, a.flow AS "netFlowUsd",
      a.holding * t."totalSupply" + sum(a.flow / t."currentPrice") OVER (PARTITION BY a.entity_id, a.wallet ORDER BY a.day) AS balance
    FROM active a JOIN token t ON t.entity_id = a.entity_id AND t.date = a.date`);
}

export async function walletActivitySeries(s: SeriesContext, whales: Whale[]): Promise<void> {
  const { rng } = s;
  const rows: (string | number)[][] = [];
  for (const whale of whales) for (const protocol of whale.protocols) rows.push([protocol, whale.wallet, rng.logNormal(50_000, 1)]);
  await loadRows(s.c, "whale_params", { entity_id: "VARCHAR", wallet: "VARCHAR", volume: "DOUBLE" }, rows);
  await s.c.run(`
    CREATE TABLE wallet_activity AS
    SELECT p.entity_id, d.date, p.wallet, p.volume * exp(0.8 * gauss(p.wallet || p.entity_id, d.day, 60) - 0.32) AS "volumeUsd",
      (1 + floor(u01(p.wallet || p.entity_id, d.day, 61) * 20))::BIGINT AS transactions
    FROM whale_params p CROSS JOIN days d
    WHERE u01(p.wallet || p.entity_id, d.day, 62) < 0.08`);
}
