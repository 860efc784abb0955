/**
 * The quality report as the pure function it is (backtest/report.ts): episodes bridge short gaps,
 * a detection's delay and a warning's lead are counted from the label's day, precision counts the
 * episodes a label confirms, labels that are not independent or outside the window are not
 * counted, and a control breaks on any fire of its types, screened or not.
 */
import { describe, expect, test } from "bun:test";
import type { Label } from "../../src/backtest/labels.ts";
import { episodesOf, qualityReport } from "../../src/backtest/report.ts";
import type { Fire, Replay } from "../../src/backtest/replay.ts";
import { DETECTORS } from "../../src/signals/detectors/index.ts";

const fire = (type: string, entity: string, day: string, screened = true): Fire => ({ type, key: entity, entities: [entity], day, score: 60, severity: "moderate", screened });
const label = (l: Partial<Label> & Pick<Label, "id" | "entity" | "day" | "kind">): Label => ({ source: "a test source of enough length", independent: true, ...l });
const replayOf = (fires: Fire[]): Replay => ({ from: "2023-01-01", to: "2023-03-31", days: 90, fires, entityDays: { stablecoin: 300 }, errors: [], dayMs: [10, 20, 30] });
const report = (fires: Fire[], labels: Label[]) =>
  qualityReport({ replay: replayOf(fires), labels, labelFiles: ["t.jsonl"], detectors: DETECTORS, horizon: 14, world: "test", names: new Map(), series: new Map(), generatedAt: "2023-04-01T00:00:00Z" });

describe("episodes", () => {
  test("a gap of up to three quiet days is bridged; four starts a new episode", () => {
    const days = ["2023-01-01", "2023-01-02", "2023-01-05", "2023-01-10"];
    expect(episodesOf(days.map((d) => fire("stablecoin-depeg", "token/a", d))).map((e) => [e.start, e.end])).toEqual([
      ["2023-01-01", "2023-01-05"],
      ["2023-01-10", "2023-01-10"],
    ]);
  });
});

describe("detection, warning and precision", () => {
  const fires = [
    // Warned five days ahead of A's depeg and kept firing: lead 5, delay 0.
    ...["2023-02-05", "2023-02-06", "2023-02-07", "2023-02-08", "2023-02-09", "2023-02-10", "2023-02-11"].map((d) => fire("stablecoin-depeg", "token/a", d)),
    // Caught B's depeg two days late.
    fire("stablecoin-depeg", "token/b", "2023-03-03"),
    // An alarm no label confirms.
    fire("stablecoin-depeg", "token/c", "2023-01-15"),
    // Fired on D only unscreened: not caught.
    fire("stablecoin-depeg", "token/d", "2023-03-01", false),
  ];
  const labels = [
    label({ id: "a", entity: "token/a", day: "2023-02-10", kind: "depeg" }),
    label({ id: "b", entity: "token/b", day: "2023-03-01", kind: "depeg" }),
    label({ id: "d", entity: "token/d", day: "2023-03-01", kind: "depeg" }),
    label({ id: "n", entity: "token/c", day: "2023-01-20", kind: "depeg", independent: false }),
    label({ id: "o", entity: "token/c", day: "2024-01-20", kind: "depeg" }),
    label({ id: "q", entity: "token/d", day: "2023-02-25", kind: "quiet", until: "2023-03-05", types: ["stablecoin-depeg"] }),
  ];
  const r = report(fires, labels);
  const depeg = r.types.find((t) => t.slug === "stablecoin-depeg")!;

  test("caught 2 of the 3 counted depegs (the not independent and the outside one left out), delays 0 and 2", () => {
    expect(depeg.detection).toEqual({ events: 3, caught: 2, delays_days: [0, 2], median_delay_days: 1 });
  });
  test("the warning before A: lead 5 days, of 3 counted incidents", () => {
    expect(depeg.warning).toEqual({ incidents: 3, preceded: 1, leads: [{ event: "a", lead_days: 5 }], median_lead_days: 5 });
  });
  test("3 episodes, 2 confirmed; alarms per 100 entity-months of the stablecoin series", () => {
    expect(depeg.alarms).toEqual({ episodes: 3, entity_months: 10, per_100_entity_months: 30, confirmed: 2, precision: 0.667 });
    expect(depeg.fires).toEqual({ screened: 9, unscreened: 1 });
    expect(depeg.measured).toBe(true);
  });
  test("the control on D breaks on its unscreened fire; counted flags per event", () => {
    expect(r.controls).toEqual([{ id: "q", entity: "token/d", from: "2023-02-25", until: "2023-03-05", types: ["stablecoin-depeg"], in_window: true, held: false, fired: [{ type: "stablecoin-depeg", day: "2023-03-01" }] }]);
    expect(r.events.map((e) => [e.id, e.in_window, e.independent])).toEqual([
      ["a", true, true],
      ["b", true, true],
      ["d", true, true],
      ["n", true, false],
      ["o", false, true],
    ]);
  });
  test("a type with no label of its kind and no episode is unmeasured with the reason", () => {
    const supply = r.types.find((t) => t.slug === "stablecoin-supply-shift")!;
    expect(supply.measured).toBe(false);
    expect(supply.reason).toContain("no independent labelled supply-run event");
    expect(r.types).toHaveLength(28);
  });
});
