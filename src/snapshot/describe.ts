/**
 * @module snapshot/describe
 * The schema document of the live snapshot (GET /api/schema): ontology classes and predicates,
 * time-series tables, the graph's SQL tables, and provenance: which sources make up the data, which of them are synthetic,
 * when it was built, how many entities of each type it holds.
 */
import { z } from "zod";
import { type Ontology, ontologyClassSchema, ontologyPredicateSchema } from "../graph/ontology.ts";
import { defaultPrefixes } from "../graph/sparql.ts";
import { ENTITY_TYPES, FOCUS_CATEGORIES, type Namespaces } from "../entities/vocabulary.ts";
import { KINDS, type Kind } from "../timeseries/kinds.ts";
import { GRAPH_TABLES } from "../timeseries/graph-tables.ts";
import { type SnapshotManifest, sourceSummarySchema } from "../store/manifest.ts";

export const timeseriesTableSchema = z.object({
  name: z.string(),
  kind: z.string(),
  description: z.string(),
  /** Provenance source id; `synthetic` says whether it is generated demo data. */
  source: z.string(),
  synthetic: z.boolean(),
  columns: z.array(z.object({ name: z.string(), type: z.string(), description: z.string() })),
  row_count: z.number().int(),
  first_date: z.string().nullable(),
  last_date: z.string().nullable(),
});
export type TimeseriesTable = z.infer<typeof timeseriesTableSchema>;

const graphTableSchema = z.object({
  name: z.string(),
  description: z.string(),
  columns: z.array(z.object({ name: z.string(), type: z.string(), description: z.string() })),
  row_count: z.number().int(),
});

export const schemaDocumentSchema = z.object({
  status: z.literal("success"),
  namespace: z.string(),
  prefixes: z.record(z.string(), z.string()),
  entity_uri_pattern: z.string(),
  entity_types: z.array(z.string()),
  focus_categories: z.array(z.string()),
  classes: z.array(ontologyClassSchema),
  predicates: z.array(ontologyPredicateSchema),
  timeseries_tables: z.array(timeseriesTableSchema),
  /** The graph as SQL tables beside the series in /api/timeseries (timeseries/graph-tables.ts). */
  graph_tables: z.array(graphTableSchema),
  provenance: z.object({
    snapshot: z.string(),
    created_at: z.string(),
    as_of: z.string(),
    synthetic: z.boolean(),
    notice: z.string(),
    sources: z.array(sourceSummarySchema),
    entity_counts: z.record(z.string(), z.number().int()),
    node_counts: z.record(z.string(), z.number().int()),
    facts: z.number().int(),
  }),
});
export type SchemaDocument = z.infer<typeof schemaDocumentSchema>;

export function syntheticNotice(manifest: SnapshotManifest): string {
  const synthetic = manifest.sources.filter((s) => s.synthetic && s.facts > 0);
  if (synthetic.length === 0) return "All facts come from the listed real sources.";
  const share = synthetic.reduce((sum, s) => sum + s.facts, 0) / Math.max(1, manifest.counts.facts);
  return (
    `SYNTHETIC DEMO DATA: ${(share * 100).toFixed(1)}% of the facts come from ${synthetic.map((s) => s.id).join(", ")}, ` +
    "a seeded generator; they are not facts about the real world. Real reference entities (chains, tokens, exchanges, Aave markets) " +
    "come from the listed permissively licensed packages. Every fact names its source (its named graph)."
  );
}

/** The published ts_* tables of a snapshot, with their columns (from the kinds table) and extent. */
function describeTables(manifest: SnapshotManifest): TimeseriesTable[] {
  const synthetic = new Map(manifest.sources.map((s) => [s.id, s.synthetic]));
  return manifest.timeseries.map((t) => {
    const kind = KINDS[t.kind as Kind];
    return {
      name: t.name,
      kind: t.kind,
      description: kind.description,
      source: t.provenance,
      synthetic: synthetic.get(t.provenance) ?? false,
      columns: kind.columns.map((c) => ({ name: c.name, type: c.type, description: c.description })),
      row_count: t.rows,
      first_date: t.first_date,
      last_date: t.last_date,
    };
  });
}

export function describeSchema(manifest: SnapshotManifest, ontology: Ontology, ns: Namespaces): SchemaDocument {
  const tables = describeTables(manifest);
  const entityCounts = Object.fromEntries(ENTITY_TYPES.map((t) => [t, manifest.counts.nodes_by_type[t] ?? 0]));
  return {
    status: "success",
    namespace: ns.ontology,
    prefixes: defaultPrefixes(ns),
    entity_uri_pattern: `${ns.entity}<type>/<slug>`,
    entity_types: [...ENTITY_TYPES],
    focus_categories: [...FOCUS_CATEGORIES],
    classes: ontology.classes,
    predicates: ontology.predicates,
    timeseries_tables: tables,
    graph_tables: manifest.graph_tables.flatMap(({ name, rows }) => {
      const table = GRAPH_TABLES.find((t) => t.name === name);
      return table ? [{ name, description: table.description, columns: table.columns.map((c) => ({ ...c })), row_count: rows }] : [];
    }),
    provenance: {
      snapshot: manifest.id,
      created_at: manifest.created_at,
      as_of: manifest.as_of,
      synthetic: manifest.synthetic,
      notice: syntheticNotice(manifest),
      sources: manifest.sources,
      entity_counts: entityCounts,
      node_counts: manifest.counts.nodes_by_type,
      facts: manifest.counts.facts,
    },
  };
}
