/**
 * @module snapshot/write
 * Writes a world into a snapshot folder: Parquet tables (entities, facts, changes) through DuckDB,
 * the RDF dump (N-Quads, one named graph per source) for fast graph loading, and manifest.json.
 * The Parquet tables are the snapshot's truth; the RDF dump is derived from the same facts.
 */
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import type { DuckDBConnection } from "@duckdb/node-api";
import { openScratchDuck, sqlString, withConnection } from "../store/duckdb.ts";
import { SAME_AS, type World } from "../model/world.ts";
import { metaQuadLines, nquadsLiteral } from "../graph/meta-graph.ts";
import {
  ATTRIBUTE_DATATYPES,
  type Attribute,
  ENTITY_TYPES,
  type Namespaces,
  classIri,
  entityUri,
  factPredicateIri,
  type ClassName,
} from "../entities/vocabulary.ts";
import { normalizeName } from "../entities/name-index.ts";
import { SEARCH_FORMAT, SNAPSHOT_FORMAT } from "../store/formats.ts";
import { MANIFEST_FILE, type SnapshotManifest } from "../store/manifest.ts";
import { VERSION } from "../version.ts";
import { GROUND_TRUTH_FILE, type SeriesResult } from "../model/series.ts";
import { addGraphTables, publishedTables } from "../timeseries/database.ts";
import type { SearchIndexInfo } from "../search/build-index.ts";
import { TimeSlices, collectEvery, turnEventLoop } from "../runtime.ts";
import { isoSeconds } from "../time.ts";
import type { Logger } from "../log.ts";
import { sideBySide, stage } from "./stage.ts";

export const FILES = {
  entities: "entities.parquet",
  facts: "facts.parquet",
  changes: "changes.parquet",
  graph: "graph.nq",
} as const;

export interface WriteOptions {
  id: string;
  series: SeriesResult;
  /**
   * The query database's path in the snapshot, or its build still running: the world's own files
   * (entities, facts, changes, the RDF dump) are written beside it, the graph tables after it.
   */
  timeseriesDb: string | Promise<string>;
  search: SearchIndexInfo;
  dir: string;
  ns: Namespaces;
  asOf: Date;
  scale: string;
  seed: number;
  startedAt: number;
  /** When each source's data was taken (ISO); sources not named here are as of `asOf`. */
  sourceAsOf?: Record<string, string>;
  log: Logger;
}

export async function writeSnapshot(world: World, options: WriteOptions): Promise<SnapshotManifest> {
  const { log } = options;
  const [quads, timeseriesDb] = await sideBySide([writeWorldFiles(world, options), Promise.resolve(options.timeseriesDb)]);
  const graphTables = await stage(log, "graph tables", () => addGraphTables(options.dir, publishedTables(options.series.tables)));
  const manifest = buildManifest(world, { ...options, timeseriesDb }, quads, graphTables);
  writeFileSync(join(options.dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * The files made from the world alone: entities, facts and changes (Parquet), then the RDF dump;
 * returns the dump's quad count. Their loops run in time slices (runtime.ts TimeSlices), since a
 * build writes them while the query database's statements, issued from this thread, run beside.
 */
async function writeWorldFiles(world: World, options: WriteOptions): Promise<number> {
  const { log } = options;
  // Millions of fact rows: staged on disk, not in memory, so a full build stays within 4 GiB.
  const { duck, remove } = await openScratchDuck(options.dir, "write-scratch.duckdb", "512MB");
  try {
    await withConnection(duck, async (c) => {
      await stage(log, "entities", () => writeEntities(c, world, join(options.dir, FILES.entities), options.ns));
      await stage(log, "facts", () => writeFacts(c, world, join(options.dir, FILES.facts), isoSeconds(options.asOf)));
      await stage(log, "changes", () => writeChanges(c, world, join(options.dir, FILES.changes)));
    });
  } finally {
    remove();
  }
  return stage(log, "graph dump", () => writeGraph(world, join(options.dir, FILES.graph), options.ns));
}

const PARQUET = "(FORMAT parquet, COMPRESSION zstd)";
/**
 * Appending a row or a quad leaves garbage (URIs, JSON, N-Quads text), collected every this many
 * rows (runtime.ts collectEvery: a young-generation collection, which does not trace the world).
 */
const ROWS_PER_COLLECTION = 100_000;
/** Rows between two looks at the clock (2-20 microseconds each at full scale). */
const ROWS_PER_SLICE = 1024;
/**
 * A text list as DuckDB reads it back (from_json): appended as JSON text, not as a DuckDB list
 * value, which is a native object per row freed only by a finalizer (600,000 of them held 1.9 GB
 * until a full collection ran).
 */
const TEXT_LIST = `'["VARCHAR"]'`;

async function writeEntities(c: DuckDBConnection, world: World, path: string, ns: Namespaces): Promise<void> {
  await c.run(`CREATE TABLE entities (
    id VARCHAR, uri VARCHAR, type VARCHAR, labels VARCHAR, name VARCHAR, name_key VARCHAR, symbol VARCHAR,
    aliases VARCHAR, source VARCHAR, prominence DOUBLE)`);
  const appender = await c.createAppender("entities");
  const collect = collectEvery(ROWS_PER_COLLECTION);
  const slices = new TimeSlices();
  let row = 0;
  for (const e of world.entities.values()) {
    if (collect()) await turnEventLoop();
    if (++row % ROWS_PER_SLICE === 0) await slices.yieldIfDue();
    appender.appendVarchar(e.id);
    appender.appendVarchar(entityUri(ns, e.id));
    appender.appendVarchar(e.type);
    appender.appendVarchar(JSON.stringify(e.labels));
    appender.appendVarchar(e.name);
    appender.appendVarchar(normalizeName(e.name));
    if (e.symbol) appender.appendVarchar(e.symbol);
    else appender.appendNull();
    appender.appendVarchar(JSON.stringify(e.aliases));
    appender.appendVarchar(e.source);
    appender.appendDouble(e.prominence);
    appender.endRow();
  }
  appender.closeSync();
  await c.run(
    `COPY (SELECT id, uri, type, from_json(labels, ${TEXT_LIST}) AS labels, name, name_key, symbol, from_json(aliases, ${TEXT_LIST}) AS aliases, source, prominence
     FROM entities ORDER BY id) TO ${sqlString(path)} ${PARQUET}`,
  );
}

async function writeFacts(c: DuckDBConnection, world: World, path: string, asOf: string): Promise<void> {
  await c.run(`CREATE TABLE facts (
    subject_id VARCHAR, predicate VARCHAR, object VARCHAR, object_kind VARCHAR, datatype VARCHAR, source VARCHAR, as_of VARCHAR)`);
  const appender = await c.createAppender("facts");
  const { subject, predicate, object, isRelation, source, asOf: factAsOf } = world.facts;
  const collect = collectEvery(ROWS_PER_COLLECTION);
  const slices = new TimeSlices();
  for (let i = 0; i < subject.length; i++) {
    if (collect()) await turnEventLoop();
    if (i % ROWS_PER_SLICE === 0) await slices.yieldIfDue();
    const p = predicate[i]!;
    appender.appendVarchar(subject[i]!);
    appender.appendVarchar(p);
    appender.appendVarchar(object[i]!);
    appender.appendVarchar(p === "rdf:type" ? "class" : p === SAME_AS ? "iri" : isRelation[i] ? "entity" : "literal");
    const datatype = isRelation[i] ? undefined : ATTRIBUTE_DATATYPES[p as Attribute];
    if (datatype) appender.appendVarchar(datatype);
    else appender.appendNull();
    appender.appendVarchar(source[i]!);
    appender.appendVarchar(factAsOf[i] || asOf);
    appender.endRow();
  }
  appender.closeSync();
  await c.run(
    `COPY (SELECT subject_id, predicate, object, object_kind, datatype, source, as_of::TIMESTAMP AS as_of FROM facts) TO ${sqlString(path)} ${PARQUET}`,
  );
}

async function writeChanges(c: DuckDBConnection, world: World, path: string): Promise<void> {
  await c.run(`CREATE TABLE changes (ts VARCHAR, entity_id VARCHAR, operation VARCHAR, fields VARCHAR, source VARCHAR)`);
  const appender = await c.createAppender("changes");
  for (const change of world.changes) {
    appender.appendVarchar(change.ts);
    appender.appendVarchar(change.id);
    appender.appendVarchar(change.operation);
    appender.appendVarchar(JSON.stringify(change.fields));
    appender.appendVarchar(change.source);
    appender.endRow();
  }
  appender.closeSync();
  await c.run(
    `COPY (SELECT ts::TIMESTAMP AS ts, entity_id, operation, from_json(fields, ${TEXT_LIST}) AS fields, source FROM changes ORDER BY ts, entity_id) TO ${sqlString(path)} ${PARQUET}`,
  );
}

/** The RDF dump: every fact in its source's named graph, plus the ontology and source descriptions. */
async function writeGraph(world: World, path: string, ns: Namespaces): Promise<number> {
  const file = Bun.file(path).writer({ highWaterMark: 1 << 22 });
  let quads = 0;
  const predicates = new Map<string, string>();
  const predicateOf = (p: string) => {
    let iri = predicates.get(p);
    if (!iri) {
      predicates.set(p, (iri = `<${factPredicateIri(ns, p)}>`));
    }
    return iri;
  };
  const graphs = new Map([...world.sources.keys()].map((id) => [id, `<${ns.source}${id}>`]));

  // The ontology and the sources' own descriptions sit in the ckg graph.
  const meta = metaQuadLines(ns, world.sources.values());
  file.write(`${meta.join("\n")}\n`);
  quads += meta.length;

  const { subject, predicate, object, isRelation, source } = world.facts;
  let chunk = "";
  const collect = collectEvery(ROWS_PER_COLLECTION);
  const slices = new TimeSlices();
  for (let i = 0; i < subject.length; i++) {
    collect();
    if (i % ROWS_PER_SLICE === 0) await slices.yieldIfDue();
    const p = predicate[i]!;
    let o: string;
    if (p === "rdf:type") o = `<${classIri(ns, object[i] as ClassName)}>`;
    else if (p === SAME_AS) o = `<${object[i]}>`;
    else if (isRelation[i]) o = `<${entityUri(ns, object[i]!)}>`;
    else o = nquadsLiteral(object[i]!, ATTRIBUTE_DATATYPES[p as Attribute]);
    chunk += `<${ns.entity}${subject[i]}> ${predicateOf(p)} ${o} ${graphs.get(source[i]!)} .\n`;
    if (chunk.length > 1 << 20) {
      file.write(chunk);
      chunk = "";
    }
  }
  file.write(chunk);
  await file.end();
  return quads + subject.length;
}

function buildManifest(world: World, options: WriteOptions & { timeseriesDb: string }, quads: number, graphTables: SnapshotManifest["graph_tables"]): SnapshotManifest {
  const nodesByType: Record<string, number> = {};
  const entitiesBySource = new Map<string, number>();
  for (const e of world.entities.values()) {
    nodesByType[e.type] = (nodesByType[e.type] ?? 0) + 1;
    entitiesBySource.set(e.source, (entitiesBySource.get(e.source) ?? 0) + 1);
  }
  const factsBySource = new Map<string, number>();
  for (const s of world.facts.source) factsBySource.set(s, (factsBySource.get(s) ?? 0) + 1);
  const asOf = isoSeconds(options.asOf);
  const sources = [...world.sources.values()].map((s) => ({
    ...s,
    graph: `${options.ns.source}${s.id}`,
    entities: entitiesBySource.get(s.id) ?? 0,
    facts: factsBySource.get(s.id) ?? 0,
    as_of: options.sourceAsOf?.[s.id] ?? asOf,
  }));
  return {
    format: SNAPSHOT_FORMAT,
    id: options.id,
    created_at: isoSeconds(),
    as_of: asOf,
    build: { scale: options.scale, seed: options.seed, ckg_version: VERSION, duration_ms: Math.round(performance.now() - options.startedAt) },
    namespaces: options.ns,
    synthetic: sources.some((s) => s.synthetic && s.facts > 0),
    sources,
    counts: {
      entities: ENTITY_TYPES.reduce((sum, t) => sum + (nodesByType[t] ?? 0), 0),
      nodes_by_type: nodesByType,
      facts: world.factCount,
      quads,
      changes: world.changes.length,
    },
    files: { ...FILES },
    timeseries: options.series.tables,
    timeseries_db: options.timeseriesDb,
    graph_tables: graphTables,
    search: { format: SEARCH_FORMAT, ...options.search },
    ground_truth: options.series.truth.length > 0 ? GROUND_TRUTH_FILE : null,
  };
}
