/**
 * What the graph itself says of an entity's neighbourhood: the SPARQL queries the graph process ran
 * for explore before the fact index (src/graph/fact-index.ts) answered it in the server's process,
 * kept as they were (2 + P queries: the outgoing facts with their objects' names and types, the
 * incoming counts per predicate, then the first items of each). The fact index test checks the
 * index against them on a real snapshot; the explore benchmark times both.
 */
import { RDF_TYPE, SCHEMA_NAME, XSD } from "../../src/entities/vocabulary.ts";
import type { Neighbourhood, Related } from "../../src/graph/fact-index.ts";
import type { OxigraphStore } from "../../src/graph/graph-process.ts";
import { ITEMS_PER_RELATIONSHIP, OUTGOING_LIMIT } from "../../src/graph/explore.ts";

/** Explore's limits: items per relationship, facts with the entity as subject. */
export const LIMIT = ITEMS_PER_RELATIONSHIP;
export { OUTGOING_LIMIT };

export function sparqlNeighbourhood(store: OxigraphStore, uri: string, limit = LIMIT): Neighbourhood {
  const iri = `<${uri}>`;
  const name = `<${SCHEMA_NAME}>`;
  const type = `<${RDF_TYPE}>`;
  const outRows = store.select(
    `SELECT ?p ?o ?g ?name ?type WHERE { GRAPH ?g { ${iri} ?p ?o } OPTIONAL { ?o ${name} ?name } OPTIONAL { ?o ${type} ?type } } LIMIT ${OUTGOING_LIMIT}`,
  ).rows;
  const outgoing = new Map<string, Neighbourhood["outgoing"][number]>();
  for (const row of outRows) {
    const key = `${row.p!.value}|${row.o!.type}|${row.o!.value}|${row.g!.value}`;
    let entry = outgoing.get(key);
    if (!entry) outgoing.set(key, (entry = { predicate: row.p!.value, object: row.o!, graph: row.g!.value, name: row.name?.value, types: [] }));
    if (row.type && !entry.types.includes(row.type.value)) entry.types.push(row.type.value);
  }
  const counts = store.select(`SELECT ?p (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?p ${iri} } GROUP BY ?p`).rows;
  const incoming: Neighbourhood["incoming"] = [];
  for (const row of counts) {
    const predicate = row.p!.value;
    const rows = store.select(
      `SELECT ?s ?g ?name ?type WHERE { { SELECT DISTINCT ?s WHERE { ?s <${predicate}> ${iri} } LIMIT ${limit} } ` +
        `GRAPH ?g { ?s <${predicate}> ${iri} } OPTIONAL { ?s ${name} ?name } OPTIONAL { ?s ${type} ?type } }`,
    ).rows;
    const items = new Map<string, Related>();
    for (const item of rows) {
      const key = `${item.s!.value}|${item.g!.value}`;
      let related = items.get(key);
      if (!related) items.set(key, (related = { uri: item.s!.value, name: item.name?.value, graph: item.g!.value, types: [] }));
      if (item.type && !related.types.includes(item.type.value)) related.types.push(item.type.value);
    }
    incoming.push({ predicate, total: Number(row.n!.value), items: [...items.values()] });
  }
  return { exists: outgoing.size > 0, outgoing: [...outgoing.values()], incoming };
}

const NUMERIC = new Set(["decimal", "integer", "double", "float"].map((t) => `${XSD}${t}`));

/**
 * A neighbourhood as comparable text: outgoing facts and incoming links as sorted lines (numbers as
 * numbers: Oxigraph answers a decimal in its canonical form; the names and types of entity objects
 * only, as explore reads them). A relationship with more links than shown gives its total and how
 * many distinct subjects it shows: which ones is not specified (the graph's hash order before, the
 * most prominent first in the fact index).
 */
export function comparable(hood: Neighbourhood): string {
  const lines: string[] = [];
  for (const fact of hood.outgoing) {
    const o = fact.object;
    const value = o.type === "literal" && o.datatype && NUMERIC.has(o.datatype) ? String(Number(o.value)) : o.value;
    const datatype = o.type === "literal" ? (o.datatype ?? "") : "";
    const entity = o.type === "uri" && fact.predicate !== RDF_TYPE;
    lines.push(`out ${fact.predicate} ${o.type} ${value} ${datatype} ${fact.graph} ${entity ? `${fact.name} ${[...fact.types].sort()}` : ""}`);
  }
  for (const group of hood.incoming) {
    const subjects = new Set(group.items.map((i) => i.uri));
    if (group.total > subjects.size) {
      lines.push(`in ${group.predicate} total ${group.total} shown ${subjects.size}`);
      continue;
    }
    for (const item of group.items) lines.push(`in ${group.predicate} ${item.uri} ${item.graph} ${item.name} ${[...item.types].sort()}`);
    lines.push(`in ${group.predicate} total ${group.total}`);
  }
  return lines.sort().join("\n");
}
