/**
 * usage-price-mismatch on hand-made protocol and token rows: a protocol's user growth minus its own
 * token's price growth (mean of D-6..D against mean of D-36..D-30), banded 10 / 20 / 40 points
 * (docs/spec.md §2.4: high above 40%, moderate 20-40%). The token is the protocol's through issuedBy.
 */
import detector from "../../../src/signals/detectors/usage-price-mismatch.ts";
import { type Case, type Inputs, type Row, daily, detectorTable } from "../../support/detector-inputs.ts";

const P = "protocol/zorvex";
const T = "token/zrv";
const ISSUER: Inputs["facts"] = [[T, "issuedBy", P]];

/** Users and price a month ago (D-36..D-30) and over the last week (D-6..D); the weeks between are left out. */
function growth(usersBefore: number, usersNow: number | null, priceBefore = 1, priceNow = 1): Inputs["series"] {
  const protocol = [
    ...daily<"protocol">(36, 30, () => ({ entity_id: P, dailyUsers: usersBefore })),
    ...(usersNow === null ? [] : daily<"protocol">(6, 0, () => ({ entity_id: P, dailyUsers: usersNow }))),
  ];
  const token: Row<"token">[] = [...daily<"token">(36, 30, () => ({ entity_id: T, currentPrice: priceBefore })), ...daily<"token">(6, 0, () => ({ entity_id: T, currentPrice: priceNow }))];
  return { protocol, token };
}
const ENTITIES = [P, T];

const cases: Case[] = [
  {
    name: "users up 50% on a flat price: high, usage ahead",
    inputs: { series: growth(1_000, 1_500), facts: ISSUER },
    expect: [{ entities: ENTITIES, severity: "high", value: 50, evidence: { metric: "users_growth_minus_price_growth_pp", token_id: T, users_growth_pct: 50, price_growth_pct: 0, direction: "usage_ahead", daily_users: 1_500 } }],
  },
  { name: "just over 40 points: high", inputs: { series: growth(1_000, 1_400.1), facts: ISSUER }, expect: [{ entities: ENTITIES, severity: "high", value: 40.01 }] },
  { name: "just under 40 points: moderate", inputs: { series: growth(1_000, 1_399.9), facts: ISSUER }, expect: [{ entities: ENTITIES, severity: "moderate", value: 39.99 }] },
  { name: "just over 20 points: moderate", inputs: { series: growth(1_000, 1_200.1), facts: ISSUER }, expect: [{ entities: ENTITIES, severity: "moderate" }] },
  { name: "just under 20 points: low", inputs: { series: growth(1_000, 1_199.9), facts: ISSUER }, expect: [{ entities: ENTITIES, severity: "low" }] },
  { name: "just over 10 points: low", inputs: { series: growth(1_000, 1_100.1), facts: ISSUER }, expect: [{ entities: ENTITIES, severity: "low", value: 10.01 }] },
  { name: "just under 10 points: nothing", inputs: { series: growth(1_000, 1_099.9), facts: ISSUER }, expect: [] },
  { name: "the price up 60% on flat usage: high, price ahead", inputs: { series: growth(1_000, 1_000, 2, 3.2), facts: ISSUER }, expect: [{ entities: ENTITIES, severity: "high", value: 60, evidence: { direction: "price_ahead", price_growth_pct: 60 } }] },
  { name: "users and price rising together: nothing", inputs: { series: growth(1_000, 1_500, 2, 3), facts: ISSUER }, expect: [] },
  { name: "under 100 daily users now: nothing", inputs: { series: growth(50, 99), facts: ISSUER }, expect: [] },
  { name: "exactly 100 daily users: counted", inputs: { series: growth(50, 100), facts: ISSUER }, expect: [{ entities: ENTITIES, severity: "high", value: 100 }] },
  { name: "a token without an issuer fact: nothing", inputs: { series: growth(1_000, 1_500) }, expect: [] },
  { name: "no users in the last week: nothing", inputs: { series: growth(1_000, null), facts: ISSUER }, expect: [] },
  { name: "zero users a month ago: nothing (no growth)", inputs: { series: growth(0, 1_500), facts: ISSUER }, expect: [] },
];

detectorTable(detector, cases);
