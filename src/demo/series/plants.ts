/**
 * @module demo/series/plants
 * Planted anomalies: for each signal type that reads time-series, one case per band (low,
 * moderate, high), each on its own entity, with the raw metric set to the middle of the band, and
 * written down as ground truth. A plant that makes another type's case as well (each member of a
 * cluster of simultaneous unlocks has its own unlock pressure) writes that case down too. Plants
 * pick from the series tables, which hold generated entities only (coverage.ts): a planted depeg
 * or loss never names a real stablecoin or protocol. The baseline series stay clear of the high
 * bands, so a world built without plants shows what the detectors find in "normal" data.
 *
 * This module holds what every plant shares: the bands, the pick of an unplanted entity, the
 * ground-truth record and the last day D. The plants themselves sit in plants-<family>.ts, one per
 * family of series (markets, fundamentals, defi, flows, governance), like the series modules.
 *
 * Metric definitions (the detectors of the signals issue compute the same; D is the last day):
 *   yield-anomaly           |apy(D) / mean apy(D-7..D-1) - 1|, %; pools with TVL >= 500K
 *   yield-sustainability    mean apyReward / mean apyBase over D-6..D, x
 *   utilization-stress      utilization(D), %
 *   debt-ceiling-proximity  totalBorrowUsd(D) / debtCeilingUsd(D), %
 *   stablecoin-depeg        |price(D) / peg - 1|, %; circulating >= 1M
 *   stablecoin-supply-shift |circulatingUsd(D) / circulatingUsd(D-7) - 1|, %
 *   revenue-momentum        mean revenue D-29..D / mean revenue D-119..D-30 - 1, %
 *   earnings-health         -mean earnings D-29..D (a daily loss), USD; worsening when D-59..D-30 lost less
 *   usage-price-mismatch    users growth - price growth, % points (means of D-6..D vs D-36..D-30)
 *   capital-efficiency      fees growth - TVL growth, % points (same windows)
 *   treasury-health         ownTokenShare(D), %; runway = (stable + other) / monthly expenses
 *   governance-apathy       turnout of a proposal closed in D-29..D, %
 *   controversial-proposal  margin of a proposal passed in D-29..D, %
 *   power-concentration     sum of the top five holders' shareOfSupply on the last week, %
 *   smart-money-divergence  |largest holder's balance(D) / balance(D-28) - 1|, %
 *   unlock-pressure         sum of shareOfCirculating of unlocks in D+1..D+30, %
 *   cluster-unlock-risk     unlock value in D+1..D+30 / market cap, over a token and the tokens sharing 3+ investors with it, %
 *   exchange-liquidity-risk exchanges listing the token and its widest spread on the last week
 *   insider-accumulation    sum of insider netFlowUsd over D-29..D, USD
 *   sector-rotation         the same summed over a sector's tokens, USD
 *   flow-anomaly            z-score of a token's insider flow on D against D-30..D-1
 *   whale-cross-protocol    distinct protocols a wallet used in D-29..D
 */
import type { GroundTruth } from "../../model/series.ts";
import type { SeriesContext } from "./series-db.ts";

export type Band = GroundTruth["band"];
export const BANDS: Band[] = ["low", "moderate", "high"];

/** A tiny helper: run SQL, get rows as objects. */
export async function rows<T>(s: SeriesContext, sql: string): Promise<T[]> {
  return (await s.c.runAndReadAll(sql)).getRowObjectsJS() as T[];
}

/** Deterministic pick of an unplanted candidate (candidates come sorted by id); undefined when none is left. */
export function pick(s: SeriesContext, candidates: string[], label: string): string | undefined {
  const free = candidates.filter((c) => !s.planted.has(c));
  if (free.length === 0) {
    // Small worlds may lack a fitting entity; the case is reported, not invented.
    s.skipped.push(label);
    return undefined;
  }
  const chosen = free[Math.floor(s.rng.next() * free.length)]!;
  s.planted.add(chosen);
  return chosen;
}

export function record(s: SeriesContext, truth: GroundTruth): void {
  s.truth.push(truth);
}

export const D = "(SELECT max(date) FROM days)";
/** The day `offset` days before D, as SQL. */
export const day = (offset: number) => `(${D} - INTERVAL ${offset} DAY)::DATE`;
