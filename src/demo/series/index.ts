/**
 * @module demo/series
 * The synthetic demo series: every kind of `ts_synthetic_*` table, generated in DuckDB from the
 * world's latent sizes (so a protocol's TVL matches its graph size and chains, a token's unlocks
 * follow its vesting schedules), with planted anomalies and their ground truth. Only generated
 * entities get series and plants (coverage.ts): no made-up figure lands on a real entity. Tables
 * go to the snapshot's ts/ folder as Parquet, clustered by month, then entity and date.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import type { Logger } from "../../log.ts";
import { openScratchDuck, sqlString, withConnection } from "../../store/duckdb.ts";
import { KINDS, type Kind, SERIES_ORDER, SERIES_PARQUET, SYNTHETIC_SERIES_SOURCE, publishedColumns, tableName } from "../../timeseries/kinds.ts";
import type { Rng } from "../../rng.ts";
import { type GenContext, SYNTHETIC_SOURCE } from "../synthetic/context.ts";
import { selectCoverage } from "./coverage.ts";
import { lendingSeries, poolSeries } from "./defi.ts";
import { insiderFlowSeries, makeWhales, walletActivitySeries } from "./flows.ts";
import { protocolChainSeries, protocolSeries, treasurySeries } from "./fundamentals.ts";
import { governanceSeries, unlockSeries } from "./governance.ts";
import { holderSeries, listingSeries, stablecoinSeries, tokenSeries } from "./markets.ts";
import { plantLending, plantPools } from "./plants-defi.ts";
import { plantFlows, plantWhales } from "./plants-flows.ts";
import { plantProtocols, plantTreasuries } from "./plants-fundamentals.ts";
import { plantGovernance, plantUnlocks } from "./plants-governance.ts";
import { plantHolders, plantListings, plantStablecoins } from "./plants-markets.ts";
import { type SeriesContext, prepareSeriesDb } from "./series-db.ts";
import { GROUND_TRUTH_FILE, type SeriesResult, type SeriesTable, TS_DIR } from "../../model/series.ts";

/**
 * The series are generated in a scratch database on disk beside them, not in memory: at full scale
 * they are 72 M rows, which held in memory took 8 GB; with this much memory a build fits the 4 GiB
 * the users' machines have, with the search index built beside the series (snapshot/build.ts). At
 * 1 GB that build peaked at 3.75-3.81 GiB; at 768 MB, 3.44-3.48. More memory does not make the
 * sorts faster (one table's export and copies: the same time at 1 and 2 GB).
 */
export const SERIES_SCRATCH_MEMORY = "768MB";

export async function generateSeries(
  ctx: GenContext,
  snapshotDir: string,
  /** `rng`: the series' random stream (the build forks it from the context's before the search's). */
  options: { plants: boolean; rng: Rng },
  log: Logger,
): Promise<SeriesResult> {
  const asOf = ctx.asOf.toISOString().slice(0, 10);
  mkdirSync(snapshotDir, { recursive: true });
  const { duck, remove } = await openScratchDuck(snapshotDir, "series-scratch.duckdb", SERIES_SCRATCH_MEMORY);
  try {
    return await withConnection(duck, async (c) => {
      await prepareSeriesDb(c, asOf);
      const coverage = selectCoverage(ctx, asOf);
      const s: SeriesContext = { c, ctx, rng: options.rng, asOf, plants: options.plants, truth: [], planted: new Set(), skipped: [] };
      const step = async (name: string, run: () => Promise<void> | void) => {
        const started = performance.now();
        await run();
        log.debug({ step: name, ms: Math.round(performance.now() - started) }, "series step done");
      };
      const whales = makeWhales(s, coverage);
      const planted = (run: () => Promise<void> | void) => (options.plants ? run() : undefined);

      await step("unlock plants", () => planted(() => plantUnlocks(s, coverage, asOf)));
      await step("stablecoins", async () => {
        await stablecoinSeries(s, coverage);
        await planted(() => plantStablecoins(s));
      });
      await step("tokens", () => tokenSeries(s, coverage));
      await step("protocols", async () => {
        await protocolSeries(s, coverage);
        await planted(() => plantProtocols(s, coverage));
        await protocolChainSeries(s);
      });
      await step("pools", async () => {
        await poolSeries(s, coverage);
        await planted(() => plantPools(s));
      });
      await step("lending", async () => {
        await lendingSeries(s, coverage);
        await planted(() => plantLending(s));
      });
      await step("treasuries", async () => {
        await treasurySeries(s, coverage);
        await planted(() => plantTreasuries(s));
      });
      await step("holders", async () => {
        await holderSeries(s, coverage);
        await planted(() => plantHolders(s));
      });
      await step("listings", async () => {
        await listingSeries(s, coverage);
        await planted(() => plantListings(s));
      });
      await step("flows", async () => {
        await insiderFlowSeries(s, coverage, whales);
        await planted(() => plantFlows(s, coverage));
        await walletActivitySeries(s, whales);
        await planted(() => plantWhales(s, coverage));
      });
      await step("governance", async () => {
        await governanceSeries(s, coverage);
        await planted(() => plantGovernance(s));
      });
      await step("unlocks", () => unlockSeries(s, coverage));

      const tables: SeriesTable[] = [];
      for (const kind of Object.keys(KINDS) as Kind[]) tables.push(await writeSeriesTable(c, kind, snapshotDir));
      writeFileSync(
        join(snapshotDir, GROUND_TRUTH_FILE),
        `${JSON.stringify({ as_of: asOf, plants: options.plants, anomalies: s.truth, skipped: s.skipped }, null, 2)}\n`,
      );
      if (s.skipped.length > 0) log.warn({ skipped: s.skipped }, "some anomalies found no fitting entity in this small world and were not planted");
      log.info({ tables: tables.length, rows: tables.reduce((sum, t) => sum + t.rows, 0), planted: s.truth.length }, "series written");
      return { tables, truth: s.truth };
    });
  } finally {
    remove();
  }
}

/**
 * Writes the generated table of `kind` (a table of that name in `c`) to the snapshot's ts/ folder
 * as its published Parquet file, in SERIES_ORDER, with the published column types.
 */
export async function writeSeriesTable(c: DuckDBConnection, kind: Kind, snapshotDir: string): Promise<SeriesTable> {
  mkdirSync(join(snapshotDir, TS_DIR), { recursive: true });
  const name = tableName(SYNTHETIC_SERIES_SOURCE, kind);
  const file = `${TS_DIR}/${name}.parquet`;
  await c.run(`COPY (SELECT ${publishedColumns(kind)} FROM ${kind} ORDER BY ${SERIES_ORDER}) TO ${sqlString(join(snapshotDir, file))} ${SERIES_PARQUET}`);
  const stats = (await c.runAndReadAll(`SELECT count(*)::BIGINT AS n, min(date)::VARCHAR AS first, max(date)::VARCHAR AS last FROM ${kind}`)).getRowObjectsJS()[0]!;
  return { name, kind, source: SYNTHETIC_SERIES_SOURCE, provenance: SYNTHETIC_SOURCE, file, rows: Number(stats.n), first_date: (stats.first as string) ?? null, last_date: (stats.last as string) ?? null };
}
