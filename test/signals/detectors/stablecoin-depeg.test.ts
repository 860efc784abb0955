/**
 * stablecoin-depeg on hand-made stablecoin rows: |price / peg - 1| on the as-of day, peg 1 for USD
 * and the 30-day median price for other currencies, banded 0.5 / 1 / 2 % (docs/spec.md §2.4: above 0.5%; high
 * above 2%, moderate 1-2%), screened at 1M USD circulating.
 */
import detector from "../../../src/signals/detectors/stablecoin-depeg.ts";
import { type Case, type Row, daily, day, detectorTable } from "../../support/detector-inputs.ts";

const USDX = "token/usdx";
const EURX = "token/eurx";

function usd(price: number, over: Row<"stablecoin"> = {}): Row<"stablecoin">[] {
  return [{ entity_id: USDX, date: day(0), price, circulatingUsd: 50_000_000, pegCurrency: "USD", ...over }];
}

const cases: Case[] = [
  {
    name: "a USD coin at 0.97: high, below its peg",
    inputs: { series: { stablecoin: usd(0.97) } },
    expect: [{ entities: [USDX], severity: "high", value: 3, evidence: { metric: "peg_deviation_pct", price: 0.97, peg: 1, peg_currency: "USD", direction: "below", circulating_usd: 50_000_000 } }],
  },
  { name: "just over 2% (0.9799): high", inputs: { series: { stablecoin: usd(0.9799) } }, expect: [{ entities: [USDX], severity: "high", value: 2.01 }] },
  { name: "just under 2% (0.9801): moderate", inputs: { series: { stablecoin: usd(0.9801) } }, expect: [{ entities: [USDX], severity: "moderate", value: 1.99 }] },
  { name: "just over 1% (0.9899): moderate", inputs: { series: { stablecoin: usd(0.9899) } }, expect: [{ entities: [USDX], severity: "moderate" }] },
  { name: "just under 1% (0.9901): low", inputs: { series: { stablecoin: usd(0.9901) } }, expect: [{ entities: [USDX], severity: "low" }] },
  { name: "just over 0.5% (0.9949): low", inputs: { series: { stablecoin: usd(0.9949) } }, expect: [{ entities: [USDX], severity: "low", value: 0.51 }] },
  { name: "just under 0.5% (0.9951): nothing", inputs: { series: { stablecoin: usd(0.9951) } }, expect: [] },
  { name: "above the peg (1.025): high, direction above", inputs: { series: { stablecoin: usd(1.025) } }, expect: [{ entities: [USDX], severity: "high", value: 2.5, evidence: { direction: "above" } }] },
  { name: "a null peg currency counts as USD", inputs: { series: { stablecoin: usd(0.97, { pegCurrency: null }) } }, expect: [{ entities: [USDX], severity: "high", evidence: { peg: 1, peg_currency: null } }] },
  {
    name: "a EUR coin against its 30-day median (1.08), not against 1: 1.05 is 2.78% below",
    inputs: { series: { stablecoin: [...daily<"stablecoin">(30, 1, () => ({ entity_id: EURX, price: 1.08, circulatingUsd: 20_000_000, pegCurrency: "EUR" })), { entity_id: EURX, date: day(0), price: 1.05, circulatingUsd: 20_000_000, pegCurrency: "EUR" }] } },
    expect: [{ entities: [EURX], severity: "high", value: 2.78, evidence: { peg: 1.08, peg_currency: "EUR", direction: "below" } }],
  },
  {
    name: "a one-day spike in the history does not move the peg: the median, not the mean",
    inputs: { series: { stablecoin: daily<"stablecoin">(30, 0, (_d, n) => ({ entity_id: EURX, price: n === 12 ? 2 : 1.08, circulatingUsd: 20_000_000, pegCurrency: "EUR" })) } },
    expect: [],
  },
  { name: "a EUR coin at its own median: nothing", inputs: { series: { stablecoin: daily<"stablecoin">(30, 0, () => ({ entity_id: EURX, price: 1.08, circulatingUsd: 20_000_000, pegCurrency: "EUR" })) } }, expect: [] },
  { name: "a EUR coin without a price history: nothing (no peg to measure against)", inputs: { series: { stablecoin: [{ entity_id: EURX, date: day(0), price: 0.9, circulatingUsd: 20_000_000, pegCurrency: "EUR" }] } }, expect: [] },
  { name: "under 1M USD circulating: fails the size floor", inputs: { series: { stablecoin: usd(0.9, { circulatingUsd: 999_999 }) } }, expect: [{ entities: [USDX], severity: "high", failed: ["below_size_floor"] }] },
  { name: "a zero price: nothing", inputs: { series: { stablecoin: usd(0) } }, expect: [] },
  { name: "off peg the day before only: nothing", inputs: { series: { stablecoin: usd(0.9, { date: day(1) }) } }, expect: [] },
];

detectorTable(detector, cases);
