/**
 * The demo world's background is a healthy market: on the world `npm start` builds, a type whose
 * cases were planted raises those and little else. Before, exchange-liquidity-
 * risk raised 482 signals beside its 3 planted (239 passing its screens: listings ranked among the
 * real tokens left nearly every generated token on one or two venues), and unlock-pressure 32
 * beside its 3, 14 of them high (each member of the planted clusters of simultaneous unlocks, left
 * out of the ground truth). The thresholds are the spec's (2.4); what is asserted here is how the
 * findings compare with the planted cases (test/signals/planted.ts).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { StateStore } from "../../src/store/state.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import type { Severity } from "../../src/signals/bands.ts";
import { copyOf, defaultWorldDataDir } from "../support/fixture.ts";
import { type PlantedRow, plantedQuality } from "./planted.ts";
import { groundTruth, scan, snapshotOf } from "./support.ts";

let root: string;
let state: StateStore;
let rows: Map<string, PlantedRow>;

beforeAll(async () => {
  root = copyOf(await defaultWorldDataDir());
  state = openSqliteState(snapshotOf(root).dir.stateDb);
  await scan(root, state, snapshotOf(root).manifest.as_of.slice(0, 10));
  const signals = (await state.all<{ signal_type: string; entities: string; severity: Severity; qualification: string }>("SELECT * FROM signals WHERE ended_at IS NULL")).map((r) => ({
    signal_type: r.signal_type,
    entities: JSON.parse(r.entities) as string[],
    severity: r.severity,
    rejected: r.qualification === "rejected",
  }));
  const types = ["exchange-liquidity-risk", "unlock-pressure"];
  rows = new Map(plantedQuality(types, groundTruth(root).anomalies, signals, snapshotOf(root).manifest.namespaces).map((r) => [r.type, r]));
}, 300_000);

afterAll(async () => {
  await state?.close();
  rmSync(root, { recursive: true, force: true });
});

test("exchange-liquidity-risk: its 3 planted thin listings at their bands, and no other token above the size floor", () => {
  const r = rows.get("exchange-liquidity-risk")!;
  expect(r.planted).toBe(3);
  expect(r.atBand).toBe(r.planted);
  // What passes the screens is within twice the planted; the rest is the long tail under $1M of
  // market cap (rejected by the size floor, never served as qualified).
  expect(r.passed).toBeLessThanOrEqual(2 * r.planted);
  expect(r.extraPassed).toBe(0);
});

test("unlock-pressure: every planted unlock (the cliffs and each cluster member's) at its band; the background adds low ones only", () => {
  const r = rows.get("unlock-pressure")!;
  expect(r.planted).toBeGreaterThanOrEqual(3);
  expect(r.atBand).toBe(r.planted);
  expect(r.found).toBeLessThanOrEqual(2 * r.planted);
  // Ordinary monthly and quarterly tranches reach the low band (5-8% of circulating) at most.
  expect(r.extraBySeverity).toMatchObject({ moderate: 0, high: 0 });
});
