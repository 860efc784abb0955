/**
 * @module backtest/run
 * `ckg backtest` as a function: every check that can refuse the run first (labels, their
 * entities; the replay checks the window's history before its first day), then the replay, the
 * series around each labelled event, and the report. Nothing it does is written to the state store.
 */
import type { Detector } from "../signals/detector.ts";
import { DETECTORS } from "../signals/detectors/index.ts";
import { rowsOf } from "../signals/kit.ts";
import type { QualityReport } from "../signals/quality.ts";
import { DUCK_RESOURCES, sqlString } from "../store/duckdb.ts";
import { addDays, isoSeconds } from "../time.ts";
import { incidentLabels } from "./incident-labels.ts";
import { type Label, type LabelFile, checkLabelEntities, readLabels } from "./labels.ts";
import { DEFAULT_HORIZON_DAYS, DETECT_WINDOW_DAYS, qualityReport } from "./report.ts";
import { type Replay, replay } from "./replay.ts";
import { type ReplayWorld, type WorldSource, openWorld } from "./world.ts";

export interface BacktestOptions {
  source: WorldSource;
  from: string;
  to: string;
  labelFiles: LabelFile[];
  /**
   * Drop labels of entities the world lacks (listed in the report) instead of refusing: for the
   * shipped set, written for a world with every real entity it names, run on one without some.
   */
  lenientEntities?: boolean;
  horizon?: number;
  detectors?: readonly Detector[];
  memoryLimit?: string;
  onDay?: (day: string, index: number, total: number, found: number) => void;
}

/** `ckg backtest --types`: the detectors of the types named, and the names no type has. */
export { detectorsNamed } from "../signals/detectors/index.ts";

export async function runBacktest(options: BacktestOptions): Promise<{ report: QualityReport; replay: Replay }> {
  const given = readLabels(options.labelFiles);
  const world = await openWorld(options.source, { memoryLimit: options.memoryLimit ?? DUCK_RESOURCES.batchMemory });
  try {
    // The hacks an ingest put in the graph supply exploit labels of their own.
    const labels = [...given, ...(await incidentLabels(world, given))];
    const unknown: string[] = [];
    for (const id of new Set(labels.map((l) => l.entity))) if (!(await world.has(id))) unknown.push(id);
    const leftOut = options.lenientEntities ? labels.filter((l) => unknown.includes(l.entity)) : [];
    if (leftOut.length > 0) labels.splice(0, labels.length, ...labels.filter((l) => !unknown.includes(l.entity)));
    checkLabelEntities(labels, (id) => !unknown.includes(id));
    const detectors = options.detectors ?? DETECTORS;
    const replayed = await replay(world, { from: options.from, to: options.to, detectors, onDay: options.onDay });
    const horizon = options.horizon ?? DEFAULT_HORIZON_DAYS;
    const series = new Map<string, QualityReport["events"][number]["series"]>();
    for (const label of labels) if (label.kind !== "quiet") series.set(label.id, await seriesAround(world, label, horizon));
    const names = new Map(labels.map((l) => [l.entity, world.graph.name(l.entity)]));
    const report = qualityReport({ replay: replayed, labels, leftOut: leftOut.map((l) => `${l.id} (${l.entity})`), labelFiles: options.labelFiles.map((f) => f.name), detectors, horizon, world: world.description, names, series, generatedAt: isoSeconds() });
    return { report, replay: replayed };
  } finally {
    world.close();
  }
}

/** The series a chart of the event shows, in order of preference, per kind. */
const CHART_COLUMNS: [kind: string, columns: string[]][] = [
  ["stablecoin", ["price"]],
  ["token", ["currentPrice"]],
  ["protocol", ["tvlUsd", "feesUsd", "revenueUsd"]],
  ["lending", ["utilization"]],
  ["pool", ["apy"]],
];

/** The entity's first charted series with values from `horizon` days before the event to the detection window after. */
async function seriesAround(world: ReplayWorld, label: Label, horizon: number): Promise<QualityReport["events"][number]["series"]> {
  const from = addDays(label.day, -Math.max(horizon, 30));
  const to = addDays(label.day, DETECT_WINDOW_DAYS * 2);
  await world.cutAt(to);
  for (const [kind, columns] of CHART_COLUMNS) {
    if ((world.tables.get(kind as never) ?? []).length === 0) continue;
    for (const column of columns) {
      const rows = await rowsOf<{ d: string; v: number | null; src: string }>(
        world.c,
        `SELECT date::VARCHAR AS d, avg("${column}")::DOUBLE AS v, any_value(source_table) AS src FROM ${kind}
         WHERE entity_id = ${sqlString(label.entity)} AND date BETWEEN DATE '${from}' AND DATE '${to}' GROUP BY date ORDER BY date`,
      );
      if (rows.some((r) => r.v !== null)) return { table: rows[0]!.src, column, points: rows.map((r) => [r.d, r.v === null ? null : Math.round(r.v * 1e6) / 1e6]) };
    }
  }
  return null;
}
