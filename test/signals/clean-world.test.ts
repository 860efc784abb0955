/**
 * The world without plants is the baseline: its series are "normal", so no detector of a planted
 * kind may rate anything high there. (Graph types read the graph, which plants do not touch.)
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { StateStore } from "../../src/store/state.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { copyOf, defaultWorldDataDir } from "../support/fixture.ts";
import { groundTruth, scan, snapshotOf } from "./support.ts";

let root: string;
let state: StateStore;

beforeAll(async () => {
  root = copyOf(await defaultWorldDataDir({ plants: false }));
  state = openSqliteState(snapshotOf(root).dir.stateDb);
  await scan(root, state, snapshotOf(root).manifest.as_of.slice(0, 10));
});

afterAll(async () => {
  await state.close();
  rmSync(root, { recursive: true, force: true });
});

test("the clean world has no plants and no high signals of the planted kinds", async () => {
  expect(groundTruth(root).anomalies).toEqual([]);
  const kinds = [...new Set(groundTruth(await defaultWorldDataDir()).anomalies.map((a) => a.signal_type))];
  expect(kinds.length).toBe(22);
  const high = (await state.all<{ signal_type: string; n: number }>(`SELECT signal_type, count(*) AS n FROM signals WHERE severity = 'high' GROUP BY signal_type`)).filter((r) =>
    kinds.includes(r.signal_type),
  );
  expect(high).toEqual([]);
  // The detectors ran and found the ordinary low and moderate cases there are.
  expect((await state.get<{ n: number }>("SELECT count(*) AS n FROM signals"))!.n).toBeGreaterThan(100);
});
