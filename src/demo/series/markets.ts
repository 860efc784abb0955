/**
 * @module demo/series/markets
 * Market series: stablecoins (pegged price, slowly drifting supply), tokens (a random walk that ends
 * at each token's latent price; vesting tokens circulate their float plus what has unlocked),
 * the ten largest holders of governance tokens (weekly) and exchange listings (weekly, the graph's
 * listedOn facts with spreads and volumes).
 */
import type { Coverage } from "./coverage.ts";
import { LAST_DAY, ROW_KEY, type SeriesContext, loadRows, walkRows, walksSql } from "./series-db.ts";

export async function stablecoinSeries(s: SeriesContext, coverage: Coverage): Promise<void> {
  const { rng } = s;
  const rows = coverage.tokens
    .filter((t) => t.stablecoin)
    .map((t) => [t.id, t.marketCap, pegOf(s, t.id), /EUR/.test(t.symbol) ? "EUR" : "USD", rng.normal(0.0002, 0.0003)]);
  await loadRows(s.c, "stable_params", { entity_id: "VARCHAR", mcap: "DOUBLE", peg: "DOUBLE", currency: "VARCHAR", drift: "DOUBLE" }, rows);
  // Within 0.3% of the peg; supply moves a little each day (a week rarely moves it 5%).
  await s.c.run(`
    CREATE TABLE stablecoin AS
    WITH walk AS (
      SELECT p.*, d.day, d.date,
        sum(p.drift + 0.005 * gauss(p.entity_id, d.day, 4)) OVER (PARTITION BY p.entity_id ORDER BY d.day) AS w
      FROM stable_params p CROSS JOIN days d
    )
    SELECT entity_id, date,
      peg * (1 + greatest(-0.003, least(0.003, 0.0007 * gauss(entity_id, day, 3)))) AS "price",
      mcap * exp(w - last_value(w) OVER (PARTITION BY entity_id ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) AS "circulatingUsd",
      currency AS "pegCurrency"
    FROM walk`);
}

function pegOf(s: SeriesContext, token: string): number {
  return /EUR/.test(s.ctx.world.entities.get(token)?.symbol ?? "") ? 1.08 : 1;
}

export async function tokenSeries(s: SeriesContext, coverage: Coverage): Promise<void> {
  const { rng } = s;
  const protocolTokens = new Set(coverage.sectorOf.keys());
  const rows = coverage.tokens.map((t) => {
    const rank = coverage.rank.get(t.id)!;
    const vesting = coverage.vesting.get(t.id);
    const circNow = vesting ? vesting.circulatingNow : 0.4 + 0.6 * rng.next();
    const price = t.stablecoin ? pegOf(s, t.id) : Math.pow(10, rank < 50 ? rng.next() * 4.5 : rng.next() * 5 - 2.5);
    // Daily volatility: calm for protocol tokens (their protocol's usage drives them), wilder in the long tail.
    const vol = t.stablecoin ? 0 : protocolTokens.has(t.id) ? 0.012 + 0.006 * rng.next() : rank < 200 ? 0.015 + 0.01 * rng.next() : 0.02 + 0.02 * rng.next();
    return [
      t.id,
      price,
      t.marketCap / (price * circNow),
      vesting?.float ?? null,
      circNow,
      vesting ? 0 : 0.2 * rng.next(),
      Boolean(vesting),
      vol,
      rng.normal(0, 0.0004),
      0.02 + 0.13 * rng.next(),
      t.stablecoin,
    ];
  });
  await loadRows(
    s.c,
    "token_params",
    {
      entity_id: "VARCHAR",
      price0: "DOUBLE",
      total: "DOUBLE",
      float0: "DOUBLE",
      circ_now: "DOUBLE",
      growth: "DOUBLE",
      vesting: "BOOLEAN",
      vol: "DOUBLE",
      drift: "DOUBLE",
      turnover: "DOUBLE",
      stable: "BOOLEAN",
    },
    rows,
    { keyed: true },
  );
  const cumulative: (string | number)[][] = [];
  for (const [token, vesting] of coverage.vesting) {
    let cum = 0;
    for (const event of vesting.events) {
      cum += event.share;
      cumulative.push([token, event.date, cum]);
    }
  }
  await loadRows(s.c, "cum_unlock", { entity_id: "VARCHAR", date: "DATE", cum_share: "DOUBLE" }, cumulative);
  // A vesting token circulates its float plus what has unlocked by each day: the running maximum
  // of the cumulative share on the days its tranches fall (on the first day, for those before it).
  await s.c.run(`
    CREATE TABLE token AS
    WITH unlocked AS (
      SELECT p.${ROW_KEY}, greatest(0, ${LAST_DAY} - (DATE '${s.asOf}' - cu.date))::INTEGER AS day, max(cu.cum_share) AS cum_share
      FROM cum_unlock cu JOIN token_params p USING (entity_id)
      WHERE cu.date <= DATE '${s.asOf}'
      GROUP BY ALL
    ),
    ${walksSql(
      "token_params",
      { w: "CASE WHEN p.stable THEN 0 ELSE p.drift + p.vol * gauss(p.entity_id, d.day, 1) END" },
      { maxes: { cum_share: "u.cum_share" }, join: `LEFT JOIN unlocked u ON u.${ROW_KEY} = p.${ROW_KEY} AND u.day = d.day` },
    )},
    stable_price AS (SELECT p.${ROW_KEY}, st.date, st.price FROM stablecoin st JOIN token_params p USING (entity_id)),
    priced AS (
      SELECT p.*, d.day, d.date,
        CASE WHEN p.vesting THEN p.total * (p.float0 + coalesce(w.cum_share, 0))
             ELSE p.total * p.circ_now * (1 - p.growth * (${LAST_DAY} - d.day) / ${LAST_DAY}.0) END AS circ,
        coalesce(sp.price, p.price0 * exp(w.w - e.w)) AS price
      FROM ${walkRows("token_params")}
      LEFT JOIN stable_price sp ON sp.${ROW_KEY} = w.${ROW_KEY} AND sp.date = d.date
    )
    SELECT entity_id, date, price AS "currentPrice", price * circ AS "marketCap",
      price * circ * turnover * exp(0.4 * gauss(entity_id, day, 2) - 0.08) AS "totalVolume",
      circ AS "circulatingSupply", total AS "totalSupply"
    FROM priced`);
}

export async function holderSeries(s: SeriesContext, coverage: Coverage): Promise<void> {
  const { rng, ctx } = s;
  const rows: (string | number | null)[][] = [];
  const protocolOf = new Map(ctx.protocols.filter((p) => p.token).map((p) => [p.token!, p]));
  for (const token of coverage.tokens) {
    const protocol = protocolOf.get(token.id);
    if (!protocol) continue;
    const known = [protocol.dao, ...(ctx.investors.get(protocol.id) ?? []).slice(0, 3)].filter((h): h is string => Boolean(h));
    let share = 0.06 + 0.06 * rng.next();
    for (let rank = 1; rank <= 10; rank++) {
      const holder = known[rank - 1] ?? null;
      const wallet = (holder && ctx.wallets.get(holder)) ?? `eip155:1:0x${rng.hex(20)}`;
      rows.push([token.id, rank, wallet, holder, share]);
      share *= 0.75;
    }
  }
  await loadRows(s.c, "holder_params", { entity_id: "VARCHAR", rank: "DOUBLE", wallet: "VARCHAR", holder_id: "VARCHAR", share: "DOUBLE" }, rows);
  // Weekly, ending on the as-of date; each holder's share drifts slowly (0.4% a week).
  await s.c.run(`
    CREATE TABLE holders AS
    WITH weeks AS (SELECT * FROM days WHERE (${LAST_DAY} - day) % 7 = 0),
    walk AS (
      SELECT h.*, w.day, w.date, sum(0.004 * gauss(h.wallet, w.day, 5)) OVER (PARTITION BY h.entity_id, h.rank ORDER BY w.day) AS drift
      FROM holder_params h CROSS JOIN weeks w
    )
    SELECT k.entity_id, k.date, k.rank::BIGINT AS rank, k.wallet, k.holder_id, NULL::VARCHAR AS holder_label,
      p.total * k.share * exp(k.drift) AS balance, k.share * exp(k.drift) AS "shareOfSupply"
    FROM walk k JOIN token_params p USING (entity_id)`);
}

export async function listingSeries(s: SeriesContext, coverage: Coverage): Promise<void> {
  const { rng, ctx } = s;
  const rows: (string | number)[][] = [];
  for (const token of coverage.tokens) {
    const exchanges = coverage.listings.get(token.id) ?? [];
    const rank = coverage.rank.get(token.id)!;
    const symbol = ctx.world.entities.get(token.id)?.symbol ?? "TOKEN";
    const weights = exchanges.map(() => rng.pareto(1, 1.2));
    const sum = weights.reduce((a, b) => a + b, 0);
    exchanges.forEach((exchange, i) => {
      const dex = ctx.world.entities.get(exchange)?.labels.includes("DecentralizedExchange");
      const spread = rank < 100 ? 0.02 + 0.06 * rng.next() : rank < 1000 ? 0.05 + 0.25 * rng.next() : 0.2 + 0.6 * rng.next();
      rows.push([token.id, exchange, `${symbol}/${dex ? "USDC" : "USDT"}`, spread, weights[i]! / sum]);
    });
  }
  await loadRows(s.c, "listing_params", { entity_id: "VARCHAR", exchange_id: "VARCHAR", pair: "VARCHAR", spread: "DOUBLE", weight: "DOUBLE" }, rows);
  // Spreads stay under 1% until something goes wrong (a planted case).
  await s.c.run(`
    CREATE TABLE listings AS
    SELECT l.entity_id, t.date, l.exchange_id, l.pair,
      least(0.95, l.spread * exp(0.15 * gauss(l.entity_id || l.exchange_id, d.day, 6))) AS "spreadPct",
      t."totalVolume" * l.weight AS "volumeUsd"
    FROM listing_params l
    JOIN token t ON t.entity_id = l.entity_id
    JOIN days d ON d.date = t.date
    WHERE (${LAST_DAY} - d.day) % 7 = 0`);
}
