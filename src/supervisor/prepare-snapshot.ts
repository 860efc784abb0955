/**
 * @module supervisor/prepare-snapshot
 * A published snapshot loaded beside the live one, everything a route reads from it: the graph
 * (other processes), the name index, explore's fact index, search, the schema document, the SQL
 * database and the latest figures. A step that fails names the file it read, and leaves nothing
 * behind: a rejected snapshot's graph is discarded, so it never reaches SPARQL.
 */
import type { DuckDBInstance } from "@duckdb/node-api";
import { join } from "node:path";
import type { Config } from "../config/config.ts";
import { NameIndex } from "../entities/name-index.ts";
import { AnalyticSparql } from "../graph/analytic/analytic-sparql.ts";
import { FactIndex } from "../graph/fact-index.ts";
import type { GraphStore } from "../graph/graph-store.ts";
import { loadOntology } from "../graph/ontology.ts";
import type { Logger } from "../log.ts";
import type { LiveSnapshot } from "../operations/context.ts";
import { SearchEngine, searchLookups } from "../search/engine.ts";
import { describeSchema } from "../snapshot/describe.ts";
import { parseTrustedKeys } from "../snapshot/keys.ts";
import { checkSignedFolder } from "../snapshot/signature.ts";
import { type DataDir, snapshotPath } from "../store/data-dir.ts";
import { MANIFEST_FILE, type SnapshotManifest, readManifest, snapshotGraphs } from "../store/manifest.ts";
import { EntitySeries } from "../timeseries/figures.ts";
import { TimeseriesStore } from "../timeseries/store.ts";

/** What preparing a snapshot uses of the server. */
export interface SnapshotHost {
  readonly dir: DataDir;
  readonly duck: DuckDBInstance;
  readonly graph: GraphStore;
  readonly config: Config;
  readonly log: Logger;
}

/**
 * Loads everything of a snapshot beside the live one. Its graph starts loading first (the longest
 * step, in other processes) and is discarded if any other step fails: a rejected snapshot never
 * reaches SPARQL. Nothing shared is written here (the changes feed is extended by goLive).
 */
export async function prepareSnapshot(server: SnapshotHost, id: string): Promise<{ live: LiveSnapshot; graphLoaded: Promise<void> }> {
  const dir = snapshotPath(server.dir, id);
  await checkSignature(server, dir, id);
  const manifest = await reading(dir, MANIFEST_FILE, () => readManifest(dir));
  const ns = manifest.namespaces;
  const graphLoaded = reading(dir, manifest.files.graph, () => server.graph.load({ id, file: join(dir, manifest.files.graph), quads: manifest.counts.quads, graphs: snapshotGraphs(manifest) }));
  graphLoaded.catch(() => undefined); // awaited by the caller; a failure must not go unhandled meanwhile
  let search: SearchEngine | undefined;
  try {
    const ontology = loadOntology(ns.ontology);
    const names = await reading(dir, manifest.files.entities, () => NameIndex.fromParquet(server.duck, join(dir, manifest.files.entities), ns));
    // Explore's fact index builds while search opens (its queries interleave with theirs).
    const factsBuilt = reading(dir, manifest.files.facts, () => buildFactIndex(server, id, dir, manifest, names));
    factsBuilt.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
    // The latest figures are read beside them, in a DuckDB instance of their own (timeseries/figures.ts).
    const seriesRead = readEntitySeries(server, id, dir, manifest);
    seriesRead.catch(() => undefined); // awaited below, as above
    const lookups = await reading(dir, manifest.files.facts, () => searchLookups(server.duck, dir, manifest, names));
    search = await SearchEngine.open(dir, manifest, lookups, server.config, server.log);
    const facts = await factsBuilt;
    const schema = describeSchema(manifest, ontology, ns);
    const series = await seriesRead;
    const timeseries = await TimeseriesStore.open(dir, manifest, { memoryLimit: server.config.sql_memory_limit });
    // Reads its profile of the graph tables in the background: until then SPARQL stays on the graph store.
    const analytic = new AnalyticSparql(timeseries, manifest, server.log);
    return { live: { id, dir, manifest, ns, ontology, names, facts, search, schema, timeseries, analytic, series }, graphLoaded };
  } catch (error) {
    search?.close(); // its scan workers would otherwise outlive a snapshot that never went live
    server.graph.discard(id);
    throw error;
  }
}

/**
 * With trusted keys set, a snapshot is served only when it is signed by one of them and its files
 * are what was signed (snapshot/signature.ts); checked before anything of it is read. Refused: a
 * warning saying why, and the error that keeps the live snapshot serving (or the start retrying).
 */
async function checkSignature(server: SnapshotHost, dir: string, id: string): Promise<void> {
  const trusted = parseTrustedKeys(server.config.snapshot_trusted_keys);
  if (trusted.length === 0) return;
  const started = performance.now();
  try {
    const signer = await checkSignedFolder(dir, id, trusted);
    server.log.info({ snapshot: id, signed_by: signer, ms: Math.round(performance.now() - started) }, "snapshot signature checked");
  } catch (error) {
    server.log.warn({ snapshot: id, err: (error as Error).message }, "snapshot refused: it is not signed by a trusted key as it is; nothing of it is served");
    throw error;
  }
}

async function readEntitySeries(server: SnapshotHost, id: string, dir: string, manifest: SnapshotManifest): Promise<EntitySeries> {
  const started = performance.now();
  const series = await reading(dir, manifest.timeseries_db, () => EntitySeries.read(dir, manifest));
  server.log.info({ snapshot: id, ms: Math.round(performance.now() - started) }, "latest figures read");
  return series;
}

async function buildFactIndex(server: SnapshotHost, id: string, dir: string, manifest: SnapshotManifest, names: NameIndex): Promise<FactIndex> {
  const started = performance.now();
  const files = { facts: join(dir, manifest.files.facts), entities: join(dir, manifest.files.entities) };
  const facts = await FactIndex.fromParquet(server.duck, files, names, manifest.namespaces);
  server.log.info({ snapshot: id, facts: facts.facts, mb: Math.round(facts.bytes / 1e6), ms: Math.round(performance.now() - started) }, "fact index built");
  if (facts.skipped > 0) server.log.warn({ snapshot: id, facts_skipped: facts.skipped }, "facts whose subject is not a node of the snapshot were left out of explore");
  return facts;
}

/** Runs a step that reads one file of a snapshot; its failure names the file (a corrupt snapshot says where). */
async function reading<T>(dir: string, file: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw new Error(`${join(dir, file)}: ${(error as Error).message}`, { cause: error });
  }
}

/** Releases what a snapshot holds beyond memory: its SQL database and its search workers. */
export function closeSnapshot(live: LiveSnapshot): void {
  live.timeseries.close();
  live.search.close();
}
