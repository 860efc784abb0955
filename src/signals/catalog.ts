/**
 * @module signals/catalog
 * The catalog of signal types (GET /api/signals/catalog): each type's description, category,
 * inputs, raw metric, scoring criteria (the bands as thresholds and in words), screens, the
 * provider requests that feed it on real data and whether they do (`real_data`: yes, partial or
 * synthetic only, with the reason), and the JSON Schema of its evidence, plus the score scale and
 * the qualification rules every type shares.
 */
import { z } from "zod";
import { SCORE_AT, describeBands } from "./bands.ts";
import { DETECTORS } from "./detectors/index.ts";
import { evidenceJsonSchema } from "./evidence.ts";
import { type QualityReport, type TypeQuality, currentQuality, qualityReportSchema, typeQualitySchema } from "./quality.ts";

export const catalogSchema = z.object({
  count: z.number().int(),
  score_scale: z.object({ min: z.number(), max: z.number(), band_starts: z.record(z.string(), z.number()) }),
  qualification: z.record(z.string(), z.string()),
  signal_types: z.array(
    z.object({
      slug: z.string(),
      category: z.string(),
      description: z.string(),
      inputs: z.array(z.string()),
      metric: z.object({ name: z.string(), description: z.string(), unit: z.string() }),
      scoring: z.object({
        direction: z.enum(["higher", "lower"]),
        thresholds: z.object({ low: z.number().nullable(), moderate: z.number(), high: z.number() }),
        bands: z.record(z.string(), z.string()),
      }),
      screens: z.object({ max_age_days: z.number().nullable(), size_floor: z.object({ what: z.string(), min_usd: z.number() }).nullable() }),
      derived: z.boolean(),
      sources: z.array(z.string()),
      real_data: z.enum(["yes", "partial", "synthetic only"]),
      real_data_reason: z.string().nullable(),
      evidence_schema: z.record(z.string(), z.unknown()).describe("JSON Schema of this type's evidence object"),
      quality: typeQualitySchema.describe("measured in a backtest against labelled real events (window and labels in the top-level quality), or unmeasured with the reason"),
    }),
  ),
  quality: qualityReportSchema
    .omit({ types: true })
    .describe("the backtest the types' quality comes from: its world, window, label set, horizon, every labelled event with its series and the types that fired around it, and the controls"),
});
export type Catalog = z.infer<typeof catalogSchema>;

const QUALIFICATION_RULES = {
  pending: "detected by a scan, not yet screened",
  screened: "passed its screens: inputs fresh, above the type's size floor, not a duplicate",
  qualified:
    "screened and confirmed: found again by a scan on newer data, or corroborated in the same scan by an independent type " +
    "(one reading none of the same inputs) about the same main subject (the signal's first entity); convergence and narratives when two linked signals are qualified",
  rejected: "failed a screen, or expired unconfirmed (a scan on newer data no longer found it)",
};

let cached: { report: QualityReport; catalog: Catalog } | undefined;

/** The catalog, with the quality report in force (rebuilt when a new report is published). */
export function signalCatalog(): Catalog {
  const report = currentQuality();
  if (cached?.report !== report) cached = { report, catalog: buildCatalog(report) };
  return cached.catalog;
}

function buildCatalog(report: QualityReport): Catalog {
  const { types, ...about } = report;
  const unmeasured = (slug: string): TypeQuality => ({
    slug,
    measured: false,
    reason: "not in the quality report in force",
    detects: [],
    risk: false,
    detection: null,
    warning: null,
    alarms: { episodes: 0, entity_months: null, per_100_entity_months: null, confirmed: 0, precision: null },
    fires: { screened: 0, unscreened: 0 },
  });
  return {
    count: DETECTORS.length,
    score_scale: { min: 0, max: 100, band_starts: SCORE_AT },
    qualification: QUALIFICATION_RULES,
    signal_types: DETECTORS.map((d) => ({
      slug: d.slug,
      category: d.category,
      description: d.description,
      inputs: d.inputs,
      metric: { ...d.metric, unit: d.bands.unit },
      scoring: {
        direction: d.bands.direction,
        thresholds: { low: d.bands.low ?? null, moderate: d.bands.moderate, high: d.bands.high },
        bands: describeBands(d.bands),
      },
      screens: { max_age_days: d.screens.maxAgeDays, size_floor: d.screens.sizeFloor ? { what: d.screens.sizeFloor.what, min_usd: d.screens.sizeFloor.minUsd } : null },
      derived: d.derived ?? false,
      sources: [...d.realData.sources],
      real_data: d.realData.status,
      real_data_reason: d.realData.note ?? null,
      evidence_schema: evidenceJsonSchema(d),
      quality: types.find((t) => t.slug === d.slug) ?? unmeasured(d.slug),
    })),
    quality: about,
  };
}
