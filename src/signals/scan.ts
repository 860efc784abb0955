/**
 * @module signals/scan
 * One scan: every detector over one snapshot as of one date, scored, screened, identified and
 * written with its qualification moves (signals/qualify.ts). A detector that fails is reported and
 * the others go on. The scan's start, end, per-type counts, times and errors are kept in the scans
 * table (shown in /readyz). The server runs scans in a child process (`ckg scan`, through
 * signals/scan-data-dir.ts), so graph algorithms never hold up requests.
 *
 * A scan is a list of named stages (signals/scan-stages.ts), run by the pipeline runner
 * (pipeline.ts): start, inputs, detect, apply, record.
 */
import { Pipeline } from "../pipeline.ts";
import type { ScanReport } from "./scan-report.ts";
import { type ScanOptions, apply, detect, inputs, record, start } from "./scan-stages.ts";

export type { ScanOptions } from "./scan-stages.ts";
export type { ScanReport } from "./scan-report.ts";

const SCAN = Pipeline.of<{ options: ScanOptions }>("scan")
  .stage("start", start)
  .stage("inputs", inputs)
  .stage("detect", detect)
  .stage("apply", apply)
  .stage("record", record);

export async function runScan(options: ScanOptions): Promise<ScanReport> {
  return (await SCAN.run({ options }, options.log)).report;
}
