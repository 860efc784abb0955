/**
 * @module cli/scan
 * `ckg scan`: run a signal scan now on the data directory's live snapshot, with a progress bar on
 * a terminal (one log line per type otherwise), then print the per-type summary. The server runs
 * its scans through this command in a child process. The scans are signals/scan-data-dir.ts's.
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import { EXIT } from "../exit-codes.ts";
import type { ScanReport } from "../signals/scan-data-dir.ts";
import type { Command } from "./command.ts";
import { UsageError } from "./command.ts";

export const scan: Command = {
  name: "scan",
  summary: "Scan the live snapshot for signals now (every type), record qualification moves, print a summary.",
  usage: "[options]",
  settings: COMMAND_SETTINGS.scan,
  options: {
    "as-of": { type: "string", help: "scan the data as of this date, YYYY-MM-DD (default: the snapshot's as-of date)" },
    days: { type: "string", help: "scan each of the last N days up to the as-of date, oldest first (default 1)" },
    types: { type: "string", help: "comma-separated signal types to scan (default: all)" },
    trigger: { type: "string", help: "what started the scan, recorded with it (default manual)" },
    json: { type: "boolean", help: "print each scan's full report as JSON" },
  },
  async run({ config, options }) {
    const [{ createLogger }, { scanDataDir, UnknownSignalTypeError }, { default: progress }] = await Promise.all([
      import("../log.ts"),
      import("../signals/scan-data-dir.ts"),
      import("cli-progress"),
    ]);
    const log = createLogger(config.log_level, 2);
    const scans = scanDataDir(config);
    const asOfOption = options["as-of"];
    if (asOfOption !== undefined && (typeof asOfOption !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(asOfOption) || Number.isNaN(Date.parse(asOfOption)))) {
      throw new UsageError("--as-of must be a date, YYYY-MM-DD.");
    }
    const days = options.days === undefined ? 1 : Number(options.days);
    if (!Number.isInteger(days) || days < 1 || days > 366) throw new UsageError("--days must be a whole number from 1 to 366.");
    const types = typeof options.types === "string" ? options.types.split(",").map((t) => t.trim()).filter(Boolean) : undefined;

    const tty = process.stderr.isTTY && !options.json;
    let bar: InstanceType<typeof progress.SingleBar> | undefined;
    let failed = false;
    try {
      await scans.run(
        { asOf: asOfOption as string | undefined, days, types, trigger: typeof options.trigger === "string" ? options.trigger : "manual" },
        {
          log,
          onDay: (asOf, total) => {
            bar = tty ? new progress.SingleBar({ format: `scan ${asOf} [{bar}] {value}/{total} {type}`, stream: process.stderr }, progress.Presets.shades_classic) : undefined;
            bar?.start(total, 0, { type: "" });
          },
          onProgress: (event) => {
            if (bar) bar.update(event.index + 1, { type: event.type });
            else log.info({ type: event.type, ms: event.ms, found: event.found, error: event.error }, `scanned ${event.index + 1}/${event.total}`);
          },
          onReport: (report) => {
            bar?.stop();
            failed ||= report.status !== "ok";
            printReport(report, options.json === true);
          },
        },
      );
    } catch (error) {
      if (error instanceof UnknownSignalTypeError) throw new UsageError(error.message);
      throw error;
    }
    return failed ? EXIT.failure : EXIT.ok;
  },
};

/** One scan's report: whole as JSON, or a line per type. */
function printReport(report: ScanReport, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(report));
    return;
  }
  console.log(`scan ${report.scan_id} on data as of ${report.as_of}: ${report.status} in ${(report.duration_ms / 1000).toFixed(1)} s`);
  for (const t of report.types) {
    const bands = ["high", "moderate", "low"].map((s) => `${s} ${t.by_severity[s] ?? 0}`).join(", ");
    console.log(`  ${t.type.padEnd(26)} ${String(t.found).padStart(6)} found (${bands})  ${String(t.ms).padStart(6)} ms${t.error ? `  FAILED: ${t.error}` : ""}`);
  }
  console.log(`  state: ${Object.entries(report.state.by_qualification).map(([q, n]) => `${q} ${n}`).join(", ")}; ${report.state.new} new, ${report.state.updated} updated, ${report.state.ended} ended`);
}
