/**
 * The default world's planted anomalies against what the scan found (precision and recall, type by
 * type). Run by hand, on a data directory built and scanned already (this builds and scans
 * nothing):
 *   bun src/main.ts build --data-dir /tmp/ckg-b && bun src/main.ts scan --data-dir /tmp/ckg-b
 *   bun scripts/bench/planted.ts --data-dir /tmp/ckg-b [--json]
 *
 * Reads the live snapshot's ground_truth.json and the open signal episodes (those the latest scan
 * found) from the data directory's state store (state.sqlite), and prints per type: planted, found
 * (passing the screens), caught (at the planted band), extra (passing the screens; by severity; on
 * an entity planted for another type), precision and recall. What each column counts: test/signals/planted.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { GroundTruth } from "../../src/model/series.ts";
import type { Severity } from "../../src/signals/bands.ts";
import { DETECTORS } from "../../src/signals/detectors/index.ts";
import { dataDir, liveSnapshotId, snapshotPath } from "../../src/store/data-dir.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { plantedQuality } from "../../test/signals/planted.ts";

const { values } = parseArgs({ options: { "data-dir": { type: "string" }, json: { type: "boolean", default: false } } });
if (!values["data-dir"]) throw new Error("--data-dir DIR: a data directory built and scanned (see the comment at the top)");
const dir = dataDir(values["data-dir"]);
const snapshot = snapshotPath(dir, liveSnapshotId(dir));
const manifest = readManifest(snapshot);
if (!manifest.ground_truth) throw new Error(`${snapshot} has no ground truth (built without plants, or not a demo world)`);
const truth = JSON.parse(readFileSync(join(snapshot, manifest.ground_truth), "utf8")) as { as_of: string; anomalies: GroundTruth[]; skipped: string[] };
if (!existsSync(dir.stateDb)) throw new Error(`${dir.stateDb} is absent: scan the data directory first`);

const state = openSqliteState(dir.stateDb);
const rows = await state.all<{ signal_type: string; entities: string; severity: Severity; qualification: string }>(
  "SELECT signal_type, entities, severity, qualification FROM signals WHERE ended_at IS NULL",
);
const scan = await state.get<{ scan_id: string; as_of: string }>("SELECT scan_id, as_of FROM scans WHERE status IN ('ok', 'partial') ORDER BY as_of DESC, started_at DESC LIMIT 1");
await state.close();
if (!scan) throw new Error(`no finished scan in ${dir.stateDb}: scan the data directory first`);

const signals = rows.map((r) => ({ signal_type: r.signal_type, entities: JSON.parse(r.entities) as string[], severity: r.severity, rejected: r.qualification === "rejected" }));
const table = plantedQuality(
  DETECTORS.map((d) => d.slug),
  truth.anomalies,
  signals,
  manifest.namespaces,
);
if (values.json) {
  console.log(JSON.stringify({ snapshot: manifest.id, as_of: truth.as_of, scan: scan.scan_id, skipped: truth.skipped, types: table }, null, 2));
} else {
  const pct = (x: number | null) => (x === null ? "-" : `${Math.round(x * 100)}%`);
  console.log(`snapshot ${manifest.id} (as of ${truth.as_of}), scan ${scan.scan_id}: ${truth.anomalies.length} planted, ${signals.length} open signals`);
  if (truth.skipped.length > 0) console.log(`not planted (no fitting entity): ${truth.skipped.join(", ")}`);
  console.log("\n| type | planted | found (passed screens) | caught (at band) | extra (passed screens) | extra high/moderate/low | extra on another type's plant | precision (passed screens) | recall |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of table) {
    const e = r.extraBySeverity;
    console.log(`| ${r.type} | ${r.planted} | ${r.found} (${r.passed}) | ${r.caught} (${r.atBand}) | ${r.extra} (${r.extraPassed}) | ${e.high}/${e.moderate}/${e.low} | ${r.byOtherPlants} | ${pct(r.precision)} (${pct(r.precisionPassed)}) | ${pct(r.recall)} |`);
  }
  const sum = (f: (r: (typeof table)[number]) => number) => table.reduce((s, r) => s + f(r), 0);
  console.log(`| all | ${sum((r) => r.planted)} | ${sum((r) => r.found)} (${sum((r) => r.passed)}) | ${sum((r) => r.caught)} (${sum((r) => r.atBand)}) | ${sum((r) => r.extra)} (${sum((r) => r.extraPassed)}) | | ${sum((r) => r.byOtherPlants)} | | |`);
}
