/**
 * The floor of analytic SPARQL: a query's SQL as the translator writes it
 * (graph/analytic) run by DuckDB alone, in-process, on the snapshot's own query database: no HTTP,
 * no parse, no answer shaping. What ckg over HTTP can at best approach.
 */
import { Parser } from "sparqljs";
import { SETTINGS } from "../../src/config/settings.ts";
import { type AnalyticSparql, AnalyticSparql as Analytic } from "../../src/graph/analytic/analytic-sparql.ts";
import { type GraphProfile, readGraphProfile } from "../../src/graph/analytic/graph-profile.ts";
import { defaultPrefixes } from "../../src/graph/sparql.ts";
import { silentLogger } from "../../src/log.ts";
import type { DataDir } from "../../src/store/data-dir.ts";
import { snapshotPath } from "../../src/store/data-dir.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { TimeseriesStore } from "../../src/timeseries/store.ts";
import { percentile } from "./stats.ts";

export interface Floor {
  profile: GraphProfile;
  /** The classes the snapshot's entities have (short names), as the held-out set wants them. */
  classes: string[];
  /** The translator's SQL, or undefined when it leaves the query to the graph store. */
  sql(sparql: string): string | undefined;
  /** p50 of `runs` in-process runs of the SQL (ms). */
  p50(sql: string, runs: number): Promise<number>;
  explain(sql: string): Promise<string>;
  close(): Promise<void>;
}

export async function openFloor(dir: DataDir, id: string): Promise<Floor> {
  const path = snapshotPath(dir, id);
  const manifest = readManifest(path);
  const store = await TimeseriesStore.open(path, manifest, { memoryLimit: SETTINGS.sql_memory_limit.default });
  const analytic: AnalyticSparql = new Analytic(store, manifest, silentLogger);
  await analytic.ready;
  const ns = manifest.namespaces;
  const profile = await readGraphProfile(store, manifest);
  if ("refused" in profile) throw new Error(`analytic SPARQL refused the snapshot: ${profile.refused}`);
  const classes = (await store.rows<{ c: string }>("SELECT DISTINCT object AS c FROM graph_facts WHERE predicate = 'rdf:type' AND object_kind = 'class' ORDER BY c")).map((r) => r.c);
  const parser = new Parser({ baseIRI: ns.entity, prefixes: defaultPrefixes(ns) });
  return {
    profile,
    classes,
    sql: (sparql) => analytic.plan(sparql, () => parser.parse(sparql), 10_000)?.sql,
    async p50(sql, runs) {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const started = performance.now();
        await store.ownQuery(sql, { timeoutMs: 60_000 });
        times.push(performance.now() - started);
      }
      return percentile(times, 50);
    },
    async explain(sql) {
      const rows = await store.ownQuery(`EXPLAIN ANALYZE ${sql}`, { timeoutMs: 60_000 });
      return rows.map((r) => String(r[1])).join("\n");
    },
    close: async () => store.close(),
  };
}
