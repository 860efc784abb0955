/**
 * @module demo/series/plants-markets
 * Plants on the market tables (markets.ts): a stablecoin off its peg or its supply jumping, the
 * top holders owning most of a token or the largest one buying, a token on few exchanges with a
 * wide spread. Metric definitions: plants.ts.
 */
import { BANDS, type Band, D, day, pick, record, rows } from "./plants.ts";
import { type SeriesContext, q } from "./series-db.ts";

/** Stablecoin plants run before token series are built, so token prices show the depeg too. */
export async function plantStablecoins(s: SeriesContext): Promise<void> {
  const eligible = (await rows<{ entity_id: string }>(s, `SELECT entity_id FROM stablecoin WHERE date = ${D} AND "circulatingUsd" >= 5e6 ORDER BY entity_id`)).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const dev = [0.0075, 0.015, 0.035][i]!;
    const id = pick(s, eligible, "stablecoin-depeg");
    if (!id) continue;
    await s.c.run(`UPDATE stablecoin SET price = price * (1 - ${dev}) / (price / CASE WHEN "pegCurrency" = 'EUR' THEN 1.08 ELSE 1 END) WHERE entity_id = ${q(id)} AND date = ${D}`);
    record(s, { signal_type: "stablecoin-depeg", band, entities: [id], metric: "peg_deviation_pct", value: dev * 100, table: "stablecoin", note: "price below its peg on the last day" });
  }
  for (const [i, band] of BANDS.entries()) {
    const shift = [0.125, 0.22, 0.45][i]!;
    const id = pick(s, eligible, "stablecoin-supply-shift");
    if (!id) continue;
    // Supply climbs over the last week from the level of the day a week before, which stays as it
    // was: the change is the planted one whatever the baseline did that week.
    await s.c.run(`UPDATE stablecoin s SET "circulatingUsd" = w."circulatingUsd" * (1 + ${shift} * (7 - date_diff('day', s.date, ${D})) / 7.0)
      FROM (SELECT "circulatingUsd" FROM stablecoin WHERE entity_id = ${q(id)} AND date = ${day(7)}) w
      WHERE s.entity_id = ${q(id)} AND s.date > ${day(7)}`);
    record(s, { signal_type: "stablecoin-supply-shift", band, entities: [id], metric: "supply_change_7d_pct", value: shift * 100, table: "stablecoin", note: "circulating supply rises over the last seven days" });
  }
}

export async function plantHolders(s: SeriesContext): Promise<void> {
  const tokens = (await rows<{ entity_id: string; top5: number }>(
    s,
    `SELECT entity_id, sum("shareOfSupply") AS top5 FROM holders WHERE date = ${D} AND rank <= 5 GROUP BY entity_id ORDER BY entity_id`,
  )).filter((r) => !s.planted.has(r.entity_id));
  const top5 = new Map(tokens.map((t) => [t.entity_id, t.top5]));
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, tokens.map((t) => t.entity_id), "power-concentration");
    if (!id) continue;
    const target = [0.45, 0.6, 0.8][i]!;
    // The whole history scales, so balances do not jump (which would read as smart money moving).
    const k = target / top5.get(id)!;
    await s.c.run(`UPDATE holders SET balance = balance * ${k}, "shareOfSupply" = "shareOfSupply" * ${k} WHERE entity_id = ${q(id)} AND rank <= 5`);
    record(s, { signal_type: "power-concentration", band, entities: [id], metric: "top5_holder_share_pct", value: target * 100, table: "holders", note: "the five largest holders own most of the supply" });
  }
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, tokens.map((t) => t.entity_id), "smart-money-divergence");
    if (!id) continue;
    const change = [0.15, 0.3, 0.6][i]!;
    await s.c.run(`UPDATE holders SET balance = balance * ${1 + change}, "shareOfSupply" = "shareOfSupply" * ${1 + change}
      WHERE entity_id = ${q(id)} AND rank = 1 AND date = ${D}`);
    record(s, { signal_type: "smart-money-divergence", band, entities: [id], metric: "top_holder_balance_change_30d_pct", value: change * 100, table: "holders", note: "the largest holder adds to its balance in the last week" });
  }
}

/**
 * A listed token loses all but one or two venues in the last week (delisted elsewhere), keeping its
 * busiest ones, at a spread. The background lists every token above the size floor on three venues
 * or more (a healthy market: synthetic/exchanges.ts), so the thin ones are made here: the graph's
 * listedOn facts still name every venue it was listed on, the last week's rows only those left.
 */
export async function plantListings(s: SeriesContext): Promise<void> {
  const counts = await rows<{ entity_id: string; n: bigint }>(
    s,
    `SELECT l.entity_id, count(*) AS n FROM listings l JOIN token t ON t.entity_id = l.entity_id AND t.date = l.date
     WHERE l.date = ${D} AND t."marketCap" >= 5e6 GROUP BY l.entity_id ORDER BY l.entity_id`,
  );
  const cases: [Band, number, number, string][] = [
    ["low", 2, 0.6, "delisted from all but two exchanges, at a normal spread"],
    ["moderate", 2, 1.5, "delisted from all but two exchanges, its spread widening"],
    ["high", 1, 4, "delisted from all but one exchange, at a wide spread"],
  ];
  for (const [band, exchanges, spread, note] of cases) {
    const id = pick(s, counts.filter((c) => Number(c.n) > exchanges).map((c) => c.entity_id), "exchange-liquidity-risk");
    if (!id) continue;
    await s.c.run(`DELETE FROM listings WHERE entity_id = ${q(id)} AND date = ${D} AND exchange_id NOT IN
      (SELECT exchange_id FROM listings WHERE entity_id = ${q(id)} AND date = ${D} ORDER BY "volumeUsd" DESC, exchange_id LIMIT ${exchanges})`);
    await s.c.run(`UPDATE listings SET "spreadPct" = ${spread} WHERE entity_id = ${q(id)} AND date = ${D}`);
    record(s, { signal_type: "exchange-liquidity-risk", band, entities: [id], metric: "widest_spread_pct", value: spread, table: "listings", note: `${note} (${exchanges} exchange${exchanges > 1 ? "s" : ""})` });
  }
}
