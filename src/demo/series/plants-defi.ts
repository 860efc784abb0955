/**
 * @module demo/series/plants-defi
 * Plants on yield pools and lending markets (defi.ts): an APY spike, rewards many times the base
 * yield, utilization past the kink, borrowing close to a debt ceiling. Metric definitions: plants.ts.
 */
import { BANDS, D, day, pick, record, rows } from "./plants.ts";
import { type SeriesContext, q } from "./series-db.ts";

export async function plantPools(s: SeriesContext): Promise<void> {
  const big = (await rows<{ entity_id: string }>(s, `SELECT entity_id FROM pool WHERE date = ${D} AND "tvlUsd" >= 2e6 ORDER BY entity_id`)).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, big, "yield-anomaly");
    if (!id) continue;
    const change = [1.5, 3.5, 8][i]!;
    await s.c.run(`UPDATE pool p SET "apyReward" = b.avg_apy * ${1 + change} - p."apyBase", "apy" = b.avg_apy * ${1 + change}
      FROM (SELECT avg(apy) AS avg_apy FROM pool WHERE entity_id = ${q(id)} AND date >= ${day(7)} AND date < ${D}) b
      WHERE p.entity_id = ${q(id)} AND p.date = ${D}`);
    record(s, { signal_type: "yield-anomaly", band, entities: [id], metric: "apy_change_pct", value: change * 100, table: "pool", note: "APY spikes on the last day" });
  }
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, big, "yield-sustainability");
    if (!id) continue;
    const ratio = [6.5, 11, 20][i]!;
    // Three weeks of high rewards: a level, not a one-day spike.
    await s.c.run(`UPDATE pool SET "apyReward" = "apyBase" * ${ratio}, "apy" = "apyBase" * ${1 + ratio} WHERE entity_id = ${q(id)} AND date > ${day(21)}`);
    record(s, { signal_type: "yield-sustainability", band, entities: [id], metric: "reward_to_base_apy_ratio", value: ratio, table: "pool", note: "rewards many times the base yield for three weeks" });
  }
}

export async function plantLending(s: SeriesContext): Promise<void> {
  const plain = (await rows<{ entity_id: string }>(s, `SELECT entity_id FROM lending WHERE date = ${D} AND "totalSupplyUsd" >= 5e6 AND "debtCeilingUsd" IS NULL ORDER BY entity_id`)).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, plain, "utilization-stress");
    if (!id) continue;
    const u = [0.875, 0.925, 0.975][i]!;
    await s.c.run(`UPDATE lending l SET utilization = ${u}, "totalBorrowUsd" = l."totalSupplyUsd" * ${u},
      "borrowApy" = p.slope1 + p.slope2 * (${u} - 0.8) / 0.2, "supplyApy" = (p.slope1 + p.slope2 * (${u} - 0.8) / 0.2) * ${u} * (1 - p.reserve)
      FROM lending_params p WHERE p.entity_id = l.entity_id AND l.entity_id = ${q(id)} AND l.date > ${day(3)}`);
    record(s, { signal_type: "utilization-stress", band, entities: [id], metric: "utilization_pct", value: u * 100, table: "lending", note: "utilization above the kink for the last three days" });
  }
  const capped = (await rows<{ entity_id: string }>(s, `SELECT entity_id FROM lending WHERE date = ${D} AND "debtCeilingUsd" IS NOT NULL AND "totalSupplyUsd" >= 1e6 ORDER BY entity_id`)).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, capped, "debt-ceiling-proximity");
    if (!id) continue;
    const use = [0.875, 0.925, 0.975][i]!;
    // Borrowing nears the ceiling; supply grows with it so utilization stays at 70%.
    await s.c.run(`UPDATE lending SET "totalBorrowUsd" = "debtCeilingUsd" * ${use},
      "totalSupplyUsd" = greatest("totalSupplyUsd", "debtCeilingUsd" * ${use} / 0.7),
      utilization = "debtCeilingUsd" * ${use} / greatest("totalSupplyUsd", "debtCeilingUsd" * ${use} / 0.7)
      WHERE entity_id = ${q(id)} AND date > ${day(3)}`);
    record(s, { signal_type: "debt-ceiling-proximity", band, entities: [id], metric: "borrow_to_ceiling_pct", value: use * 100, table: "lending", note: "borrowing close to the governance debt ceiling" });
  }
}
