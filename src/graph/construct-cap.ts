/**
 * @module graph/construct-cap
 * The work of a CONSTRUCT bounded like a SELECT's: its solutions capped with LIMIT max+1, as the
 * rows are. An engine builds every triple of every solution before the first is read (Oxigraph
 * hands over an array of them all), so without it `CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }` would
 * make the whole graph again inside a graph process's 4 GiB heap to keep 10,000 triples of it.
 *
 * A solution cap alone would hide truncation: many solutions can make one triple. So each solution
 * also makes one marker triple of its own (a template blank node is new in every solution), which
 * the triple cap counts and leaves out (rdf-graph.ts): as many markers as the cap means solutions
 * were left out, and the answer says `truncated`.
 */
import type { ConstructQuery, Triple } from "sparqljs";

/** The marker's predicate: an IRI no data uses. */
export const SOLUTION_MARKER = "urn:ckg:solution";

const MARKER: Triple = {
  subject: { termType: "BlankNode", value: "ckgSolution" },
  predicate: { termType: "NamedNode", value: SOLUTION_MARKER },
  object: { termType: "Literal", value: "1", language: "", datatype: { termType: "NamedNode", value: "http://www.w3.org/2001/XMLSchema#integer" } },
} as unknown as Triple;

/**
 * Caps a parsed CONSTRUCT's solutions at `max + 1` unless its own LIMIT is lower, adding the
 * marker to its template; returns the cap (the number of markers that means "more"), or undefined
 * when the query's own LIMIT already bounds it.
 */
export function capSolutions(query: ConstructQuery & { limit?: number }, max: number): number | undefined {
  if (query.limit !== undefined && query.limit <= max) return undefined;
  query.limit = max + 1;
  // `CONSTRUCT WHERE { ... }` is parsed with its pattern as the template already.
  query.template = [...(query.template ?? []), MARKER];
  return query.limit;
}
