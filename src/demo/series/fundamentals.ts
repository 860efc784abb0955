/**
 * @module demo/series/fundamentals
 * Protocol fundamentals: TVL as a random walk ending at each protocol's latent size, split over the
 * chains it is deployed on (the per-chain rows sum to the total); fees that track TVL at the
 * sector's rate; revenue, incentives and earnings (positive unless a plant says otherwise); users
 * and transactions. Treasuries hold the protocol's own token at its daily price, plus reserves.
 */
import type { Coverage } from "./coverage.ts";
import { type SeriesContext, loadRows, walkRows, walksSql } from "./series-db.ts";

/** Fees a day per dollar of TVL, by sector (before a per-protocol spread). */
const FEE_RATE: Record<string, number> = {
  Dexes: 0.0006,
  Derivatives: 0.0012,
  Options: 0.0008,
  Lending: 0.00025,
  CDP: 0.0003,
  "Liquid Staking": 0.0002,
  Restaking: 0.0002,
  Bridge: 0.0004,
  "Yield Aggregator": 0.0002,
  "NFT Marketplace": 0.002,
  Launchpad: 0.001,
  Gaming: 0.0015,
};

export async function protocolSeries(s: SeriesContext, coverage: Coverage): Promise<void> {
  const { rng } = s;
  const params = coverage.protocols.map((p) => [
    p.id,
    p.tvl,
    0.012 + 0.008 * rng.next(),
    rng.normal(0, 0.0004),
    (FEE_RATE[p.category] ?? 0.0003) * rng.logNormal(1, 0.5),
    0.1 + 0.4 * rng.next(),
    0.1 + 0.8 * rng.next(),
    Math.max(20, p.tvl / rng.logNormal(20_000, 1)),
    0.008 + 0.004 * rng.next(),
    2 + 4 * rng.next(),
  ]);
  await loadRows(
    s.c,
    "protocol_params",
    {
      entity_id: "VARCHAR",
      tvl0: "DOUBLE",
      vol: "DOUBLE",
      drift: "DOUBLE",
      fee_rate: "DOUBLE",
      take: "DOUBLE",
      incentive: "DOUBLE",
      users0: "DOUBLE",
      user_vol: "DOUBLE",
      tx_per_user: "DOUBLE",
    },
    params,
    { keyed: true },
  );
  // Daily noise on fees and users is small enough that 30-day comparisons only move on real change.
  await s.c.run(`
    CREATE TABLE protocol AS
    WITH ${walksSql("protocol_params", { w: "p.drift + p.vol * gauss(p.entity_id, d.day, 10)", u: "p.user_vol * gauss(p.entity_id, d.day, 11)" })},
    levels AS (
      SELECT p.*, d.day, d.date, p.tvl0 * exp(w.w - e.w) AS tvl, p.users0 * exp(w.u - e.u) AS users
      FROM ${walkRows("protocol_params")}
    ),
    flows AS (
      SELECT *, tvl * fee_rate * exp(0.15 * gauss(entity_id, day, 12) - 0.011) AS fees FROM levels
    )
    SELECT entity_id, date, tvl AS "tvlUsd", fees AS "feesUsd", fees * take AS "revenueUsd",
      fees * take * incentive * exp(0.1 * gauss(entity_id, day, 13)) AS "incentivesUsd",
      fees * take * (1 - incentive * exp(0.1 * gauss(entity_id, day, 13))) AS "earningsUsd",
      round(users) AS "dailyUsers", round(users * tx_per_user) AS "transactions"
    FROM flows`);

  const split: (string | number)[][] = [];
  for (const protocol of coverage.protocols) {
    const weights = protocol.chains.map((_, i) => rng.pareto(1, 1.2) * (i === 0 ? 3 : 1));
    const sum = weights.reduce((a, b) => a + b, 0);
    protocol.chains.forEach((chain, i) => split.push([protocol.id, chain, weights[i]! / sum]));
  }
  await loadRows(s.c, "chain_split", { entity_id: "VARCHAR", chain_id: "VARCHAR", weight: "DOUBLE" }, split);
}

/** Per-chain TVL from the (possibly planted) protocol totals, so the parts always sum to the whole. */
export async function protocolChainSeries(s: SeriesContext): Promise<void> {
  await s.c.run(`
    CREATE TABLE protocol_chain AS
    SELECT p.entity_id, p.date, c.chain_id, p."tvlUsd" * c.weight AS "tvlUsd"
    FROM protocol p JOIN chain_split c USING (entity_id)`);
}

export async function treasurySeries(s: SeriesContext, coverage: Coverage): Promise<void> {
  const { rng } = s;
  const rows: (string | number)[][] = [];
  const covered = new Set(coverage.tokens.map((t) => t.id));
  const seen = new Set<string>();
  for (const protocol of coverage.protocols) {
    // One treasury per token (versions of a protocol share their first version's token and DAO).
    if (!protocol.token || seen.has(protocol.token) || !covered.has(protocol.token)) continue;
    seen.add(protocol.token);
    const holder = protocol.dao ?? protocol.id;
    // Own token is 30-85% of the treasury on the as-of date; reserves last 18 months to 5 years.
    const ownShare = 0.3 + 0.55 * rng.next();
    const runwayMonths = 18 + 42 * rng.next();
    rows.push([holder, protocol.token, 0.03 + 0.17 * rng.next(), ownShare, 0.3 + 0.6 * rng.next(), runwayMonths]);
  }
  await loadRows(
    s.c,
    "treasury_params",
    { entity_id: "VARCHAR", token_id: "VARCHAR", own_fraction: "DOUBLE", own_share: "DOUBLE", stable_part: "DOUBLE", runway: "DOUBLE" },
    rows,
  );
  await s.c.run(`
    CREATE TABLE treasury AS
    WITH now AS (
      SELECT p.*, t."totalSupply" * p.own_fraction AS own_amount,
        t."totalSupply" * p.own_fraction * t."currentPrice" * (1 - p.own_share) / p.own_share AS reserves
      FROM treasury_params p JOIN token t ON t.entity_id = p.token_id AND t.date = (SELECT max(date) FROM days)
    ),
    daily AS (
      SELECT n.entity_id, n.token_id, d.day, d.date, n.own_amount * t."currentPrice" AS own_usd,
        n.reserves * n.stable_part * exp(0.002 * gauss(n.entity_id, d.day, 20)) AS stable_usd,
        n.reserves * (1 - n.stable_part) * exp(sum(0.02 * gauss(n.entity_id, d.day, 21)) OVER (PARTITION BY n.entity_id ORDER BY d.day)
          - sum(0.02 * gauss(n.entity_id, d.day, 21)) OVER (PARTITION BY n.entity_id)) AS other_usd,
        n.reserves / n.runway AS expenses
      FROM now n CROSS JOIN days d JOIN token t ON t.entity_id = n.token_id AND t.date = d.date
    )
    SELECT entity_id, date, token_id, own_usd + stable_usd + other_usd AS "totalUsd", own_usd AS "ownTokenUsd",
      stable_usd AS "stablecoinUsd", other_usd AS "otherUsd", own_usd / (own_usd + stable_usd + other_usd) AS "ownTokenShare",
      expenses AS "monthlyExpensesUsd"
    FROM daily`);
}
