/**
 * @module backtest/report
 * The quality report: a pure function of what the replay found each day, the labels, the horizon
 * and the exposure. Definitions (docs/guide/signals.md, "Quality: measured on real history", says them in words):
 * - fired: a type's finding on an entity passed its screens that day (what a scan serves);
 * - episode: a run of days a type fired on one signal key, gaps up to EPISODE_GAP_DAYS bridged;
 * - detection: a labelled event of a kind the type names is caught when the type fired on the
 *   entity from the day before to DETECT_WINDOW_DAYS after; its delay is the first such day less
 *   the event's (0 when it was already firing);
 * - warning (risk types): an incident of any kind is preceded when the type fired on the entity in
 *   the `horizon` days before it; the lead is the event's day less the first of those days;
 * - precision: the share of episodes with a labelled event on one of their entities from
 *   DETECT_WINDOW_DAYS before their start to `horizon` days after it.
 * Labels that are not independent of the detectors' input, and labels outside the window, are
 * shown, never counted.
 */
import type { QualityReport, TypeQuality } from "../signals/quality.ts";
import type { Detector } from "../signals/detector.ts";
import { addDays } from "../time.ts";
import type { Kind } from "../timeseries/kinds.ts";
import type { Label } from "./labels.ts";
import type { Fire, Replay } from "./replay.ts";
import { TYPE_EVENTS } from "./type-events.ts";

export const DETECT_WINDOW_DAYS = 7;
const EPISODE_GAP_DAYS = 3;
export const DEFAULT_HORIZON_DAYS = 14;

type EventSeries = QualityReport["events"][number]["series"];

export interface ReportInput {
  replay: Replay;
  labels: Label[];
  /** Labels left out because the world lacks their entity (a lenient run of the shipped set). */
  leftOut?: string[];
  labelFiles: string[];
  detectors: readonly Detector[];
  horizon: number;
  world: string;
  /** Display names of the labelled entities. */
  names: Map<string, string>;
  /** Each labelled event's series around its day (read by the command; null where none). */
  series: Map<string, EventSeries>;
  generatedAt: string;
}

const dayNumber = (day: string) => Math.round(Date.parse(`${day}T00:00:00Z`) / 86_400_000);
const medianOf = (values: number[]) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

export function qualityReport(input: ReportInput): QualityReport {
  const { replay, labels, horizon } = input;
  const inWindow = (l: Label) => l.day >= replay.from && l.day <= replay.to;
  const counted = labels.filter((l) => l.kind !== "quiet" && l.independent && inWindow(l));
  // Days each type fired on each entity (screened), and every fire (for controls and charts).
  const screenedDays = new Map<string, Set<string>>();
  const anyDays = new Map<string, Set<string>>();
  for (const f of replay.fires) {
    for (const entity of f.entities) {
      const key = `${f.type} ${entity}`;
      let any = anyDays.get(key);
      if (!any) anyDays.set(key, (any = new Set()));
      any.add(f.day);
      if (!f.screened) continue;
      let set = screenedDays.get(key);
      if (!set) screenedDays.set(key, (set = new Set()));
      set.add(f.day);
    }
  }
  const firedOn = (type: string, entity: string, from: string, to: string) =>
    [...(screenedDays.get(`${type} ${entity}`) ?? [])].filter((d) => d >= from && d <= to).sort();

  const types: TypeQuality[] = input.detectors.map((detector) => {
    const slug = detector.slug;
    const meta = TYPE_EVENTS[slug] ?? { detects: [], risk: false };
    const episodes = episodesOf(replay.fires.filter((f) => f.type === slug && f.screened));
    const confirmed = episodes.filter((e) => counted.some((l) => e.entities.includes(l.entity) && dayNumber(l.day) >= dayNumber(e.start) - DETECT_WINDOW_DAYS && dayNumber(l.day) <= dayNumber(e.start) + horizon)).length;
    const exposureDays = Math.max(0, ...detector.inputs.filter((i) => i.startsWith("ts:")).map((i) => replay.entityDays[i.slice(3) as Kind] ?? 0));
    const entityMonths = exposureDays > 0 ? exposureDays / 30 : null;

    const detectable = counted.filter((l) => meta.detects.includes(l.kind));
    const delays: number[] = [];
    for (const l of detectable) {
      const days = firedOn(slug, l.entity, addDays(l.day, -1), addDays(l.day, DETECT_WINDOW_DAYS));
      if (days.length > 0) delays.push(Math.max(0, dayNumber(days[0]!) - dayNumber(l.day)));
    }
    const leads: { event: string; lead_days: number }[] = [];
    if (meta.risk) {
      for (const l of counted) {
        const days = firedOn(slug, l.entity, addDays(l.day, -horizon), addDays(l.day, -1));
        if (days.length > 0) leads.push({ event: l.id, lead_days: dayNumber(l.day) - dayNumber(days[0]!) });
      }
    }
    const measured = detectable.length > 0 || (meta.risk && counted.length > 0 && episodes.length > 0);
    const reason = measured
      ? null
      : (meta.unlabelled ??
        (meta.detects.length > 0
          ? `no independent labelled ${meta.detects.join(" or ")} event in ${replay.from}..${replay.to}, and no episode to check against the other labels`
          : `it raised no episode in ${replay.from}..${replay.to} on the world's series, so no label could confirm or refute it`));
    return {
      slug,
      measured,
      reason,
      detects: meta.detects,
      risk: meta.risk,
      detection: meta.detects.length > 0 ? { events: detectable.length, caught: delays.length, delays_days: delays, median_delay_days: medianOf(delays) } : null,
      warning: meta.risk ? { incidents: counted.length, preceded: leads.length, leads, median_lead_days: medianOf(leads.map((l) => l.lead_days)) } : null,
      alarms: {
        episodes: episodes.length,
        entity_months: entityMonths === null ? null : round(entityMonths, 1),
        per_100_entity_months: entityMonths === null ? null : round((episodes.length / entityMonths) * 100, 3),
        confirmed,
        precision: episodes.length > 0 ? round(confirmed / episodes.length, 3) : null,
      },
      fires: { screened: replay.fires.filter((f) => f.type === slug && f.screened).length, unscreened: replay.fires.filter((f) => f.type === slug && !f.screened).length },
    };
  });

  const events = labels
    .filter((l) => l.kind !== "quiet")
    .map((l) => {
      const from = addDays(l.day, -horizon);
      const to = addDays(l.day, DETECT_WINDOW_DAYS);
      const fired = input.detectors
        .map((d) => ({
          type: d.slug,
          days: [...(anyDays.get(`${d.slug} ${l.entity}`) ?? [])].filter((x) => x >= from && x <= to).sort(),
          screened_days: firedOn(d.slug, l.entity, from, to),
        }))
        .filter((f) => f.days.length > 0);
      return { id: l.id, entity: l.entity, name: input.names.get(l.entity) ?? l.entity, day: l.day, kind: l.kind, source: l.source, independent: l.independent, in_window: inWindow(l), series: input.series.get(l.id) ?? null, fired };
    });

  const controls = labels
    .filter((l) => l.kind === "quiet")
    .map((l) => {
      const fired = (l.types ?? []).flatMap((type) => [...(anyDays.get(`${type} ${l.entity}`) ?? [])].filter((d) => d >= l.day && d <= l.until!).sort().map((day) => ({ type, day })));
      return { id: l.id, entity: l.entity, from: l.day, until: l.until!, types: l.types ?? [], in_window: l.day >= replay.from && l.until! <= replay.to, held: fired.length === 0, fired };
    });

  const median = medianOf(replay.dayMs) ?? 0;
  const totalMs = replay.dayMs.reduce((a, b) => a + b, 0);
  return {
    generated_at: input.generatedAt,
    world: input.world,
    window: { from: replay.from, to: replay.to, days: replay.days },
    labels: { files: input.labelFiles, count: labels.length, in_window: labels.filter(inWindow).length, left_out: input.leftOut ?? [] },
    horizon_days: horizon,
    detect_window_days: DETECT_WINDOW_DAYS,
    episode_gap_days: EPISODE_GAP_DAYS,
    types,
    events,
    controls,
    speed: { days: replay.days, median_ms_per_day: round(median, 1), days_per_minute: totalMs > 0 ? round((replay.days / totalMs) * 60_000, 1) : 0 },
  };
}

interface Episode {
  key: string;
  start: string;
  end: string;
  entities: string[];
}

/** Runs of days per signal key; a gap longer than EPISODE_GAP_DAYS starts a new one. */
export function episodesOf(fires: readonly Fire[]): Episode[] {
  const byKey = new Map<string, Fire[]>();
  for (const f of fires) {
    const list = byKey.get(f.key);
    if (list) list.push(f);
    else byKey.set(f.key, [f]);
  }
  const episodes: Episode[] = [];
  for (const [key, list] of byKey) {
    list.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
    let current: Episode | undefined;
    for (const f of list) {
      if (current && dayNumber(f.day) - dayNumber(current.end) <= EPISODE_GAP_DAYS) {
        current.end = f.day;
        continue;
      }
      current = { key, start: f.day, end: f.day, entities: f.entities };
      episodes.push(current);
    }
  }
  return episodes;
}
