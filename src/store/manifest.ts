/**
 * @module store/manifest
 * manifest.json: what a snapshot holds and where it came from. The schema endpoint's provenance,
 * /readyz and the server's loaders all read it; nothing else describes a snapshot.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { refuseNewerSnapshot } from "./formats.ts";

export const sourceSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(["reference", "synthetic", "provider"]),
  synthetic: z.boolean(),
  license: z.string(),
  attribution: z.string(),
  package: z.string().optional(),
  version: z.string().optional(),
  homepage: z.string().optional(),
  /** The named graph holding this source's facts. */
  graph: z.string(),
  entities: z.number().int(),
  facts: z.number().int(),
  as_of: z.string(),
});

const seriesTableSchema = z.object({
  name: z.string(),
  kind: z.string(),
  source: z.string(),
  provenance: z.string(),
  file: z.string(),
  rows: z.number().int(),
  first_date: z.string().nullable(),
  last_date: z.string().nullable(),
});

export const manifestSchema = z.object({
  /** The snapshot format (store/formats.ts SNAPSHOT_FORMAT); a newer one is refused before this schema applies. */
  format: z.literal(1),
  id: z.string(),
  created_at: z.string(),
  as_of: z.string(),
  build: z.object({ scale: z.string(), seed: z.number().int(), ckg_version: z.string(), duration_ms: z.number() }),
  namespaces: z.object({ ontology: z.string(), entity: z.string(), source: z.string() }),
  synthetic: z.boolean(),
  sources: z.array(sourceSummarySchema),
  counts: z.object({
    entities: z.number().int(),
    nodes_by_type: z.record(z.string(), z.number().int()),
    facts: z.number().int(),
    quads: z.number().int(),
    changes: z.number().int(),
  }),
  files: z.object({ entities: z.string(), facts: z.string(), changes: z.string(), graph: z.string() }),
  /** Daily series (Parquet under ts/). */
  timeseries: z.array(seriesTableSchema),
  /** The same series in DuckDB's storage, queried by the server. */
  timeseries_db: z.string(),
  /** The graph's tables in that database (graph_entities, graph_facts); none in snapshots made before them. */
  graph_tables: z.array(z.object({ name: z.string(), rows: z.number().int() })).default([]),
  /** The search index (folder, embedder spec, dimensions, entities per type). */
  search: z.object({
    /** The search index's format (store/formats.ts SEARCH_FORMAT); absent in snapshots written before ckg 0.2.0, which are format 1. */
    format: z.literal(1).default(1),
    dir: z.string(),
    embedder: z.string(),
    /** The API model name (embedder openai:...); null otherwise. */
    model: z.string().nullable(),
    dims: z.number().int(),
    counts: z.record(z.string(), z.number().int()),
    build_ms: z.number(),
  }),
  /** Planted anomalies of the demo series (null when the snapshot has none). */
  ground_truth: z.string().nullable(),
});

export type SnapshotManifest = z.infer<typeof manifestSchema>;

export const MANIFEST_FILE = "manifest.json";

/** The source id of ckg's own named graph in graph.nq: the ontology and the sources' descriptions. */
export const META_SOURCE = "ckg";

/** Every named graph of a snapshot's graph.nq: one per source, and ckg's own. */
export function snapshotGraphs(manifest: SnapshotManifest): string[] {
  return [...new Set([...manifest.sources.map((s) => s.graph), `${manifest.namespaces.source}${META_SOURCE}`])];
}

export function readManifest(snapshotDir: string): SnapshotManifest {
  const raw: unknown = JSON.parse(readFileSync(join(snapshotDir, MANIFEST_FILE), "utf8"));
  refuseNewerSnapshot(raw, snapshotDir);
  return manifestSchema.parse(raw);
}
