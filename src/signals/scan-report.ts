/**
 * @module signals/scan-report
 * What a scan reports, as one schema: the scan's process (`ckg scan`, signals/scan.ts) writes it to
 * the scans table and prints it with `--json`; the server reads it back from that table for
 * /readyz (supervisor/scheduler.ts). The table's `report` also holds, for a scan that failed
 * before its report or was found interrupted (store/runs.ts), its errors alone. A stored report
 * that does not match is read as an error saying so, never thrown at a reader.
 */
import { z } from "zod";

const counts = z.record(z.string(), z.number());

const scanErrorSchema = z.object({ type: z.string(), message: z.string() });

/** One signal type's part of a scan. */
const typeReportSchema = z.object({
  type: z.string(),
  ms: z.number(),
  found: z.number(),
  below_threshold: z.number(),
  duplicates: z.number(),
  /** Findings from synthetic data that named only real entities (dropped: demo data says nothing about them). */
  real_only_dropped: z.number(),
  by_severity: counts,
  error: z.string().optional(),
});
export type TypeReport = z.infer<typeof typeReportSchema>;

/** What a scan's writes did to the signals (signals/qualify.ts). */
const applyCountsSchema = z.object({
  new: z.number(),
  updated: z.number(),
  unchanged: z.number(),
  moves: counts,
  ended: z.number(),
  /** The state each signal of this scan ended in, counted. */
  by_qualification: counts,
});
export type ApplyCounts = z.infer<typeof applyCountsSchema>;

const scanReportSchema = z.object({
  scan_id: z.string(),
  snapshot_id: z.string(),
  as_of: z.string(),
  trigger: z.string(),
  started_at: z.string(),
  finished_at: z.string(),
  duration_ms: z.number(),
  status: z.enum(["ok", "partial", "failed"]),
  types: z.array(typeReportSchema),
  errors: z.array(scanErrorSchema),
  state: applyCountsSchema,
  /** Time to write the signals and their moves to the state store. */
  apply_ms: z.number(),
});
export type ScanReport = z.infer<typeof scanReportSchema>;

/** What the scans table holds for a scan that failed before its report, or was found interrupted: its errors alone. */
const errorsOnlySchema = z.object({ errors: z.array(scanErrorSchema) });
export type StoredScanReport = ScanReport | z.infer<typeof errorsOnlySchema>;

/** A scan's `report` from the scans table; one that is not JSON or matches neither shape is its errors alone, saying why. */
export function readStoredReport(text: string): StoredScanReport {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return unreadable(`it is not JSON (${(error as Error).message})`);
  }
  const whole = typeof value === "object" && value !== null && "scan_id" in value;
  const parsed = (whole ? scanReportSchema : errorsOnlySchema).safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  return unreadable(`${issue.path.join(".") || "the report"}: ${issue.message}`);
}

function unreadable(why: string): StoredScanReport {
  return { errors: [{ type: "*", message: `the scan's stored report could not be read: ${why}` }] };
}
