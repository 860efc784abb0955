/** Scans for signal tests: the real scan over a real data directory, as of given dates. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { silentLogger } from "../../src/log.ts";
import { OfflineNarrator, type Narrator } from "../../src/signals/narratives.ts";
import { type ScanReport, runScan } from "../../src/signals/scan.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import type { StateStore } from "../../src/store/state.ts";
import type { GroundTruth } from "../../src/model/series.ts";

export function snapshotOf(root: string) {
  const dir = dataDir(root);
  const path = snapshotPath(dir, currentSnapshotId(dir)!);
  return { dir, path, manifest: readManifest(path) };
}

export function groundTruth(root: string): { as_of: string; anomalies: GroundTruth[]; skipped: string[] } {
  return JSON.parse(readFileSync(join(snapshotOf(root).path, "ground_truth.json"), "utf8"));
}

export function scan(root: string, state: StateStore, asOf: string, options: { narrator?: Narrator; now?: Date } = {}): Promise<ScanReport> {
  return runScan({
    state,
    dir: dataDir(root),
    narrator: options.narrator ?? new OfflineNarrator(),
    log: silentLogger,
    trigger: "test",
    asOf,
    now: options.now ? () => options.now! : undefined,
  });
}
