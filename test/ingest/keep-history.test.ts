/**
 * keep-history's merge on a real DuckDB: a schedule's future is the provider's latest word (an
 * unlock it moved or dropped leaves the stored future), while its past, and every other kind's
 * rows, are kept as history.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { mergeSelect } from "../../src/ingest/keep-history.ts";
import { openDuck } from "../../src/store/duckdb.ts";
import { KINDS } from "../../src/timeseries/kinds.ts";
import { tempDir } from "../support/temp-dirs.ts";

test("an unlock the newer answer moved is moved; past unlocks and other schedules' future ones are kept", async () => {
  const duck = await openDuck();
  const c = await duck.connect();
  const columns = KINDS.unlocks.columns;
  const row = (token: string, date: string, schedule: string, amount: number) =>
    `(${columns.map((col) => ({ entity_id: `'${token}'`, date: `'${date}'`, schedule_id: `'${schedule}'`, amount: String(amount) })[col.name as "entity_id"] ?? "NULL").join(", ")})`;
  const stored = join(tempDir("ckg-keep-history-"), "unlocks.parquet");
  await c.run(`CREATE TABLE old (${columns.map((col) => `"${col.name}" ${col.type}`).join(", ")})`);
  await c.run(`INSERT INTO old VALUES ${[row("token/a", "2026-01-10", "s1", 5), row("token/a", "2026-03-10", "s1", 10), row("token/b", "2026-03-20", "s2", 7)].join(", ")}`);
  await c.run(`COPY old TO '${stored}' (FORMAT parquet)`);
  // Today's answer for s1: the March unlock moved to April; s2 was not asked this run.
  await c.run(`CREATE TABLE stage (${columns.map((col) => `"${col.name}" ${col.type === "DATE" ? "VARCHAR" : col.type}`).join(", ")}, ord BIGINT)`);
  await c.run(`INSERT INTO stage VALUES (${row("token/a", "2026-04-10", "s1", 10).slice(1, -1)}, 0)`);
  const rows = (await c.runAndReadAll(`SELECT entity_id, date::VARCHAR AS date, schedule_id, amount FROM (${mergeSelect("unlocks", "stage", stored, "2026-02-01")}) ORDER BY entity_id, date`)).getRowObjectsJson();
  expect(rows).toEqual([
    { entity_id: "token/a", date: "2026-01-10", schedule_id: "s1", amount: 5 },
    { entity_id: "token/a", date: "2026-04-10", schedule_id: "s1", amount: 10 },
    { entity_id: "token/b", date: "2026-03-20", schedule_id: "s2", amount: 7 },
  ]);
  // Without the run's day (or for a kind that is no schedule) nothing stored is dropped.
  const kept = (await c.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM (${mergeSelect("unlocks", "stage", stored)})`)).getRowObjectsJson();
  expect(kept).toEqual([{ n: 4 }]);
  c.closeSync();
  duck.closeSync();
});
