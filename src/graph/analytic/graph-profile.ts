/**
 * @module graph/analytic/graph-profile
 * What analytic SPARQL must know of a snapshot's graph tables before it may answer in place of the
 * graph store, read once per snapshot (about 2 s at full scale, off the request path):
 * - that graph_facts holds each quad once: the graph store keeps a set of quads, so a repeated row
 *   would count twice in DuckDB and once there;
 * - that typed numbers are in canonical form (the store keeps "0.30" as "0.3": a group or a match
 *   on the written form would differ) and that no `iri` object lies in ckg's own namespaces (the
 *   encoding of fact-terms.ts would then read it as an entity or class);
 * - each predicate's object kinds and datatypes: a column of one kind and datatype can be grouped
 *   and ordered on its value alone;
 * - the meta graph (graph/meta-graph.ts), which the facts table does not hold.
 * A snapshot that fails a check keeps every query on the graph store.
 */
import type { Namespaces } from "../../entities/vocabulary.ts";
import type { SnapshotManifest } from "../../store/manifest.ts";
import { sqlString } from "../../store/duckdb.ts";
import { FACTS_BY_PREDICATE, NUMBER_SCALE } from "../../timeseries/graph-tables.ts";
import type { TimeseriesStore } from "../../timeseries/store.ts";
import { metaQuadLines } from "../meta-graph.ts";
import { oxigraph } from "../oxigraph.ts";
import { type FactKind, type FactTerm, factTermOf, predicateCodes, predicateCode, XSD_DECIMAL, XSD_INTEGER } from "./fact-terms.ts";

/** The objects one predicate has in graph_facts. */
export interface PredicateObjects {
  /** Its facts. */
  count: number;
  kinds: FactKind[];
  /** Distinct datatypes of its literal objects (null: xsd:string). */
  datatypes: (string | null)[];
}

/** A quad of the meta graph in the facts' encoding (predicate as its code). */
export interface MetaQuad {
  subject: FactTerm;
  predicate: string;
  object: FactTerm;
}

export interface GraphProfile {
  ns: Namespaces;
  /** Predicate code by IRI, for every predicate graph_facts holds. */
  codes: ReadonlyMap<string, string>;
  predicates: ReadonlyMap<string, PredicateObjects>;
  /** Facts in graph_facts, and members of each class (rdf:type facts by object): the join's order reads them (join-order.ts). */
  facts: number;
  classes: ReadonlyMap<string, number>;
  meta: readonly MetaQuad[];
  /** The facts table triple patterns read: graph_facts ordered by predicate and subject where the snapshot has that copy. */
  factsTable: string;
  /** SUM can be exact in DECIMAL(38, 12): every number is an integer or a decimal of at most 12 places. */
  exactSums: boolean;
  /** factsTable has the typed `number` column (graph-tables.ts); snapshots built before it cast per row. */
  typedNumbers: boolean;
}

/** Decimal places a SUM keeps (DECIMAL(38, 12), the typed column's): more would round where the graph store does not. */
export const SUM_SCALE = NUMBER_SCALE;

interface ProfileRow {
  predicate: string;
  facts: bigint | number;
  kinds: string[];
  datatypes: (string | null)[];
  places: number | null;
  uncanonical: bigint | number;
  own_iris: bigint | number;
}

/** The profile, or why analytic SPARQL stays off for this snapshot. */
export async function readGraphProfile(store: TimeseriesStore, manifest: SnapshotManifest): Promise<GraphProfile | { refused: string }> {
  const ns = manifest.namespaces;
  if (!manifest.graph_tables.some((t) => t.name === "graph_facts")) return { refused: "the snapshot has no graph tables" };
  const numeric = `datatype IN (${sqlString(XSD_INTEGER)}, ${sqlString(XSD_DECIMAL)})`;
  const [repeats] = await store.rows<{ repeated: bigint | number }>(
    "SELECT count(*) - count(DISTINCT hash(subject_id, predicate, object, object_kind, datatype, source)) AS repeated FROM graph_facts",
  );
  if (Number(repeats?.repeated ?? 0) > 0) return { refused: `graph_facts repeats ${repeats!.repeated} quads` };
  const rows = await store.rows<ProfileRow>(`
    SELECT predicate, count(*) AS facts, list(DISTINCT object_kind) AS kinds, list(DISTINCT datatype) AS datatypes,
      max(length(object) - strpos(object, '.')) FILTER (WHERE datatype = ${sqlString(XSD_DECIMAL)} AND strpos(object, '.') > 0) AS places,
      count(*) FILTER (WHERE object_kind = 'literal' AND ${numeric}
        AND regexp_matches(object, '(\\.\\d*0$)|(\\.$)|(^\\+)|(^-?0\\d)|(^-0$)|(^-?\\.)')) AS uncanonical,
      count(*) FILTER (WHERE object_kind = 'iri' AND (starts_with(object, ${sqlString(ns.entity)}) OR starts_with(object, ${sqlString(ns.ontology)}))) AS own_iris
    FROM graph_facts GROUP BY predicate`);
  if (rows.some((r) => Number(r.uncanonical) > 0)) return { refused: "graph_facts has numbers not in canonical form" };
  if (rows.some((r) => Number(r.own_iris) > 0)) return { refused: "graph_facts has iri objects in ckg's own namespaces" };
  const codes = predicateCodes(
    rows.map((r) => r.predicate),
    ns,
  );
  const predicates = new Map(rows.map((r) => [r.predicate, { count: Number(r.facts), kinds: r.kinds as FactKind[], datatypes: r.datatypes }]));
  const members = await store.rows<{ cls: string; n: bigint | number }>("SELECT object AS cls, count(*) AS n FROM graph_facts WHERE predicate = 'rdf:type' AND object_kind = 'class' GROUP BY object");
  const classes = new Map(members.map((m) => [m.cls, Number(m.n)]));
  const facts = rows.reduce((sum, r) => sum + Number(r.facts), 0);
  const numbers = rows.flatMap((r) => r.datatypes).filter((d) => d !== null && /#(double|float|long|int|short|byte|\w+Integer|unsigned\w+)$/.test(d));
  const exactSums = numbers.length === 0 && rows.every((r) => r.places === null || Number(r.places) <= SUM_SCALE);
  const meta = metaQuads(manifest, codes);
  if (!meta) return { refused: "the meta graph has blank nodes" };
  const copies = await store.rows<{ n: bigint | number }>(`SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = ${sqlString(FACTS_BY_PREDICATE)}`);
  const factsTable = Number(copies[0]?.n ?? 0) > 0 ? FACTS_BY_PREDICATE : "graph_facts";
  const typed = await store.rows<{ n: bigint | number }>(
    `SELECT count(*) AS n FROM duckdb_columns() WHERE table_name = ${sqlString(FACTS_BY_PREDICATE)} AND column_name = 'number'`,
  );
  return { ns, codes, predicates, facts, classes, meta, exactSums, factsTable, typedNumbers: Number(typed[0]?.n ?? 0) > 0 };
}

function metaQuads(manifest: SnapshotManifest, codes: ReadonlyMap<string, string>): MetaQuad[] | undefined {
  const ns = manifest.namespaces;
  const text = metaQuadLines(ns, manifest.sources).join("\n");
  const quads: MetaQuad[] = [];
  for (const quad of oxigraph.parse(text, { format: "application/n-quads" })) {
    const subject = factTermOf(quad.subject, ns);
    const object = factTermOf(quad.object, ns);
    if (!subject || !object) return undefined;
    quads.push({ subject, predicate: predicateCode(quad.predicate.value, codes), object });
  }
  return quads;
}
