/**
 * A scan's report between the process that writes it (`ckg scan`, into the scans table) and the
 * server that reads it back for /readyz (supervisor/scheduler.ts): one schema
 * (signals/scan-report.ts) on both sides. A whole report and a report of errors alone (a scan that
 * failed before its report, or was found interrupted) read as written; one that is not JSON or has
 * the wrong shape reads as an error saying so, and /readyz's list of recent scans still answers.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/config.ts";
import { silentLogger } from "../../src/log.ts";
import { type ScanReport, readStoredReport } from "../../src/signals/scan-report.ts";
import { dataDir } from "../../src/store/data-dir.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import type { StateStore } from "../../src/store/state.ts";
import { RunScheduler } from "../../src/supervisor/scheduler.ts";
import { tempDir } from "../support/temp-dirs.ts";

const WHOLE: ScanReport = {
  scan_id: "scan_20261106T060000Z_20261105_a1b2c3",
  snapshot_id: "20261105T000000Z-abcdef",
  as_of: "2026-11-05",
  trigger: "schedule",
  started_at: "2026-11-06T06:00:00Z",
  finished_at: "2026-11-06T06:00:40Z",
  duration_ms: 40_123,
  status: "partial",
  types: [
    { type: "yield-anomaly", ms: 120, found: 3, below_threshold: 7, duplicates: 0, real_only_dropped: 1, by_severity: { high: 1, low: 2 } },
    { type: "bridge-fund", ms: 5, found: 0, below_threshold: 0, duplicates: 0, real_only_dropped: 0, by_severity: {}, error: "no such table" },
  ],
  errors: [{ type: "bridge-fund", message: "no such table" }],
  state: { new: 3, updated: 0, unchanged: 0, moves: { "pending->screened": 3 }, ended: 0, by_qualification: { screened: 3 } },
  apply_ms: 12,
};
const INTERRUPTED = { errors: [{ type: "*", message: "interrupted: its process (pid 41) was gone when noticed at 2026-11-06T07:00:00Z" }] };

test("a whole report and a report of errors alone read as they were written", () => {
  expect(readStoredReport(JSON.stringify(WHOLE))).toEqual(WHOLE);
  expect(readStoredReport(JSON.stringify(INTERRUPTED))).toEqual(INTERRUPTED);
});

test("a report that is not JSON, or not of either shape, reads as an error that says what is wrong", () => {
  const [notJson] = readStoredReport("{ truncated").errors;
  expect(notJson).toMatchObject({ type: "*" });
  expect(notJson!.message).toStartWith("the scan's stored report could not be read: it is not JSON");
  const [wrongType] = readStoredReport(JSON.stringify({ ...WHOLE, types: "yield-anomaly" })).errors;
  expect(wrongType!.message).toStartWith("the scan's stored report could not be read: types:");
  const [missing] = readStoredReport(JSON.stringify({ ...WHOLE, state: undefined })).errors;
  expect(missing!.message).toStartWith("the scan's stored report could not be read: state:");
  const [neither] = readStoredReport(JSON.stringify({ note: "hand-edited" })).errors;
  expect(neither!.message).toStartWith("the scan's stored report could not be read: errors:");
});

let state: StateStore;
beforeAll(() => {
  state = openSqliteState(`${tempDir("ckg-scan-report-")}/state.sqlite`);
});
afterAll(() => state.close());

test("the server's list of recent scans reads each stored report through the schema; a malformed one is an error in the list, not a failure of it", async () => {
  const rows: [string, string, string, string | null][] = [
    ["scan_1", "2026-11-06T06:00:00Z", "partial", JSON.stringify(WHOLE)],
    ["scan_2", "2026-11-06T07:00:00Z", "interrupted", JSON.stringify(INTERRUPTED)],
    ["scan_3", "2026-11-06T08:00:00Z", "ok", JSON.stringify({ ...WHOLE, duration_ms: "fast" })],
    ["scan_4", "2026-11-06T09:00:00Z", "failed", "not json"],
    ["scan_5", "2026-11-06T10:00:00Z", "running", null],
  ];
  for (const [id, startedAt, status, report] of rows) {
    await state.run("INSERT INTO scans (scan_id, started_at, snapshot_id, as_of, trigger, status, report) VALUES (?, ?, 's', '2026-11-05', 'schedule', ?, ?)", [id, startedAt, status, report]);
  }
  const config = loadConfig({ env: {}, flags: { log_level: "silent", scan_cron: "off", ingest_cron: "off" } });
  const scheduler = new RunScheduler(config, dataDir(tempDir("ckg-scan-report-dir-")), state, silentLogger);
  const recent = (await scheduler.status()).recent;
  expect(recent.map((s) => s.scan_id)).toEqual(["scan_5", "scan_4", "scan_3", "scan_2", "scan_1"]);
  const [running, notJson, wrongType, interrupted, whole] = recent;
  expect(whole).toMatchObject({ duration_ms: 40_123, signals: 3, per_type: { "yield-anomaly": 3, "bridge-fund": 0 }, errors: WHOLE.errors });
  expect(interrupted).toMatchObject({ duration_ms: null, signals: null, per_type: {}, errors: INTERRUPTED.errors });
  expect(wrongType).toMatchObject({ status: "ok", duration_ms: null, signals: null, per_type: {} });
  expect(wrongType!.errors[0]!.message).toStartWith("the scan's stored report could not be read: duration_ms:");
  expect(notJson!.errors[0]!.message).toStartWith("the scan's stored report could not be read: it is not JSON");
  expect(running).toMatchObject({ status: "running", duration_ms: null, signals: null, per_type: {}, errors: [] });
});
