/**
 * exchange-liquidity-risk on hand-made listings and market caps: points = (3 - min(exchanges, 3)) +
 * volume-weighted spread % / 2 on the latest listings day, banded 1 / 1.5 / 3 (docs/spec.md §2.4:
 * tokens on 1-2 exchanges or with spreads above 2%; high: a single exchange with a wide spread),
 * screened at 1M USD of market cap.
 */
import detector from "../../../src/signals/detectors/exchange-liquidity-risk.ts";
import { type Case, type Inputs, type Row, day, detectorTable } from "../../support/detector-inputs.ts";

const TOKEN = "token/zrv";

/** The token's pairs, one per exchange, all at `spread` % and 100K USD volume, on D-`at`; a 50M USD market cap. */
function listed(exchanges: number, spread: number, at = 3, cap: number | null = 50e6): Inputs {
  const listings: Row<"listings">[] = Array.from({ length: exchanges }, (_, i) => ({ entity_id: TOKEN, date: day(at), exchange_id: `exchange/x${i + 1}`, pair: "ZRV/USDT", spreadPct: spread, volumeUsd: 100_000 }));
  return { series: { listings, token: cap === null ? [] : [{ entity_id: TOKEN, date: day(1), marketCap: cap, currentPrice: 1 }] } };
}

const cases: Case[] = [
  {
    name: "one exchange at a 2.2% spread: high, with the venue and its spread",
    inputs: listed(1, 2.2),
    expect: [{ entities: [TOKEN], severity: "high", value: 3.1, evidence: { metric: "liquidity_risk_points", exchanges: 1, spread_pct: 2.2, widest_spread_pct: 2.2, exchange_ids: ["exchange/x1"], volume_usd: 100_000, market_cap_usd: 50e6 } }],
  },
  { name: "one exchange, spread just over 2%: high", inputs: listed(1, 2.002), expect: [{ entities: [TOKEN], severity: "high", value: 3.001 }] },
  { name: "one exchange, spread just under 2%: moderate", inputs: listed(1, 1.998), expect: [{ entities: [TOKEN], severity: "moderate", value: 2.999 }] },
  { name: "one exchange, no spread: moderate", inputs: listed(1, 0), expect: [{ entities: [TOKEN], severity: "moderate", value: 2 }] },
  { name: "two exchanges, a normal spread (0.2%): low", inputs: listed(2, 0.2), expect: [{ entities: [TOKEN], severity: "low", value: 1.1 }] },
  { name: "two exchanges, spread just over 1%: moderate", inputs: listed(2, 1.002), expect: [{ entities: [TOKEN], severity: "moderate", value: 1.501 }] },
  { name: "two exchanges, spread just under 1%: low", inputs: listed(2, 0.998), expect: [{ entities: [TOKEN], severity: "low", value: 1.499 }] },
  { name: "three exchanges, spread just over 2%: low", inputs: listed(3, 2.002), expect: [{ entities: [TOKEN], severity: "low", value: 1.001 }] },
  { name: "three exchanges, spread just under 2%: nothing", inputs: listed(3, 1.998), expect: [] },
  { name: "five exchanges count as three: spread just over 2% is low", inputs: listed(5, 2.002), expect: [{ entities: [TOKEN], severity: "low", value: 1.001 }] },
  {
    name: "an idle pair's wide spread does not count: the spread is weighted by volume",
    inputs: { series: { listings: [...listed(3, 0.1).series!.listings!, { entity_id: TOKEN, date: day(3), exchange_id: "exchange/x9", pair: "ZRV/BTC", spreadPct: 12, volumeUsd: 0 }], token: listed(3, 0.1).series!.token } },
    expect: [],
  },
  {
    name: "with no volume anywhere, the plain mean spread: (0.1 + 0.1 + 0.1 + 12) / 4 = 3.075% over 4 exchanges, moderate",
    inputs: { series: { listings: [...listed(3, 0.1).series!.listings!.map((l) => ({ ...l, volumeUsd: 0 })), { entity_id: TOKEN, date: day(3), exchange_id: "exchange/x9", pair: "ZRV/BTC", spreadPct: 12, volumeUsd: 0 }], token: listed(3, 0.1).series!.token } },
    expect: [{ entities: [TOKEN], severity: "moderate", value: 12.3 / 4 / 2, evidence: { widest_spread_pct: 12, exchanges: 4 } }],
  },
  {
    name: "the latest listings day counts: one exchange a week ago, three now",
    inputs: { series: { listings: [...listed(1, 5, 8).series!.listings!, ...listed(3, 0.1, 1).series!.listings!], token: listed(1, 5).series!.token } },
    expect: [],
  },
  { name: "a market cap under 1M USD: fails the size floor", inputs: listed(1, 3, 3, 999_999), expect: [{ entities: [TOKEN], severity: "high", failed: ["below_size_floor"] }] },
  { name: "no market cap: fails the size floor", inputs: listed(1, 3, 3, null), expect: [{ entities: [TOKEN], severity: "high", failed: ["below_size_floor"], evidence: { market_cap_usd: null } }] },
  { name: "listings 12 days old: found, and stale", inputs: listed(1, 3, 12), expect: [{ entities: [TOKEN], severity: "high", failed: ["stale"] }] },
  { name: "listings older than 14 days: nothing", inputs: listed(1, 3, 14), expect: [] },
  { name: "no listings: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
