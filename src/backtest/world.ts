/**
 * @module backtest/world
 * What a backtest replays: the series and the graph, opened in a DuckDB session of its own (never
 * the server's), with every series viewed through a cut at the day being replayed
 * (`getvariable('as_of')`, signals/scan-inputs.ts). Two worlds:
 * - a data directory's live snapshot (after `ckg ingest`, its backfilled histories);
 * - the recorded history of `../shared/real-history/` (backtest/recorded-history.ts) over the real
 *   entities of a base snapshot: its synthetic sources are left out, entities and facts alike, so
 *   no generated fact or series mixes with recorded ones.
 */
import { join } from "node:path";
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { type SnapshotManifest, readManifest } from "../store/manifest.ts";
import { type DataDir, liveSnapshotId, snapshotPath } from "../store/data-dir.ts";
import { openDuck, sqlString } from "../store/duckdb.ts";
import type { Kind } from "../timeseries/kinds.ts";
import { type GraphFacts, loadGraphFacts } from "../signals/graph-facts.ts";
import { rowsOf } from "../signals/kit.ts";
import { createKindViews, openScanInputs } from "../signals/scan-inputs.ts";
import { HISTORY_ENTITIES, HISTORY_SOURCE, importRecordedHistory } from "./recorded-history.ts";

const AS_OF_VARIABLE = "getvariable('as_of')";
/** Until the first day is set, the cut sees nothing. */
const NOTHING_YET = `SET VARIABLE as_of = DATE '0001-01-01'`;

export interface ReplayWorld {
  c: DuckDBConnection;
  manifest: SnapshotManifest;
  tables: Map<Kind, string[]>;
  graph: GraphFacts;
  /** What the world is, for the report ("snapshot 2026..." or "recorded history ..."). */
  description: string;
  /** The entity exists in this world. */
  has(id: string): Promise<boolean>;
  /** Sets the day every series is cut at. */
  cutAt(day: string): Promise<void>;
  close(): void;
}

export type WorldSource = { kind: "snapshot"; dir: DataDir } | { kind: "history"; root: string; base: DataDir };

export async function openWorld(source: WorldSource, options: { memoryLimit: string }): Promise<ReplayWorld> {
  const snapshotDir = snapshotPath(source.kind === "snapshot" ? source.dir : source.base, liveSnapshotId(source.kind === "snapshot" ? source.dir : source.base));
  const base = readManifest(snapshotDir);
  if (source.kind === "snapshot") {
    const inputs = await openScanInputs(snapshotDir, base, { ...options, cutAt: AS_OF_VARIABLE });
    await inputs.c.run(NOTHING_YET);
    const tables = inputs.tables;
    const syntheticSources = base.sources.filter((s) => s.synthetic).map((s) => s.id);
    return finish(inputs.duck, inputs.c, base, tables, await loadGraphFacts(inputs.c, syntheticSources), `snapshot ${base.id} of ${source.dir.root}`);
  }
  const duck = await openDuck(options);
  const c = await duck.connect();
  try {
    const kinds = await importRecordedHistory(c, source.root);
    const real = base.sources.filter((s) => !s.synthetic);
    const realIds = real.map((s) => sqlString(s.id)).join(", ") || "NULL";
    await c.run(`CREATE TEMP TABLE facts AS SELECT * FROM read_parquet(${sqlString(join(snapshotDir, base.files.facts))}) WHERE source IN (${realIds})`);
    await c.run(`CREATE TEMP TABLE entities AS SELECT * FROM read_parquet(${sqlString(join(snapshotDir, base.files.entities))}) WHERE source IN (${realIds})`);
    for (const e of HISTORY_ENTITIES) {
      await c.run(`INSERT INTO entities BY NAME SELECT ${sqlString(e.id)} AS id, ${sqlString(e.type)} AS type, ${sqlString(e.name)} AS name, '${HISTORY_SOURCE}' AS source
        WHERE NOT EXISTS (SELECT 1 FROM entities WHERE id = ${sqlString(e.id)})`);
    }
    const published = kinds.map((kind) => ({ name: `ts_${HISTORY_SOURCE}_${kind}`, kind }));
    const manifest: SnapshotManifest = {
      ...base,
      synthetic: false,
      sources: [
        ...real,
        { id: HISTORY_SOURCE, name: "recorded market history", kind: "provider", synthetic: false, license: "see ../shared/real-history/SOURCES.md", attribution: `read in place from ${source.root}`, graph: `${base.namespaces.source}${HISTORY_SOURCE}`, entities: HISTORY_ENTITIES.length, facts: 0, as_of: base.as_of },
      ],
      timeseries: published.map((t) => ({ ...t, source: HISTORY_SOURCE, provenance: HISTORY_SOURCE, file: "", rows: 0, first_date: null, last_date: null })),
    };
    await c.run(NOTHING_YET);
    const tables = await createKindViews(c, published.map((t) => ({ ...t, from: t.name })), AS_OF_VARIABLE);
    return finish(duck, c, manifest, tables, await loadGraphFacts(c, []), `recorded history in ${source.root} over the real (reference) entities of snapshot ${base.id}`);
  } catch (error) {
    c.closeSync();
    duck.closeSync();
    throw error;
  }
}

function finish(duck: DuckDBInstance, c: DuckDBConnection, manifest: SnapshotManifest, tables: Map<Kind, string[]>, graph: GraphFacts, description: string): ReplayWorld {
  return {
    c,
    manifest,
    tables,
    graph,
    description,
    async has(id) {
      return (await rowsOf<{ n: number }>(c, `SELECT count(*)::INTEGER AS n FROM entities WHERE id = ${sqlString(id)}`))[0]!.n > 0;
    },
    async cutAt(day) {
      await c.run(`SET VARIABLE as_of = DATE '${day}'`);
    },
    close() {
      c.closeSync();
      duck.closeSync();
    },
  };
}
