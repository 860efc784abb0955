/**
 * @module backtest/replay
 * The replay: for each day of a window, the real detectors run as of that day over the world's
 * series cut at that day (backtest/world.ts), scored and screened as a scan scores them
 * (signals/detect.ts). What they find is kept in memory and returned: nothing is written to the
 * state store, so no signal, move or outbox event of a backtest reaches what is served or a
 * subscriber. The derived types run too; their narratives come from the offline writer, never
 * from an endpoint.
 */
import { addDays } from "../time.ts";
import { KINDS, type Kind } from "../timeseries/kinds.ts";
import type { Detector, ScanContext } from "../signals/detector.ts";
import { detectAll } from "../signals/detect.ts";
import { signalId } from "../signals/identity.ts";
import { rowsOf } from "../signals/kit.ts";
import { SCHEDULED_KINDS } from "../signals/scan-inputs.ts";
import { OfflineNarrator } from "../signals/narratives.ts";
import type { Severity } from "../signals/bands.ts";
import type { ReplayWorld } from "./world.ts";

/** One finding of one type on one day. */
export interface Fire {
  type: string;
  /** The signal's identity within its type (signals/identity.ts). */
  key: string;
  entities: string[];
  day: string;
  score: number;
  severity: Severity;
  /** Passed its screens (fresh inputs, above the size floor): what a scan serves as screened or qualified. */
  screened: boolean;
}

export interface Replay {
  from: string;
  to: string;
  days: number;
  fires: Fire[];
  /** Entity-days with a row, per kind of series, over the window: the exposure alarms are counted against. */
  entityDays: Partial<Record<Kind, number>>;
  errors: { day: string; type: string; message: string }[];
  /** Wall time of each day's detectors. */
  dayMs: number[];
}

export class WindowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WindowError";
  }
}

/** Checks the window has history and counts its exposure, before any day is replayed. */
async function windowExposure(world: ReplayWorld, from: string, to: string): Promise<Partial<Record<Kind, number>>> {
  if (!(from <= to)) throw new WindowError(`the window's first day ${from} is after its last ${to}`);
  await world.cutAt(to);
  const entityDays: Partial<Record<Kind, number>> = {};
  for (const kind of Object.keys(KINDS) as Kind[]) {
    if ((world.tables.get(kind) ?? []).length === 0) continue;
    const [row] = await rowsOf<{ n: number }>(world.c, `SELECT count(*)::BIGINT::DOUBLE AS n FROM (SELECT DISTINCT entity_id, date FROM ${kind} WHERE date BETWEEN DATE '${from}' AND DATE '${to}')`);
    if (row!.n > 0) entityDays[kind] = row!.n;
  }
  if (Object.keys(entityDays).length === 0) {
    await world.cutAt("9999-12-31"); // the whole span, to say where the history is
    const [span] = await rowsOf<{ first: string | null; last: string | null }>(
      world.c,
      `SELECT min(d)::VARCHAR AS first, max(d)::VARCHAR AS last FROM (${[...world.tables.keys()].filter((k) => (world.tables.get(k) ?? []).length > 0 && !SCHEDULED_KINDS.includes(k)).map((k) => `SELECT min(date) AS d FROM ${k} UNION ALL SELECT max(date) FROM ${k}`).join(" UNION ALL ") || "SELECT NULL::DATE AS d"})`,
    );
    throw new WindowError(`no history in ${from}..${to}: the world's series run ${span?.first ?? "nowhere"}..${span?.last ?? "nowhere"}`);
  }
  return entityDays;
}

export async function replay(
  world: ReplayWorld,
  options: { from: string; to: string; detectors: readonly Detector[]; onDay?: (day: string, index: number, total: number, found: number) => void },
): Promise<Replay> {
  const { from, to, detectors } = options;
  const entityDays = await windowExposure(world, from, to);
  const narrator = new OfflineNarrator();
  const fires: Fire[] = [];
  const errors: Replay["errors"] = [];
  const dayMs: number[] = [];
  const total = Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;
  for (let index = 0, day = from; day <= to; index++, day = addDays(day, 1)) {
    const started = performance.now();
    await world.cutAt(day);
    const ctx: ScanContext = { c: world.c, asOf: day, day: (n) => `(DATE '${day}' - INTERVAL (${n}) DAY)::DATE`, graph: world.graph, earlier: [], narrator };
    // No episodes without a state store: each day's ids are that day's (derived types link them).
    const detection = await detectAll(ctx, detectors, { manifest: world.manifest, tables: world.tables }, async (detector, keys) =>
      new Map(keys.map((key) => [key, { signalId: signalId(detector.slug, key, day), episodeStart: day }])),
    );
    for (const c of detection.candidates) {
      fires.push({ type: c.detector.slug, key: c.key, entities: c.finding.entities, day, score: c.score, severity: c.severity, screened: c.failed.length === 0 });
    }
    for (const e of detection.errors) errors.push({ day, ...e });
    dayMs.push(performance.now() - started);
    options.onDay?.(day, index, total, detection.candidates.length);
  }
  return { from, to, days: total, fires, entityDays, errors, dayMs };
}
