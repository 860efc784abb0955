/**
 * Backtest benchmark (days replayed per minute, beside a real scan). Run by hand:
 *   bun scripts/bench/backtest.ts --data-dir DIR [--days 365] [--scan-days 3] [--history ../shared/real-history]
 *
 * On a data directory's live snapshot (an ingested world: `bun scripts/bench/ingest.ts --keep DIR`
 * leaves the real-size one): replays `--days` days ending on the snapshot's as-of day through all 28
 * detectors and prints days per minute, the median and p90 of a day, the peak RSS, and the
 * projection for a year; beside it, in the same run, the baseline: the real scan
 * (`runScan`, into a scratch state database) of `--scan-days` of the same days, and the ratio of a
 * backtest day to a scan day. With --history, the same for the recorded history over DIR's real
 * entities (its window is 2022-01-01..2023-07-25).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runBacktest } from "../../src/backtest/run.ts";
import { SHIPPED_LABELS } from "../../src/backtest/labels.ts";
import { createLogger } from "../../src/log.ts";
import { OfflineNarrator } from "../../src/signals/narratives.ts";
import { runScan } from "../../src/signals/scan.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { addDays } from "../../src/time.ts";
import { printTable } from "./stats.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    days: { type: "string", default: "365" },
    "scan-days": { type: "string", default: "3" },
    history: { type: "string" },
  },
});
if (!values["data-dir"]) throw new Error("--data-dir DIR: a data directory with a live snapshot (an ingested one)");
const dir = dataDir(values["data-dir"]);
const manifest = readManifest(snapshotPath(dir, currentSnapshotId(dir)!));
const to = manifest.as_of.slice(0, 10);
const days = Number(values.days);
const from = addDays(to, -(days - 1));
const peakMb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;
const pct = (list: number[], p: number) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor((list.length * p) / 100))]!;
const rows: [string, string][] = [];
const seriesRows = manifest.timeseries.reduce((n, t) => n + t.rows, 0);
rows.push(["world", `${manifest.counts.entities.toLocaleString("en")} entities, ${seriesRows.toLocaleString("en")} series rows in ${manifest.timeseries.length} tables (snapshot ${manifest.id})`]);




const started = performance.now();
const { replay } = await runBacktest({
  source: { kind: "snapshot", dir },
  from,
  to,
  labelFiles: [{ name: "speed", text: JSON.stringify({ id: "speed", entity: "chain/ethereum", day: to, kind: "tvl-collapse", source: "a label for a speed run only" }) }],
  onDay: (day, index, total) => {
    if (index % 30 === 0) console.error(`backtest ${day} (${index + 1}/${total})`);
  },
});
const wallMs = performance.now() - started;
rows.push([`backtest, ${days} days ${from}..${to}`, `${(wallMs / 1000).toFixed(1)} s: ${((days / wallMs) * 60_000).toFixed(1)} days/min; a day p50 ${pct(replay.dayMs, 50).toFixed(0)} ms, p90 ${pct(replay.dayMs, 90).toFixed(0)} ms; ${replay.fires.length.toLocaleString("en")} findings`]);
rows.push(["  a year at that pace (target 15 min)", `${((wallMs / days) * 365 / 60_000).toFixed(1)} min`]);
rows.push(["  peak RSS so far", `${peakMb().toFixed(0)} MB`]);

// Baseline: the real scan of some of the same days, into a scratch state database.
const scratch = mkdtempSync(join(tmpdir(), "ckg-bench-backtest-"));
const scanMs: number[] = [];
try {
  const state = openSqliteState(join(scratch, "state.sqlite"));
  const scanDays = Number(values["scan-days"]);
  for (let k = 0; k < scanDays; k++) {
    const asOf = addDays(to, -Math.floor((k * days) / scanDays));
    const report = await runScan({ state, dir, narrator: new OfflineNarrator(), log: createLogger("warn", 2), trigger: "bench", asOf });
    scanMs.push(report.duration_ms);
  }
  await state.close();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
const scanP50 = pct(scanMs, 50);
rows.push([`scan (runScan) of ${scanMs.length} of the days, p50`, `${scanP50.toFixed(0)} ms (${scanMs.map((m) => m.toFixed(0)).join(", ")})`]);
rows.push(["a backtest day / a scan day (p50; target <= 1)", (pct(replay.dayMs, 50) / scanP50).toFixed(2)]);

if (values.history) {
  const t0 = performance.now();
  const { report } = await runBacktest({ source: { kind: "history", root: values.history, base: dir }, from: "2022-01-01", to: "2023-07-25", labelFiles: [SHIPPED_LABELS] });
  rows.push([`recorded history, ${report.window.days} days`, `${((performance.now() - t0) / 1000).toFixed(1)} s (${report.speed.days_per_minute} days/min)`]);
}
printTable("Backtest", rows);
