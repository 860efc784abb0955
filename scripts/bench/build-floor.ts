/**
 * The floor of a full build's series work (issue 36, point 4). Run by hand, on a quiet machine:
 *   bun scripts/bench/build-floor.ts [--data-dir DIR]
 *
 * After generating its 72 M series rows, a build writes them three times: into the query
 * database's tables (sorted by month, entity and date), from there into the published Parquet
 * files, and into the entity-ordered copies (sorted again). This times those writes alone, on a
 * built snapshot's own rows, with the build's own function and engine settings
 * (publishTimeseriesDb in the series' scratch database): no world, no generation, no search index,
 * nothing beside them. The rows are first put in a scratch database entity by entity, roughly as
 * the generator's walks leave them (not timed). Prints the time beside the build budget (180 s).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SERIES_SCRATCH_MEMORY } from "../../src/dataset/series/index.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openScratchDuck, sqlString, withConnection } from "../../src/store/duckdb.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { publishTimeseriesDb, publishedTables } from "../../src/timeseries/database.ts";
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

let seconds = 0;
try {
  const { duck, remove } = await openScratchDuck(work, "scratch.duckdb", SERIES_SCRATCH_MEMORY);
  try {
    await withConnection(duck, async (c) => {
      for (const table of manifest.timeseries) {
        await c.run(`CREATE TABLE ${table.kind} AS SELECT * FROM read_parquet(${sqlString(join(source, table.file))}) ORDER BY entity_id, date`);
      }
      await c.run("CHECKPOINT");
      const started = performance.now();
      await publishTimeseriesDb(c, work, publishedTables(manifest.timeseries).map((table) => ({ table, from: table.kind })));
      seconds = (performance.now() - started) / 1000;
    });
  } finally {
    remove();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

printTable(`the series' three writes alone, ${rows.toLocaleString("en-US")} rows (${id})`, [
  ["query database, Parquet files, entity-ordered copies", `${seconds.toFixed(1)} s`],
  ["share of the build budget (180 s)", `${seconds.toFixed(1)} / ${BUDGET_SECONDS} = ${(seconds / BUDGET_SECONDS).toFixed(2)}`],
]);
