/**
 * @module ingest/providers/defillama/parse-yields
 * Yield pools and their histories, and the lending side of lending pools.
 */
import type { RawStore } from "../../raw-store.ts";
import { type ProviderOutput, type SeriesRow, addressKey } from "../../records.ts";
import { parseEach } from "../../connector.ts";
import { chainKey, marketKey, poolKey, protocolKey } from "./keys.ts";
import { after, attributes, type Known, label, listOf, loadSaved, pointsByDay, prominenceByRank, Relations, savedHistories, usable, ZERO_ADDRESS } from "./parse-common.ts";
import { lendBorrowSchema, type Pool, poolChartPoint, poolSchema } from "./schemas.ts";

export function parsePools(raw: RawStore, out: ProviderOutput, known: Known): Map<string, Pool> {
  const pools = new Map<string, Pool>();
  const saved = loadSaved(raw, out, "pools");
  const list = saved && listOf(out, "pools", saved.body, "data");
  if (!saved || !list) return pools;
  for (const pool of parseEach(list, poolSchema, (item, issue) => out.reject(`pool ${label(item, "pool", "symbol")}`, issue))) pools.set(pool.pool, pool);
  const prominence = prominenceByRank([...pools.values()], (pool) => pool.tvlUsd);

  for (const pool of pools.values()) {
    const chain = chainKey(pool.chain);
    const relations = new Relations();
    relations.add("poolOf", protocolKey(pool.project));
    relations.add("deployedOn", chain);
    for (const token of pool.underlyingTokens ?? []) relations.add("poolToken", underlyingKey(pool.chain, token, known));
    out.entity({
      type: "Pool",
      keys: [poolKey(pool.pool)],
      name: `${pool.project} ${pool.symbol}`,
      attributes: attributes([
        ["poolKind", usable(pool.exposure)],
        ["schema:description", usable(pool.poolMeta)],
      ]),
      relations: relations.list,
      sameAs: [`https://defillama.com/yields/pool/${pool.pool}`],
      prominence: prominence.get(pool),
    });
    out.row("pool", poolRow(pool, saved.day, pool));
  }

  for (const history of savedHistories(raw, out, "pool/", "data")) {
    const pool = pools.get(history.id);
    // The list's row speaks for its day; the chart's last point is the same day, hourly.
    const keep = after(history.saved.since, pool ? saved.day : undefined);
    for (const [day, point] of pointsByDay(out, history.rawKey, history.points, poolChartPoint, (p) => p.timestamp, keep)) {
      out.row("pool", poolRow({ ...point, pool: history.id, volumeUsd1d: null }, day, pool));
    }
  }
  return pools;
}

function poolRow(
  point: { pool: string; tvlUsd?: number | null; apy?: number | null; apyBase?: number | null; apyReward?: number | null; volumeUsd1d?: number | null },
  date: string,
  pool: Pool | undefined,
): SeriesRow {
  return {
    entity_id: poolKey(point.pool),
    date,
    protocol_id: pool ? protocolKey(pool.project) : null,
    chain_id: pool ? chainKey(pool.chain) : null,
    tvlUsd: point.tvlUsd ?? null,
    apy: point.apy ?? null,
    apyBase: point.apyBase ?? null,
    apyReward: point.apyReward ?? null,
    volumeUsd: point.volumeUsd1d ?? null,
  };
}

/** A pool's underlying token: the zero address is the chain's native coin. */
function underlyingKey(chain: string, token: string, known: Known): string | undefined {
  if (!token.trim()) return undefined;
  if (ZERO_ADDRESS.test(token.trim())) return known.nativeToken.get(chain);
  return addressKey(chainKey(chain), token);
}

export function parseLending(raw: RawStore, out: ProviderOutput, known: Known, pools: Map<string, Pool>): void {
  const saved = loadSaved(raw, out, "lendBorrow");
  // The free host answers a list; the paid one (poolsBorrow) the same records in `data`.
  const list = saved && listOf(out, "lendBorrow", saved.body, Array.isArray(saved.body) ? undefined : "data");
  if (!saved || !list) return;
  for (const market of parseEach(list, lendBorrowSchema, (item, issue) => out.reject(`lending market ${label(item, "pool")}`, issue))) {
    const pool = pools.get(market.pool);
    if (!pool) continue; // lendBorrow lists pools the pools list no longer has: nothing to join.
    const own = marketKey(market.pool);
    const asset = pool.underlyingTokens?.[0] ? underlyingKey(pool.chain, pool.underlyingTokens[0], known) : undefined;
    const relations = new Relations();
    relations.add("marketOf", protocolKey(pool.project));
    relations.add("marketAsset", asset);
    relations.add("deployedOn", chainKey(pool.chain));
    out.entity({ type: "LendingMarket", keys: [own], name: `${pool.project} ${pool.symbol}`, relations: relations.list, sameAs: [`https://defillama.com/yields/pool/${market.pool}`] });
    const supply = market.totalSupplyUsd ?? null;
    const borrow = market.totalBorrowUsd ?? null;
    const borrowApy = market.apyBaseBorrow == null && market.apyRewardBorrow == null ? null : (market.apyBaseBorrow ?? 0) + (market.apyRewardBorrow ?? 0);
    out.row("lending", {
      entity_id: own,
      date: saved.day,
      protocol_id: protocolKey(pool.project),
      asset_id: asset ?? null,
      totalSupplyUsd: supply,
      totalBorrowUsd: borrow,
      utilization: supply !== null && borrow !== null && supply > 0 ? borrow / supply : null,
      supplyApy: pool.apy ?? null,
      borrowApy,
      debtCeilingUsd: market.debtCeilingUsd ?? null,
    });
  }
}
