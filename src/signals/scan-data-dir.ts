/**
 * @module signals/scan-data-dir
 * The entry point of signal scans: a data directory's live snapshot scanned as of one or more
 * days, oldest first, each scan recorded in the data's state store. `ckg scan` runs it, by hand and
 * in the child process the server starts for each of its scans (supervisor/scheduler.ts); it is
 * all a command needs of signals/ to scan.
 */
import type { Config } from "../config/config.ts";
import type { Logger } from "../log.ts";
import { dataDir, liveSnapshotId, snapshotPath } from "../store/data-dir.ts";
import { readManifest } from "../store/manifest.ts";
import { openState } from "../store/open-state.ts";
import { addDays } from "../time.ts";
import { DETECTORS, detectorsNamed } from "./detectors/index.ts";
import { narratorFor } from "./narrator.ts";
import { type ScanOptions, runScan } from "./scan.ts";
import type { ScanReport } from "./scan-report.ts";

export type { ScanReport } from "./scan-report.ts";

/** The settings a scan reads (config/commands.ts lists the same for `ckg scan`). */
export type ScanSettings = Pick<
  Config,
  "data_dir" | "state_url" | "scan_lease_ms" | "narrative_url" | "narrative_model" | "narrative_api_key" | "narrative_timeout_ms" | "narrative_budget_ms"
>;

export interface ScanRequest {
  /** The last day scanned, YYYY-MM-DD (default: the live snapshot's as-of date). */
  asOf?: string;
  /** How many days up to it are scanned, one scan each, oldest first. */
  days: number;
  /** Only these signal types (default: every type). */
  types?: string[];
  /** What started the scans, recorded with them. */
  trigger: string;
}

export interface ScanHooks {
  log: Logger;
  /** A day's scan starts, over `types` signal types. */
  onDay?: (asOf: string, types: number) => void;
  onProgress?: ScanOptions["onProgress"];
  /** A day's scan ended: its report (also in the scans table). */
  onReport?: (report: ScanReport) => void;
}

/** A request naming signal types the catalog does not have. */
export class UnknownSignalTypeError extends Error {
  constructor(unknown: string[]) {
    super(`unknown signal type${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}. Known: ${DETECTORS.map((d) => d.slug).join(", ")}.`);
    this.name = "UnknownSignalTypeError";
  }
}

export interface DataDirScans {
  /** Runs the request's scans; their reports, oldest first. UnknownSignalTypeError before any starts. */
  run(request: ScanRequest, hooks: ScanHooks): Promise<ScanReport[]>;
}

/** The data directory's live snapshot, to scan; NoSnapshotError (store/data-dir.ts) when it has none. */
export function scanDataDir(settings: ScanSettings): DataDirScans {
  const dir = dataDir(settings.data_dir);
  const id = liveSnapshotId(dir);
  return {
    async run(request, hooks) {
      const { unknown } = detectorsNamed(request.types ?? []);
      if (unknown.length > 0) throw new UnknownSignalTypeError(unknown);
      const last = request.asOf ?? readManifest(snapshotPath(dir, id)).as_of.slice(0, 10);
      const state = await openState(settings, dir.stateDb);
      // One narrator for every day: its budget and breaker are per scan (Narrator.writeAll).
      const narrator = narratorFor(
        { url: settings.narrative_url, model: settings.narrative_model, apiKey: settings.narrative_api_key, timeoutMs: settings.narrative_timeout_ms, budgetMs: settings.narrative_budget_ms },
        hooks.log,
      );
      const reports: ScanReport[] = [];
      try {
        for (let k = request.days - 1; k >= 0; k--) {
          const asOf = addDays(last, -k);
          hooks.onDay?.(asOf, request.types?.length ?? DETECTORS.length);
          const report = await runScan({ state, dir, narrator, log: hooks.log, asOf, types: request.types, leaseMs: settings.scan_lease_ms, trigger: request.trigger, onProgress: hooks.onProgress });
          hooks.onReport?.(report);
          reports.push(report);
        }
      } finally {
        await state.close();
      }
      return reports;
    },
  };
}
