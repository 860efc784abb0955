/**
 * The floor of a full build's series work (what the build's time cannot go below). Run by hand, on
 * a quiet machine:
 *   bun scripts/bench/build-floor.ts [--data-dir DIR]
 *
 * A build writes the 72 M series rows three times after generating them: the published Parquet
 * files (sorted by month, entity and date), the query database's tables (loaded from those files)
 * and their entity-ordered copies (sorted again). This times those three passes alone, on a built
 * snapshot's own rows, with the build's own functions and engine settings (writeSeriesTable,
 * buildTimeseriesDb): no world, no generation, no search index, nothing beside them. The rows are
 * first put in a scratch database entity by entity, roughly as the generator's walks leave them
 * (not timed).
 * Prints each pass's wall and CPU time (DuckDB's threads are this process's) beside the build
 * budget: 180 s, which on 2 cores is at most 360 CPU-seconds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SERIES_SCRATCH_MEMORY, writeSeriesTable } from "../../src/demo/series/index.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openScratchDuck, sqlString, withConnection } from "../../src/store/duckdb.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { buildTimeseriesDb, publishedTables } from "../../src/timeseries/database.ts";
import type { Kind } from "../../src/timeseries/kinds.ts";
import { printTable } from "./stats.ts";

const { values } = parseArgs({ options: { "data-dir": { type: "string", default: "/tmp/ckg-full-final" } } });
const BUDGET_SECONDS = 180;
const CORES = 2;

const dir = dataDir(values["data-dir"]!);
const id = currentSnapshotId(dir);
if (!id) throw new Error(`no snapshot in ${values["data-dir"]}: build one with ckg build --scale full`);
const source = snapshotPath(dir, id);
const manifest = readManifest(source);
const rows = manifest.timeseries.reduce((sum, t) => sum + t.rows, 0);
const work = mkdtempSync(join(tmpdir(), "ckg-build-floor-"));

/** A pass's wall and CPU seconds, from `start()`'s mark. */
interface Pass {
  name: string;
  wall: number;
  cpu: number;
}
const start = () => ({ wall: performance.now(), cpu: process.cpuUsage() });
const pass = (name: string, from: ReturnType<typeof start>): Pass => {
  const cpu = process.cpuUsage(from.cpu);
  return { name, wall: (performance.now() - from.wall) / 1000, cpu: (cpu.user + cpu.system) / 1e6 };
};
const passes: Pass[] = [];
try {
  const { duck, remove } = await openScratchDuck(work, "scratch.duckdb", SERIES_SCRATCH_MEMORY);
  try {
    await withConnection(duck, async (c) => {
      for (const table of manifest.timeseries) {
        await c.run(`CREATE TABLE ${table.kind} AS SELECT * FROM read_parquet(${sqlString(join(source, table.file))}) ORDER BY entity_id, date`);
      }
      await c.run("CHECKPOINT");
      const started = start();
      for (const table of manifest.timeseries) await writeSeriesTable(c, table.kind as Kind, work);
      passes.push(pass("published Parquet (sort, write)", started));
    });
  } finally {
    remove();
  }
  const started = start();
  await buildTimeseriesDb(work, publishedTables(manifest.timeseries));
  passes.push(pass("query database (load, sort, write the copy)", started));
} finally {
  rmSync(work, { recursive: true, force: true });
}

const wall = passes.reduce((sum, p) => sum + p.wall, 0);
const cpu = passes.reduce((sum, p) => sum + p.cpu, 0);
const cpuBudget = BUDGET_SECONDS * CORES;
printTable(`the series' three writes alone, ${rows.toLocaleString("en-US")} rows (${id})`, [
  ...passes.map((p): [string, string] => [p.name, `${p.wall.toFixed(1)} s wall, ${p.cpu.toFixed(0)} CPU-s (${(p.cpu / p.wall).toFixed(2)} cores)`]),
  [`both, wall / budget ${BUDGET_SECONDS} s`, `${wall.toFixed(1)} / ${BUDGET_SECONDS} = ${(wall / BUDGET_SECONDS).toFixed(2)}`],
  [`both, CPU / ${BUDGET_SECONDS} s on ${CORES} cores`, `${cpu.toFixed(0)} / ${cpuBudget} = ${(cpu / cpuBudget).toFixed(2)}`],
]);
