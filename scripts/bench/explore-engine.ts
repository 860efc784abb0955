/**
 * The in-process part of the explore benchmark (explore.ts runs it once its server has stopped):
 * per entity, the cost of the old way (the graph process's neighbourhood: 2 + P SPARQL queries on a
 * raw Oxigraph store, kept in test/support/sparql-neighbourhood.ts as it was) beside the fact index, whether both give the same
 * neighbourhood, and the other parts of an explore on the same entities: the latest figures from
 * the time-series, explore's own assembly, the answer's JSON. Also the index's build time and size.
 */
import { join } from "node:path";
import { NameIndex } from "../../src/entities/name-index.ts";
import { explore, resolveEntity } from "../../src/graph/explore.ts";
import { FactIndex } from "../../src/graph/fact-index.ts";
import { OxigraphStore } from "../../src/graph/graph-process.ts";
import { loadOntology } from "../../src/graph/ontology.ts";
import { openDuck } from "../../src/store/duckdb.ts";
import type { SnapshotManifest } from "../../src/store/manifest.ts";
import { EntitySeries } from "../../src/timeseries/figures.ts";
import { LIMIT, OUTGOING_LIMIT, comparable, sparqlNeighbourhood } from "../../test/support/sparql-neighbourhood.ts";
import { percentile, printTable } from "./stats.ts";

type Entity = { id: string; type: string };

export async function engineReport(options: { snapshotDir: string; manifest: SnapshotManifest; samples: { uniform: Entity[]; hubs: Entity[]; typed: Entity[] } }): Promise<void> {
  const { snapshotDir, manifest } = options;
  const ns = manifest.namespaces;
  const rows: [string, string][] = [];
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  /** RSS and array buffers (MB) once garbage is collected and the allocator has given memory back. */
  const settled = async () => {
    for (let i = 0; i < 3; i++) {
      Bun.gc(true);
      await Bun.sleep(500);
    }
    const usage = process.memoryUsage();
    return { rss: usage.rss / 1e6, buffers: usage.arrayBuffers / 1e6 };
  };
  const duck = await openDuck();
  const names = await NameIndex.fromParquet(duck, join(snapshotDir, manifest.files.entities), ns);
  const before = await settled();
  const t0 = performance.now();
  const c0 = cpu();
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss / 1e6)), 100);
  const facts = await FactIndex.fromParquet(duck, { facts: join(snapshotDir, manifest.files.facts), entities: join(snapshotDir, manifest.files.entities) }, names, ns);
  clearInterval(sampler);
  rows.push(["fact index: build wall / CPU (s), peak RSS of this process during it (MB)", `${((performance.now() - t0) / 1000).toFixed(1)} / ${((cpu() - c0) / 1000).toFixed(1)}, ${peak.toFixed(0)}`]);
  rows.push(["fact index: facts, duplicates dropped, left out", `${facts.facts.toLocaleString("en")}, ${facts.duplicates}, ${facts.skipped}`]);
  rows.push(["fact index: arrays (MB)", (facts.bytes / 1e6).toFixed(1)]);
  const after = await settled();
  rows.push([
    "fact index: this process's RSS / array buffers before and after the build, settled (MB)",
    `${before.rss.toFixed(0)} -> ${after.rss.toFixed(0)} / ${before.buffers.toFixed(0)} -> ${after.buffers.toFixed(0)}`,
  ]);

  const store = new OxigraphStore();
  const loaded = store.load(join(snapshotDir, manifest.files.graph));
  rows.push([`raw Oxigraph store load (s, ${loaded.quads.toLocaleString("en")} quads)`, (loaded.ms / 1000).toFixed(1)]);

  const sets: [string, Entity[]][] = [
    ["uniform", options.samples.uniform],
    ...[...Map.groupBy(options.samples.typed, (e) => e.type)].map(([type, list]): [string, Entity[]] => [type, list.slice(0, 100)]),
    ["hubs", options.samples.hubs],
  ];
  let compared = 0;
  const mismatches: string[] = [];
  for (const [label, list] of sets) {
    const sparql: number[] = [];
    const index: number[] = [];
    for (const entity of list) {
      const uri = `${ns.entity}${entity.id}`;
      let t = performance.now();
      const before = sparqlNeighbourhood(store, uri);
      sparql.push(performance.now() - t);
      t = performance.now();
      const now = facts.neighbourhood(uri, LIMIT, OUTGOING_LIMIT);
      index.push(performance.now() - t);
      compared++;
      if (comparable(before) !== comparable(now)) mismatches.push(entity.id);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    rows.push([
      `neighbourhood per entity, ${label} (${list.length}): SPARQL 2+P queries vs fact index (ms mean, p50, p99)`,
      `${mean(sparql).toFixed(2)}, ${percentile(sparql, 50).toFixed(2)}, ${percentile(sparql, 99).toFixed(2)} vs ${mean(index).toFixed(3)}, ${percentile(index, 50).toFixed(3)}, ${percentile(index, 99).toFixed(3)}`,
    ]);
  }
  rows.push(["same neighbourhood (SPARQL vs fact index)", `${compared - mismatches.length} of ${compared}${mismatches.length ? `; differ: ${mismatches.slice(0, 5).join(", ")}` : ""}`]);

  // The rest of an explore on the same entities: figures, assembly, JSON.
  const ontology = loadOntology(ns.ontology);
  const reading = performance.now();
  const series = await EntitySeries.read(snapshotDir, manifest); // once per snapshot, at load
  rows.push(["latest figures of every entity, read at load (ms)", (performance.now() - reading).toFixed(0)]);
  const deps = {
    facts,
    names,
    ontology,
    ns,
    figures: (id: string) => series.latestFigures(id),
    seriesTables: (id: string) => series.tablesOf(id),
    syntheticSources: new Set(manifest.sources.filter((s) => s.synthetic).map((s) => s.id)),
  };
  for (const [label, list] of [["uniform", options.samples.uniform], ["hubs", options.samples.hubs]] as const) {
    const figures: number[] = [];
    const whole: number[] = [];
    const json: number[] = [];
    for (const entity of list) {
      let t = performance.now();
      deps.figures(entity.id);
      figures.push(performance.now() - t);
      t = performance.now();
      const answer = await explore(deps, resolveEntity(names, `${ns.entity}${entity.id}`), { entity_name: entity.id });
      whole.push(performance.now() - t);
      t = performance.now();
      JSON.stringify(answer);
      json.push(performance.now() - t);
    }
    rows.push([
      `explore parts per entity, ${label} (${list.length}): figures / whole explore() / JSON.stringify (ms p50, p99)`,
      [figures, whole, json].map((xs) => `${percentile(xs, 50).toFixed(2)}, ${percentile(xs, 99).toFixed(2)}`).join(" / "),
    ]);
  }
  duck.closeSync();
  printTable("explore in process: the old way beside the fact index, same entities", rows);
}
