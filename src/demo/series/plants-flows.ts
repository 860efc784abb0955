/**
 * @module demo/series/plants-flows
 * Plants on wallet flows (flows.ts): insiders accumulating a token, a one-day flow spike, a whole
 * sector's insiders buying, a whale moving through many protocols. Metric definitions: plants.ts.
 */
import type { Coverage } from "./coverage.ts";
import { BANDS, day, pick, record } from "./plants.ts";
import { type SeriesContext, q } from "./series-db.ts";

/** Insider flow plants: accumulation by a few insiders, whole sectors buying, a one-day flow spike. */
export async function plantFlows(s: SeriesContext, coverage: Coverage): Promise<void> {
  const insidersOf = new Map<string, { wallet: string; holder: string; role: string }[]>();
  for (const insider of s.ctx.insiders) {
    if (!coverage.vesting.has(insider.token)) continue;
    const list = insidersOf.get(insider.token) ?? [];
    list.push({ wallet: insider.wallet, holder: insider.holder, role: insider.role });
    insidersOf.set(insider.token, list);
  }
  const eligible = [...insidersOf.keys()].filter((t) => insidersOf.get(t)!.length >= 2).sort();
  const insert = async (token: string, flowsByDay: [number, number][]) => {
    const insiders = insidersOf.get(token)!;
    const values = flowsByDay.map(([offset, usd], i) => {
      const insider = insiders[i % insiders.length]!;
      return `(${q(token)}, ${day(offset)}, ${q(insider.wallet)}, ${q(insider.holder)}, ${q(insider.role)}, ${usd})`;
    });
    await s.c.run(`INSERT INTO insider_flows SELECT v.entity_id, v.date, v.wallet, v.holder_id, v.holder_role, v.flow,
        coalesce((SELECT max(balance) FROM insider_flows f WHERE f.entity_id = v.entity_id AND f.wallet = v.wallet), 0) + v.flow / t."currentPrice"
      FROM (VALUES ${values.join(", ")}) v(entity_id, date, wallet, holder_id, holder_role, flow)
      JOIN token t ON t.entity_id = v.entity_id AND t.date = v.date`);
  };

  const sectorOfPlant = new Set<string>();
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, eligible, "insider-accumulation");
    if (!id) continue;
    const total = [150_000, 500_000, 1_800_000][i]!;
    await insert(id, [1, 2, 3, 4, 5].map((offset): [number, number] => [offset, total / 5]));
    sectorOfPlant.add(coverage.sectorOf.get(id) ?? "");
    record(s, { signal_type: "insider-accumulation", band, entities: [id], metric: "insider_net_flow_30d_usd", value: total, table: "insider_flows", note: "insiders buy over five days, no selling" });
  }
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, eligible, "flow-anomaly");
    if (!id) continue;
    const z = [1.75, 2.5, 4.5][i]!;
    // Thirty days of steady flows (40K and 80K in turn: mean 60K, sd 20K), then a spike on the last day.
    const flows: [number, number][] = Array.from({ length: 30 }, (_, k) => [k + 1, k % 2 === 0 ? 40_000 : 80_000]);
    flows.push([0, 60_000 + z * 20_000]);
    await insert(id, flows);
    sectorOfPlant.add(coverage.sectorOf.get(id) ?? "");
    record(s, { signal_type: "flow-anomaly", band, entities: [id], metric: "insider_flow_z_score", value: z, table: "insider_flows", note: "a day's insider flow far above its 30-day pattern" });
  }
  const bySector = new Map<string, string[]>();
  for (const token of eligible) {
    const sector = coverage.sectorOf.get(token);
    if (!sector || s.planted.has(token)) continue;
    bySector.set(sector, [...(bySector.get(sector) ?? []), token]);
  }
  const sectors = [...bySector.keys()].filter((sector) => !sectorOfPlant.has(sector) && bySector.get(sector)!.length >= 3).sort();
  for (const [i, band] of BANDS.entries()) {
    const total = [750_000, 2_500_000, 7_000_000][i]!;
    const sector = sectors[i];
    if (!sector) {
      s.skipped.push("sector-rotation");
      continue;
    }
    const tokens = bySector.get(sector)!.slice(0, 3);
    for (const token of tokens) {
      s.planted.add(token);
      await insert(token, [3, 6, 9, 12, 15].map((offset): [number, number] => [offset, total / tokens.length / 5]));
    }
    record(s, { signal_type: "sector-rotation", band, entities: tokens, metric: "sector_insider_net_flow_30d_usd", value: total, table: "insider_flows", note: `insiders across the ${sector} sector buy` });
  }
}

export async function plantWhales(s: SeriesContext, coverage: Coverage): Promise<void> {
  const protocols = coverage.protocols.map((p) => p.id).sort();
  for (const [i, band] of BANDS.entries()) {
    const count = [8, 12, 18][i]!;
    const wallet = `eip155:1:0x${s.rng.hex(20)}`;
    const used = s.rng.sample(protocols, count);
    const values = used.map((protocol, k) => `(${q(protocol)}, ${day(k % 28)}, ${q(wallet)}, ${250_000 + k * 10_000}, 3::BIGINT)`);
    await s.c.run(`INSERT INTO wallet_activity VALUES ${values.join(", ")}`);
    record(s, { signal_type: "whale-cross-protocol", band, entities: [wallet], metric: "distinct_protocols_30d", value: count, table: "wallet_activity", note: "a large wallet moves through many protocols in a month" });
  }
}
