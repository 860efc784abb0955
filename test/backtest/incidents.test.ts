/**
 * The exploits DefiLlama's `/hacks` supplies: after a real ingest of saved DefiLlama answers (the
 * recorded-shape fixture's incidents, with Euler V1 and its family in the protocol lists), a
 * backtest of that data directory takes each incident as an exploit label on each protocol it hit,
 * beside the labels it was given, and never twice for one already labelled by hand.
 */
import { expect, test } from "bun:test";
import { runBacktest } from "../../src/backtest/run.ts";
import { ingest } from "../../src/ingest/ingest.ts";
import { silentLogger } from "../../src/log.ts";
import { DETECTORS } from "../../src/signals/detectors/index.ts";
import { dataDir } from "../../src/store/data-dir.ts";
import { addDays } from "../../src/time.ts";
import { defillamaFixtureFile, listsWithEuler, savedAnswers } from "../support/defillama-hacks.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { snapshotOf } from "../signals/support.ts";

test("each ingested incident is an exploit label on the protocols it hit; a hand label of the same day is kept, not doubled", async () => {
  const root = await copyOfFixture();
  const today = addDays(snapshotOf(root).manifest.as_of.slice(0, 10), 1);
  const raw = savedAnswers({ ...listsWithEuler(), hacks: defillamaFixtureFile("hacks.json") }, today);
  await ingest({ dir: dataDir(root), today, source: { kind: "import", from: raw.root, providers: ["defillama"] }, log: silentLogger });
  const hand = { id: "euler-by-hand", entity: "protocol/euler-v1", day: "2023-03-13", kind: "exploit", source: "DefiLlama /hacks, written by hand" };
  const { report } = await runBacktest({
    source: { kind: "snapshot", dir: dataDir(root) },
    from: addDays(today, -3),
    to: addDays(today, -1),
    detectors: DETECTORS.filter((d) => d.slug === "stablecoin-depeg"),
    labelFiles: [{ name: "hand.jsonl", text: JSON.stringify(hand) }],
  });
  const exploits = report.events.filter((e) => e.kind === "exploit");
  // Euler V1's incident lands on Euler V1 (by hand) and on its family, Euler (from the graph).
  expect(exploits.filter((e) => e.day === "2023-03-13").map((e) => [e.id, e.entity])).toEqual([
    ["euler-by-hand", "protocol/euler-v1"],
    [expect.stringMatching(/^hack:.+:protocol\/euler$/), "protocol/euler"],
  ]);
  const fromGraph = exploits.filter((e) => e.id.startsWith("hack:"));
  expect(fromGraph.length).toBeGreaterThan(1);
  for (const e of fromGraph) expect(e.source).toMatch(/^DefiLlama \/hacks, ingested \(security-incident\/.+\): .+, (\d+\.\d M USD|amount not given)/);
}, 180_000);
