/**
 * @module signals/evidence
 * The evidence object every signal carries (docs/decisions/0009-score-and-severity-bands.md: it
 * names its severity, the raw metric, its value, the window and the data points it came from), plus
 * each type's own fields. The catalog publishes the same schema as JSON Schema; tests validate
 * every signal against it.
 */
import { z } from "zod";
import { SEVERITIES } from "./bands.ts";
import type { Detector } from "./detector.ts";

const dataPointSchema = z.object({
  table: z.string().describe("published table the figure is from (ts_synthetic_pool), or graph"),
  entity: z.string(),
  date: z.string().nullable(),
  column: z.string(),
  value: z.union([z.number(), z.string()]).nullable(),
});

const commonEvidence = {
  severity: z.enum(SEVERITIES),
  metric: z.string().describe("name of the raw metric the score comes from"),
  value: z.number().describe("the raw metric's value"),
  unit: z.string(),
  window: z.object({ from: z.string(), to: z.string() }).describe("dates of the data the metric covers (YYYY-MM-DD)"),
  data_points: z.array(dataPointSchema),
  sources: z.array(z.string()).describe("published tables and graph sources the signal was computed from"),
  synthetic: z.boolean().describe("true when any source is generated demo data"),
  screens: z.object({
    passed: z.boolean(),
    failed: z.array(z.string()).describe("screens that failed: stale, below_size_floor, duplicate"),
  }),
  summary: z.string().describe("one sentence with the numbers"),
  note: z.string().optional().describe("why the band was capped or raised by a secondary condition"),
};

/** Every signal's evidence as the routes describe it: the common fields, and the type's own beside them. */
export const anyEvidenceSchema = z.looseObject(commonEvidence);
export type Evidence = z.infer<typeof anyEvidenceSchema>;

export function evidenceSchema(detector: Detector): z.ZodObject {
  return z.object({ ...commonEvidence, ...detector.details });
}

export function evidenceJsonSchema(detector: Detector): Record<string, unknown> {
  return z.toJSONSchema(evidenceSchema(detector), { io: "output", unrepresentable: "any" }) as Record<string, unknown>;
}
