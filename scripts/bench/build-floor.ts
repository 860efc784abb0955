/**
 * The floor of a full build's series work (issue 36, point 4). Run by hand, on a quiet machine:
 *   bun scripts/bench/build-floor.ts [--data-dir DIR]
 *
 * A build writes the 72 M series rows three times after generating them: the published Parquet
 * files (sorted by month, entity and date), the query database's tables (loaded from those files)
 * and their entity-ordered copies (sorted again). This times those three passes alone, on a built
 * snapshot's own rows, with the build's own functions and engine settings (writeSeriesTable,
 * buildTimeseriesDb): no world, no generation, no search index, nothing beside them. The rows are
 * first put in a scratch database entity by entity, roughly as the generator's walks leave them
 * (not timed).
 * Prints each pass beside the build budget (180 s), and the share of it the passes alone take.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SERIES_SCRATCH_MEMORY, writeSeriesTable } from "../../src/dataset/series/index.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openScratchDuck, sqlString, withConnection } from "../../src/store/duckdb.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { buildTimeseriesDb, publishedTables } from "../../src/timeseries/database.ts";
import type { Kind } from "../../src/timeseries/kinds.ts";
import { printTable } from "./stats.ts";

const { values } = parseArgs({ options: { "data-dir": { type: "string", default: "/tmp/ckg-full-final" } } });
const BUDGET_SECONDS = 180;

const dir = dataDir(values["data-dir"]!);
const id = currentSnapshotId(dir);
if (!id) throw new Error(`no snapshot in ${values["data-dir"]}: build one with ckg build --scale full`);
const source = snapshotPath(dir, id);
const manifest = readManifest(source);
const rows = manifest.timeseries.reduce((sum, t) => sum + t.rows, 0);
const work = mkdtempSync(join(tmpdir(), "ckg-build-floor-"));

const seconds = (started: number) => (performance.now() - started) / 1000;
const passes: [string, number][] = [];
try {
  const { duck, remove } = await openScratchDuck(work, "scratch.duckdb", SERIES_SCRATCH_MEMORY);
  try {
    await withConnection(duck, async (c) => {
      for (const table of manifest.timeseries) {
        await c.run(`CREATE TABLE ${table.kind} AS SELECT * FROM read_parquet(${sqlString(join(source, table.file))}) ORDER BY entity_id, date`);
      }
      await c.run("CHECKPOINT");
      const started = performance.now();
      for (const table of manifest.timeseries) await writeSeriesTable(c, table.kind as Kind, work);
      passes.push(["published Parquet (sort, write)", seconds(started)]);
    });
  } finally {
    remove();
  }
  const started = performance.now();
  await buildTimeseriesDb(work, publishedTables(manifest.timeseries));
  passes.push(["query database (load, sort, write the copy)", seconds(started)]);
} finally {
  rmSync(work, { recursive: true, force: true });
}

const total = passes.reduce((sum, [, s]) => sum + s, 0);
printTable(`the series' three writes alone, ${rows.toLocaleString("en-US")} rows (${id})`, [
  ...passes.map(([name, s]): [string, string] => [name, `${s.toFixed(1)} s`]),
  ["both / budget 180 s", `${total.toFixed(1)} / ${BUDGET_SECONDS} = ${(total / BUDGET_SECONDS).toFixed(2)}`],
]);
