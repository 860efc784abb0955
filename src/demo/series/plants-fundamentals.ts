/**
 * @module demo/series/plants-fundamentals
 * Plants on protocol fundamentals and treasuries (fundamentals.ts): revenue jumps, steady losses,
 * fees outgrowing TVL, users growing while the token's price stays flat, a treasury that is almost
 * all its own token. Metric definitions: plants.ts.
 */
import type { Coverage } from "./coverage.ts";
import { BANDS, D, day, pick, record, rows } from "./plants.ts";
import { type SeriesContext, q } from "./series-db.ts";

/** Plants on protocol fundamentals (run after token series: one reshapes a token's price). */
export async function plantProtocols(s: SeriesContext, coverage: Coverage): Promise<void> {
  const revenueOf = await rows<{ entity_id: string; revenue: number; fees: number; users: number }>(
    s,
    `SELECT entity_id, avg("revenueUsd") AS revenue, avg("feesUsd") AS fees, avg("dailyUsers") AS users
     FROM protocol WHERE date > ${day(120)} GROUP BY entity_id ORDER BY entity_id`,
  );
  /**
   * Sets a protocol's columns over the last `days` to their mean there times `shape` (an SQL
   * expression of p.date): the baseline's own ups and downs no longer move the planted metric.
   */
  const flatten = async (id: string, days: number, columns: string[], shape: string) => {
    const set = columns.map((c) => `"${c}" = m."${c}" * (${shape})`).join(", ");
    const means = columns.map((c) => `avg("${c}") AS "${c}"`).join(", ");
    await s.c.run(`UPDATE protocol p SET ${set} FROM (SELECT ${means} FROM protocol WHERE entity_id = ${q(id)} AND date > ${day(days)}) m
      WHERE p.entity_id = ${q(id)} AND p.date > ${day(days)}`);
  };
  const FLOWS = ["feesUsd", "revenueUsd", "incentivesUsd", "earningsUsd"];

  const growing = revenueOf.filter((r) => r.revenue >= 1000).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, growing, "revenue-momentum");
    if (!id) continue;
    const factor = [1.45, 1.8, 2.6][i]!;
    // Flat, then the jump over the last 30 days; for high, a strong trend before the jump: the 90
    // days before rise by up to 30%.
    const before = band === "high" ? `(1 + 0.3 * (89 - date_diff('day', p.date, ${day(30)})) / 89.0)` : "1";
    await flatten(id, 120, FLOWS, `CASE WHEN p.date > ${day(30)} THEN ${factor} ELSE ${before} END`);
    const value = band === "high" ? (factor / 1.15 - 1) * 100 : (factor - 1) * 100;
    record(s, { signal_type: "revenue-momentum", band, entities: [id], metric: "revenue_30d_vs_prior_90d_pct", value, table: "protocol", note: band === "high" ? "revenue jumps after a 90-day rise" : "revenue jumps over the last 30 days" });
  }

  const earners = revenueOf.map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, earners, "earnings-health");
    if (!id) continue;
    const loss = [25_000, 70_000, 160_000][i]!;
    const before = band === "high" ? loss * 0.6 : loss;
    await s.c.run(`UPDATE protocol SET "incentivesUsd" = "revenueUsd" + CASE WHEN date > ${day(30)} THEN ${loss} ELSE ${before} END,
      "earningsUsd" = -(CASE WHEN date > ${day(30)} THEN ${loss} ELSE ${before} END) WHERE entity_id = ${q(id)} AND date > ${day(60)}`);
    record(s, { signal_type: "earnings-health", band, entities: [id], metric: "daily_loss_usd", value: loss, table: "protocol", note: band === "high" ? "losses deepen from 96K to 160K a day" : "steady daily losses over the last 60 days" });
  }

  const feeEarners = revenueOf.filter((r) => r.fees >= 1000).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, feeEarners, "capital-efficiency");
    if (!id) continue;
    const factor = [1.28, 1.42, 1.8][i]!;
    // Fees (and revenue) rise by the factor over the last week while TVL stays flat.
    await flatten(id, 37, [...FLOWS, "tvlUsd"], "1");
    await flatten(id, 7, FLOWS, String(factor));
    record(s, { signal_type: "capital-efficiency", band, entities: [id], metric: "fees_growth_minus_tvl_growth_pp", value: (factor - 1) * 100, table: "protocol", note: "fees rise over the last week while TVL holds" });
  }

  // Usage up, price flat: the protocol's own token stops moving over the comparison window.
  // A token several versions of a protocol share has one issuer in the graph's reading (the
  // first id, as the scan's token_issuer takes it): plant on that version, where the scan looks.
  const issuerOf = new Map<string, string>();
  for (const p of coverage.protocols) if (p.token && (!issuerOf.has(p.token) || p.id < issuerOf.get(p.token)!)) issuerOf.set(p.token, p.id);
  const withToken = new Map(coverage.protocols.filter((p) => p.token && coverage.vesting.has(p.token) && issuerOf.get(p.token) === p.id).map((p) => [p.id, p.token!]));
  const users = revenueOf.filter((r) => r.users >= 500 && withToken.has(r.entity_id) && !s.planted.has(withToken.get(r.entity_id)!)).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, users, "usage-price-mismatch");
    if (!id) continue;
    const token = withToken.get(id)!;
    s.planted.add(token);
    const growth = [0.15, 0.3, 0.6][i]!;
    // Growth measured against the baseline week as it is (noise included): the last week ends at exactly (1 + growth) x it.
    await s.c.run(`UPDATE protocol p SET "dailyUsers" = round(p."dailyUsers" * (1 + (k.k - 1) * least(1, (30 - date_diff('day', p.date, ${D})) / 24.0)))
      FROM (SELECT (1 + ${growth}) * avg("dailyUsers") FILTER (WHERE date <= ${day(30)}) / avg("dailyUsers") FILTER (WHERE date > ${day(7)}) AS k
            FROM protocol WHERE entity_id = ${q(id)} AND date > ${day(37)}) k
      WHERE p.entity_id = ${q(id)} AND p.date > ${day(30)}`);
    await s.c.run(`UPDATE token t SET "currentPrice" = b.price, "marketCap" = b.price * t."circulatingSupply"
      FROM (SELECT "currentPrice" AS price FROM token WHERE entity_id = ${q(token)} AND date = ${day(37)}) b
      WHERE t.entity_id = ${q(token)} AND t.date > ${day(37)}`);
    record(s, { signal_type: "usage-price-mismatch", band, entities: [id, token], metric: "users_growth_minus_price_growth_pp", value: growth * 100, table: "protocol", note: "users grow over 30 days while the token's price stays flat" });
  }
}

export async function plantTreasuries(s: SeriesContext): Promise<void> {
  const eligible = (await rows<{ entity_id: string; token_id: string }>(
    s,
    `SELECT entity_id, token_id FROM treasury WHERE date = ${D} AND "totalUsd" >= 1e6 ORDER BY entity_id`,
  )).filter((r) => !s.planted.has(r.token_id)).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, eligible, "treasury-health");
    if (!id) continue;
    const share = [0.85, 0.925, 0.97][i]!;
    // Reserves shrink until the own token is `share` of the treasury; low and moderate keep two years of runway.
    await s.c.run(`UPDATE treasury SET "stablecoinUsd" = "stablecoinUsd" * k, "otherUsd" = "otherUsd" * k,
        "totalUsd" = "ownTokenUsd" / ${share}, "ownTokenShare" = ${share},
        "monthlyExpensesUsd" = CASE WHEN ${band === "high" ? "TRUE" : "FALSE"} THEN "monthlyExpensesUsd" ELSE ("stablecoinUsd" + "otherUsd") * k / 24 END
      FROM (SELECT entity_id AS eid, date AS d, ("ownTokenUsd" * ${(1 - share) / share}) / ("stablecoinUsd" + "otherUsd") AS k FROM treasury WHERE entity_id = ${q(id)}) f
      WHERE entity_id = f.eid AND date = f.d AND date > ${day(7)}`);
    record(s, { signal_type: "treasury-health", band, entities: [id], metric: "own_token_share_pct", value: share * 100, table: "treasury", note: band === "high" ? "almost all own token, reserves for weeks" : "reserves sold down, two years of runway left" });
  }
}
