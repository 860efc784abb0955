/**
 * @module demo/series/defi
 * Pools (TVL walk, base yield by pool kind, token rewards at most a few times the base yield) and
 * lending markets (supply walk, utilization that stays under the kink, rates from a kinked curve,
 * debt ceilings comfortably above borrowing where a market has one).
 */
import type { Coverage } from "./coverage.ts";
import { ROW_KEY, type SeriesContext, loadRows, walkRows, walksSql } from "./series-db.ts";

/** Base APY range (percent) by pool kind. */
const BASE_APY: Record<string, [number, number]> = {
  amm: [2, 25],
  stable: [1, 6],
  concentrated: [5, 40],
  staking: [2, 8],
  vault: [3, 15],
  farm: [5, 30],
};

export async function poolSeries(s: SeriesContext, coverage: Coverage): Promise<void> {
  const { rng } = s;
  const rows = coverage.pools.map((p) => {
    const [lo, hi] = BASE_APY[p.kind] ?? [2, 10];
    const base = lo + (hi - lo) * rng.next();
    const turnover = p.kind === "amm" ? 0.05 + 0.45 * rng.next() : p.kind === "concentrated" ? 0.2 + 1.3 * rng.next() : 0;
    return [p.id, p.protocol, p.chain, p.tvl, 0.015 + 0.01 * rng.next(), base, base * 2.5 * rng.next() ** 2, turnover];
  });
  await loadRows(
    s.c,
    "pool_params",
    { entity_id: "VARCHAR", protocol_id: "VARCHAR", chain_id: "VARCHAR", tvl0: "DOUBLE", vol: "DOUBLE", base: "DOUBLE", reward: "DOUBLE", turnover: "DOUBLE" },
    rows,
    { keyed: true },
  );
  await s.c.run(`
    CREATE TABLE pool AS
    WITH ${walksSql("pool_params", { w: "p.vol * gauss(p.entity_id, d.day, 30)", r: "0.01 * gauss(p.entity_id, d.day, 31)" })},
    levels AS (
      SELECT p.*, d.day, d.date, p.tvl0 * exp(w.w - e.w) AS tvl,
        p.base * exp(0.08 * gauss(p.entity_id, d.day, 32)) AS apy_base,
        p.reward * exp(w.r - e.r) AS apy_reward
      FROM ${walkRows("pool_params")}
    )
    SELECT entity_id, date, protocol_id, chain_id, tvl AS "tvlUsd", apy_base + apy_reward AS "apy", apy_base AS "apyBase", apy_reward AS "apyReward",
      tvl * turnover * exp(0.3 * gauss(entity_id, day, 33) - 0.045) AS "volumeUsd"
    FROM levels`);
}

export async function lendingSeries(s: SeriesContext, coverage: Coverage): Promise<void> {
  const { rng } = s;
  const rows = coverage.markets.map((m) => [
    m.id,
    m.protocol,
    m.asset,
    m.supply,
    0.3 + 0.45 * rng.next(),
    rng.next() * 2 * Math.PI,
    60 + 200 * rng.next(),
    3 + 4 * rng.next(),
    60 + 240 * rng.next(),
    0.1 + 0.1 * rng.next(),
    rng.chance(0.25) ? 0.4 + 0.32 * rng.next() : null,
  ]);
  await loadRows(
    s.c,
    "lending_params",
    {
      entity_id: "VARCHAR",
      protocol_id: "VARCHAR",
      asset_id: "VARCHAR",
      supply0: "DOUBLE",
      u_mean: "DOUBLE",
      phase: "DOUBLE",
      period: "DOUBLE",
      slope1: "DOUBLE",
      slope2: "DOUBLE",
      reserve: "DOUBLE",
      ceiling_use: "DOUBLE",
    },
    rows,
    { keyed: true },
  );
  // Utilization swings slowly around its mean and is held under 82% (the kink is at 80%).
  await s.c.run(`
    CREATE TABLE lending AS
    WITH ${walksSql("lending_params", { w: "0.012 * gauss(p.entity_id, d.day, 40)" })},
    levels AS (
      SELECT p.*, d.day, d.date, p.supply0 * exp(w.w - e.w) AS supply,
        least(0.82, 1 / (1 + exp(-(ln(p.u_mean / (1 - p.u_mean)) + 0.35 * sin(2 * pi() * d.day / p.period + p.phase) + 0.08 * gauss(p.entity_id, d.day, 41))))) AS u
      FROM ${walkRows("lending_params")}
    ),
    rates AS MATERIALIZED (
      SELECT *, CASE WHEN u <= 0.8 THEN slope1 * u / 0.8 ELSE slope1 + slope2 * (u - 0.8) / 0.2 END AS borrow_apy FROM levels
    ),
    peak AS (SELECT ${ROW_KEY}, max(supply * u) AS borrowed FROM rates GROUP BY ${ROW_KEY})
    SELECT entity_id, date, protocol_id, asset_id, supply AS "totalSupplyUsd", supply * u AS "totalBorrowUsd", u AS "utilization",
      borrow_apy * u * (1 - reserve) AS "supplyApy", borrow_apy AS "borrowApy",
      CASE WHEN ceiling_use IS NULL THEN NULL ELSE peak.borrowed / ceiling_use END AS "debtCeilingUsd"
    FROM rates JOIN peak USING (${ROW_KEY})`);
}
