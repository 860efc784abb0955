/**
 * @module ingest/providers/defillama/parse-earnings
 * Incentives and earnings of protocols, from what DefiLlama's free answers give: a pool's reward
 * yield (`apyReward`, paid in tokens) on its TVL is what its protocol pays out in incentives, so a
 * protocol's incentives of a day are the sum over its pools of tvlUsd x apyReward / 100 / 365, and
 * its earnings the day's revenue less them.
 *
 * A day counts only when every pool of the protocol that pays rewards today (in the pools list)
 * has a point that day (the list for today, the histories of the largest pools before): a day
 * with some of them missing would understate the incentives, so it stays null. Rewards paid in
 * another project's token (a chain's grant program) count as the pool's protocol's incentives:
 * DefiLlama's free answers do not say who pays them.
 */
import type { ProviderOutput, SeriesRow } from "../../records.ts";

export function fillEarnings(out: ProviderOutput): void {
  const pools = out.series.get("pool") ?? [];
  const protocols = out.series.get("protocol") ?? [];
  if (pools.length === 0 || protocols.length === 0) return;
  const today = pools.reduce((latest, row) => (typeof row.date === "string" && row.date > latest ? row.date : latest), "");
  // The pools each protocol pays rewards in today, and every pool's reward outlay by day.
  const rewarded = new Map<string, Set<string>>();
  const outlay = new Map<string, Map<string, number>>();
  for (const row of pools) {
    const protocol = row.protocol_id;
    const pool = row.entity_id;
    if (typeof protocol !== "string" || typeof pool !== "string" || typeof row.date !== "string") continue;
    const daily = dailyIncentive(row);
    if (row.date === today && daily > 0) {
      let set = rewarded.get(protocol);
      if (!set) rewarded.set(protocol, (set = new Set()));
      set.add(pool);
    }
    let byPool = outlay.get(`${protocol} ${row.date}`);
    if (!byPool) outlay.set(`${protocol} ${row.date}`, (byPool = new Map()));
    byPool.set(pool, daily);
  }
  for (const row of protocols) {
    const protocol = row.entity_id as string;
    const byPool = outlay.get(`${protocol} ${row.date}`);
    const paying = rewarded.get(protocol);
    // A protocol with pools but none rewarded today pays no incentives; one without pools is unknown.
    if (!byPool && !paying) continue;
    if (paying && (!byPool || [...paying].some((pool) => !byPool.has(pool)))) continue;
    const incentives = [...(byPool?.values() ?? [])].reduce((sum, v) => sum + v, 0);
    row.incentivesUsd = incentives;
    row.earningsUsd = typeof row.revenueUsd === "number" ? row.revenueUsd - incentives : null;
  }
}

/** A pool row's reward outlay over one day, USD. */
function dailyIncentive(row: SeriesRow): number {
  const tvl = typeof row.tvlUsd === "number" ? row.tvlUsd : 0;
  const reward = typeof row.apyReward === "number" ? row.apyReward : 0;
  return tvl > 0 && reward > 0 ? (tvl * reward) / 100 / 365 : 0;
}
