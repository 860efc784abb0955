/**
 * @module signals/quality
 * Each signal type's measured quality: the report a backtest writes (backtest/report.ts) against
 * labelled real events, in the shape the catalog and every signal answer carry. The catalog reads
 * the report shipped in `data/quality/` (measured on the recorded real history) unless the data
 * directory holds one of its own (`ckg backtest --publish`, measured on that directory's history).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import shipped from "../../data/quality/quality.json" with { type: "json" };

const median = z.number().nullable();

export const typeQualitySchema = z.object({
  slug: z.string(),
  measured: z.boolean(),
  /** Why it is not measured (no labelled event of the kinds it names, no series it reads in the history). */
  reason: z.string().nullable(),
  /** Kinds of labelled events the type names (detects). */
  detects: z.array(z.string()),
  /** A risk type: graded also on how early it warned of any incident on the entity. */
  risk: z.boolean(),
  detection: z.object({ events: z.number().int(), caught: z.number().int(), delays_days: z.array(z.number()), median_delay_days: median }).nullable(),
  warning: z
    .object({ incidents: z.number().int(), preceded: z.number().int(), leads: z.array(z.object({ event: z.string(), lead_days: z.number() })), median_lead_days: median })
    .nullable(),
  alarms: z.object({
    episodes: z.number().int(),
    /** Entity-months of the series the type reads over the window (null: it reads no series, e.g. graph types). */
    entity_months: z.number().nullable(),
    per_100_entity_months: z.number().nullable(),
    confirmed: z.number().int(),
    /** Share of episodes a labelled event confirmed within the horizon (null: no episode). */
    precision: z.number().nullable(),
  }),
  /** Days the type fired and passed its screens, and days it fired failing one. */
  fires: z.object({ screened: z.number().int(), unscreened: z.number().int() }),
});
export type TypeQuality = z.infer<typeof typeQualitySchema>;

export const qualityReportSchema = z.object({
  generated_at: z.string(),
  world: z.string(),
  window: z.object({ from: z.string(), to: z.string(), days: z.number().int() }),
  labels: z.object({
    files: z.array(z.string()),
    count: z.number().int(),
    in_window: z.number().int(),
    left_out: z.array(z.string()).default([]).describe("labels of entities this world does not have (the shipped set on a world without them)"),
  }),
  horizon_days: z.number().int(),
  detect_window_days: z.number().int(),
  episode_gap_days: z.number().int(),
  types: z.array(typeQualitySchema),
  events: z.array(
    z.object({
      id: z.string(),
      entity: z.string(),
      name: z.string(),
      day: z.string(),
      kind: z.string(),
      source: z.string(),
      independent: z.boolean(),
      in_window: z.boolean(),
      /** The entity's main series around the day (what the console charts), or null without one. */
      series: z.object({ table: z.string(), column: z.string(), points: z.array(z.tuple([z.string(), z.number().nullable()])) }).nullable(),
      /** Each type that fired on the entity around the day, with the days (screened or not). */
      fired: z.array(z.object({ type: z.string(), days: z.array(z.string()), screened_days: z.array(z.string()) })),
    }),
  ),
  controls: z.array(z.object({ id: z.string(), entity: z.string(), from: z.string(), until: z.string(), types: z.array(z.string()), in_window: z.boolean(), held: z.boolean(), fired: z.array(z.object({ type: z.string(), day: z.string() })) })),
  speed: z.object({ days: z.number().int(), median_ms_per_day: z.number(), days_per_minute: z.number() }),
});
export type QualityReport = z.infer<typeof qualityReportSchema>;

/** Where a data directory keeps the report of its own backtest. */
export function qualityPath(dataRoot: string): string {
  return join(dataRoot, "quality.json");
}

const SHIPPED = qualityReportSchema.parse(shipped);
/** How often the served report looks for a newer `quality.json` in the data directory. */
const RECHECK_MS = 10_000;
let served: { root?: string; report: QualityReport; mtimeMs: number; checkedAt: number } = { report: SHIPPED, mtimeMs: 0, checkedAt: 0 };

/** Serve the data directory's own report when it has one (the server calls this once it opens it). */
export function serveQualityFrom(dataRoot: string): void {
  served = { root: dataRoot, report: SHIPPED, mtimeMs: 0, checkedAt: 0 };
}

/**
 * The report the catalog and signal answers carry: the data directory's `quality.json` (written by
 * `ckg backtest --publish`, picked up without a restart) when valid, else the shipped one.
 */
export function currentQuality(now = Date.now()): QualityReport {
  if (!served.root || now - served.checkedAt < RECHECK_MS) return served.report;
  served.checkedAt = now;
  const path = qualityPath(served.root);
  const mtimeMs = existsSync(path) ? statSync(path).mtimeMs : 0;
  if (mtimeMs === served.mtimeMs) return served.report;
  served.mtimeMs = mtimeMs;
  served.report = SHIPPED;
  if (mtimeMs > 0) {
    try {
      const parsed = qualityReportSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
      if (parsed.success) served.report = parsed.data;
    } catch {
      // A report being written or broken: the shipped one stands until a valid one is there.
    }
  }
  return served.report;
}

export const signalQualitySchema = z
  .object({
    measured: z.boolean(),
    precision: z.number().nullable().describe("share of this type's alarms that a labelled real event confirmed within the horizon"),
    median_lead_days: z.number().nullable().describe("median days this type fired before the labelled incidents it preceded"),
    median_delay_days: z.number().nullable().describe("median days from a labelled event's start to this type's first signal on it"),
    window: z.string().describe("the replayed window the figures come from, FROM..TO"),
    reason: z.string().nullable().describe("why the type is unmeasured"),
  })
  .describe("this type's measured record in a backtest against labelled real events (GET /api/signals/catalog has the whole report)");
export type SignalQuality = z.infer<typeof signalQualitySchema>;

/** What a signal's answer says of its type's record: enough for an agent to weigh it. */
export function signalQuality(slug: string, report: QualityReport = currentQuality()): SignalQuality {
  const q = report.types.find((t) => t.slug === slug);
  return {
    measured: q?.measured ?? false,
    precision: q?.alarms.precision ?? null,
    median_lead_days: q?.warning?.median_lead_days ?? null,
    median_delay_days: q?.detection?.median_delay_days ?? null,
    window: `${report.window.from}..${report.window.to}`,
    reason: q ? q.reason : "not in the quality report",
  };
}
