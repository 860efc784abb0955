/**
 * Signal scan benchmark (a full scan's time and memory, type by type). Run by hand:
 *   bun scripts/bench/scan.ts [--data-dir DIR] [--scale full]
 *
 * Builds the data directory when it has no snapshot, then scans all 28 types as of the snapshot's
 * date into a scratch state database and prints the time per type and in total, peak RSS, and
 * signals per type and qualification state; then a re-scan of the same data (idempotent: nothing
 * new), and the baseline: the same scan reading the published Parquet files instead of the query
 * database (ratio baseline / ours).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createLogger } from "../../src/log.ts";
import { OfflineNarrator } from "../../src/signals/narratives.ts";
import { type ScanReport, runScan } from "../../src/signals/scan.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { printTable } from "./stats.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-bench-full" },
    scale: { type: "string", default: "full" },
  },
});
const dir = dataDir(values["data-dir"]!);
const log = createLogger("warn", 2);
if (!currentSnapshotId(dir)) {
  const scale = /^\d+$/.test(values.scale!) ? Number(values.scale) : (values.scale as "full" | "default");
  await buildSnapshot({ dir, scale, seed: 42, ontologyNs: "https://ckg.example/ontology#", log });
}
const manifest = readManifest(snapshotPath(dir, currentSnapshotId(dir)!));
const scratch = mkdtempSync(join(tmpdir(), "ckg-bench-scan-"));

async function timedScan(name: string, from: "database" | "parquet"): Promise<ScanReport> {
  const state = openSqliteState(join(scratch, `${name}.sqlite`));
  try {
    const first = await runScan({ state, dir, narrator: new OfflineNarrator(), log, trigger: "bench", from });
    if (name === "ours") {
      const again = await runScan({ state, dir, narrator: new OfflineNarrator(), log, trigger: "bench", from });
      console.log(`re-scan of the same data: ${(again.duration_ms / 1000).toFixed(1)} s, ${again.state.new} new, ${again.state.updated} updated, ${Object.keys(again.state.moves).length} moves`);
    }
    return first;
  } finally {
    await state.close();
  }
}

try {
  console.log(`data: ${manifest.counts.entities.toLocaleString()} entities, ${manifest.timeseries.reduce((s, t) => s + t.rows, 0).toLocaleString()} series rows, as of ${manifest.as_of}`);
  const ours = await timedScan("ours", "database");
  const rss = process.resourceUsage().maxRSS / 1024;
  printTable(
    `scan of all ${ours.types.length} types (query database)`,
    ours.types.map((t) => [
      t.type,
      `${String(t.ms).padStart(7)} ms  ${String(t.found).padStart(7)} signals (high ${t.by_severity.high ?? 0}, moderate ${t.by_severity.moderate ?? 0}, low ${t.by_severity.low ?? 0})${t.error ? `  ERROR ${t.error}` : ""}`,
    ]),
  );
  const detect = ours.types.reduce((s, t) => s + t.ms, 0);
  console.log(`total ${(ours.duration_ms / 1000).toFixed(1)} s (detectors ${(detect / 1000).toFixed(1)} s; the rest loads graph facts and writes state); peak RSS ${rss.toFixed(0)} MB`);
  console.log(`signals by state: ${Object.entries(ours.state.by_qualification).map(([q, n]) => `${q} ${n}`).join(", ")}`);
  const baseline = await timedScan("parquet", "parquet");
  const series = (r: ScanReport) => r.types.filter((t) => !["co-investment-network", "cross-sector-cluster", "bridge-fund", "convergence-alert", "narrative-synthesis"].includes(t.type)).reduce((s, t) => s + t.ms, 0);
  console.log(
    `baseline (same scan over the Parquet files): total ${(baseline.duration_ms / 1000).toFixed(1)} s, time-series detectors ${(series(baseline) / 1000).toFixed(1)} s ` +
      `vs ours ${(series(ours) / 1000).toFixed(1)} s: ratio ${(series(baseline) / series(ours)).toFixed(2)}`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
