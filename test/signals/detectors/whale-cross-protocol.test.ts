/**
 * whale-cross-protocol on hand-made wallet activity: distinct protocols a wallet used in D-29..D,
 * banded 8 / 10 / 15 (docs/spec.md §2.4: high 15+ protocols, moderate 10-14, low 8-9).
 */
import detector from "../../../src/signals/detectors/whale-cross-protocol.ts";
import { type Case, type Row, day, detectorTable } from "../../support/detector-inputs.ts";

const WALLET = "eip155:1:0x000000000000000000000000000000000000beef";

/** The wallet's activity on `n` protocols (p01 the busiest), on day D-`at`. */
function activity(n: number, at = 2, over: Row<"wallet_activity"> = {}): Row<"wallet_activity">[] {
  return Array.from({ length: n }, (_, i) => ({ entity_id: `protocol/p${String(i + 1).padStart(2, "0")}`, date: day(at), wallet: WALLET, volumeUsd: (100 - i) * 1000, transactions: 3, ...over }));
}
/** The entities of a finding: the wallet, then its five busiest protocols. */
const ENTITIES = [WALLET, "protocol/p01", "protocol/p02", "protocol/p03", "protocol/p04", "protocol/p05"];

const cases: Case[] = [
  {
    name: "16 protocols: high, with the wallet, its volume and its protocols by volume",
    inputs: { series: { wallet_activity: activity(16) } },
    expect: [{ entities: ENTITIES, severity: "high", value: 16, evidence: { metric: "distinct_protocols_30d", wallet: WALLET, volume_usd: 1_480_000, protocols: activity(16).map((r) => r.entity_id) } }],
  },
  { name: "15 protocols: high", inputs: { series: { wallet_activity: activity(15) } }, expect: [{ entities: ENTITIES, severity: "high", value: 15 }] },
  { name: "14 protocols: moderate", inputs: { series: { wallet_activity: activity(14) } }, expect: [{ entities: ENTITIES, severity: "moderate", value: 14 }] },
  { name: "10 protocols: moderate", inputs: { series: { wallet_activity: activity(10) } }, expect: [{ entities: ENTITIES, severity: "moderate" }] },
  { name: "9 protocols: low", inputs: { series: { wallet_activity: activity(9) } }, expect: [{ entities: ENTITIES, severity: "low" }] },
  { name: "8 protocols: low", inputs: { series: { wallet_activity: activity(8) } }, expect: [{ entities: ENTITIES, severity: "low", value: 8 }] },
  { name: "7 protocols: nothing", inputs: { series: { wallet_activity: activity(7) } }, expect: [] },
  { name: "the same protocol on many days counts once", inputs: { series: { wallet_activity: [...activity(7, 2), ...activity(7, 5), ...activity(7, 9)] } }, expect: [] },
  { name: "activity on D-30 is outside the window", inputs: { series: { wallet_activity: [...activity(7, 2), ...activity(15, 30).slice(7)] } }, expect: [] },
  { name: "activity on D-29 is inside it", inputs: { series: { wallet_activity: [...activity(7, 2), ...activity(15, 29).slice(7)] } }, expect: [{ entities: ENTITIES, severity: "high" }] },
  {
    name: "activity with no volume still counts a protocol (ties in volume go by id)",
    inputs: { series: { wallet_activity: activity(10, 2, { volumeUsd: 0 }) } },
    expect: [{ entities: ENTITIES, severity: "moderate", evidence: { volume_usd: 0 } }],
  },
  { name: "no wallet activity: nothing", inputs: {}, expect: [] },
];

detectorTable(detector, cases);
