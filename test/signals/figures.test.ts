/**
 * The figure check that keeps an endpoint's narrative only when every figure in it is backed by the
 * evidence (signals/figures.ts): a table of sentences as a model writes them, against the evidence
 * of real-looking signals (the shapes the detectors write: summaries, values, data points, windows).
 */
import { describe, expect, test } from "bun:test";
import { Facts, figuresIn, unbackedFigures } from "../../src/signals/figures.ts";

const utilization = {
  severity: "high",
  metric: "utilization_pct",
  value: 97.53,
  unit: "%",
  window: { from: "2026-11-22", to: "2026-11-28" },
  data_points: [
    { table: "ts_synthetic_lending", entity: "pool/zorvex-usdc", date: "2026-11-28", column: "utilization", value: 0.9753 },
    { table: "ts_synthetic_lending", entity: "pool/zorvex-usdc", date: "2026-11-28", column: "totalSupplyUsd", value: 10_234_567.8 },
  ],
  summary: "Zorvex Lend USDC: 97.5% of 10.23M USD supplied is borrowed (at or above 85% on 6 of the last 7 days).",
};
const yieldSpike = {
  metric: "apy_change_pct",
  value: 150,
  window: { from: "2026-11-21", to: "2026-11-28" },
  data_points: [
    { table: "ts_synthetic_pool", entity: "pool/bkg-staking-base-29", date: "2026-11-28", column: "apy", value: 23.7524 },
    { table: "ts_synthetic_pool", entity: "pool/bkg-staking-base-29", date: null, column: "mean apy D-7..D-1", value: 9.501 },
    { table: "ts_synthetic_pool", entity: "pool/bkg-staking-base-29", date: "2026-11-28", column: "tvlUsd", value: 11_223_450.94 },
  ],
  summary: "BKG staking · Bykgael Staking · Base #29: APY spiked to 23.75% from a 7-day mean of 9.50% (150% change) with 11.22M USD TVL.",
  protocol_id: "protocol/bykgael-staking",
};
const treasury = {
  metric: "own_token_share_pct",
  value: 85,
  data_points: [{ table: "ts_synthetic_treasury", entity: "protocol/bykgael-staking", date: "2026-11-28", column: "ownTokenShare", value: 0.85 }],
  summary: "Bykgael Staking holds 85.0% of its 47.26M USD treasury in its own token; other reserves last 720 days.",
  total_usd: 47_256_912.24,
  runway_days: 720,
};
const facts = new Facts().add(utilization, yieldSpike, treasury, "Uniswap V3", 3);

describe("figures in a sentence", () => {
  test("numbers in their usual written forms, and dates, are read with the rounding they are written to", () => {
    const read = figuresIn("On November 28, 2026 (2026-11-28) it held $1,234,567, about 1.2 million, or 12.3% and 250 bps, 2.5x its 24h mean; three signals.");
    expect(read.map((f) => f.text)).toEqual(["November 28, 2026", "2026-11-28", "1,234,567", "1.2 million", "12.3%", "250 bps", "2.5x", "24h", "three"]);
    expect(read[0]!.date).toEqual({ month: 11, day: 28, year: 2026 });
    expect(read[3]!.spans![0]!.lo).toBeCloseTo(1_150_000, 0);
    expect(read[3]!.spans![0]!.hi).toBeCloseTo(1_250_000, 0);
  });

  test("digits inside names and identifiers are not figures", () => {
    expect(figuresIn("Uniswap V3, 1inch, an ERC-20 token at 0x12ab34ef, the D-7 mean, sig_62749cce and L2s, one of them.")).toEqual([]);
  });

  // [sentence, the figures the evidence does not back]
  const table: [string, string[]][] = [
    ["Zorvex Lend USDC is 97.5% borrowed out of 10.23M USD supplied.", []],
    ["Zorvex Lend USDC is about 98% borrowed out of $10.2 million supplied.", []],
    ["Zorvex Lend USDC: 97.53 percent of $10,234,568 is lent out.", []],
    ["Utilization reached 0.9753, above 85% on 6 of the last 7 days.", []],
    ["Borrowing stands at 97.5% of a 12.4M USD pool.", ["12.4M"]],
    ["Utilization hit 99% this week.", ["99%"]],
    ["Base #29's APY jumped 150% to 23.75% from 9.5%, with $11.2M TVL.", []],
    ["Base #29's APY jumped 2.5x to 23.75%.", ["2.5x"]],
    ["The APY of 23.8% sits on 11.22M USD of deposits, down -150%.", []],
    ["The APY of 24.1% sits on 11.22M USD.", ["24.1%"]],
    ["Bykgael Staking keeps 85% of a $47.3M treasury in its own token, about 720 days of runway.", []],
    ["Bykgael Staking keeps 0.85 of a 47M USD treasury in its token.", []],
    // 720 days is about 2 years, but the evidence says days: a conversion is a figure of the model's own.
    ["Bykgael Staking's reserves last 2 years.", ["2"]],
    ["Bykgael Staking keeps 85% of a $47.3B treasury in its own token.", ["47.3B"]],
    ["Bykgael Staking's runway is 365 days.", ["365"]],
    ["As of November 28, 2026, three signals point the same way.", []],
    ["On 2026-11-28 Uniswap V3 showed three signals.", []],
    ["Since November 21 the APY has risen.", []],
    ["On 12 March 2023 the treasury was drained.", ["12 March 2023"]],
    ["In 2025 the pool held 10.23M USD.", ["2025"]],
    ["Five signals point the same way.", ["Five"]],
  ];
  test.each(table)("%p", (sentence, unbacked) => {
    expect(unbackedFigures(sentence, facts)).toEqual(unbacked);
  });
});
