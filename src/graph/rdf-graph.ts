/**
 * @module graph/rdf-graph
 * CONSTRUCT and DESCRIBE answers as documents: the engine's triples made a set (an RDF graph has no
 * duplicates, and Oxigraph's CONSTRUCT repeats a triple each solution makes), capped at a number of
 * distinct triples, and written by Oxigraph's own serializers (Turtle, N-Triples, RDF/XML,
 * JSON-LD). Used by the graph processes on their own answers and by the server on an external
 * store's N-Triples (remote-store.ts), so both write the same documents.
 */
import { oxigraph, type Quad } from "./oxigraph.ts";
import { RDF_FORMATS, type GraphResult, type RdfFormat } from "./protocol.ts";

/** The distinct triples of `quads`, at most `max` of them, and whether more were left out. */
export function capTriples(quads: Iterable<Quad>, max: number): { graph: InstanceType<typeof oxigraph.Store>; truncated: boolean } {
  const graph = new oxigraph.Store();
  const defaultGraph = oxigraph.defaultGraph();
  for (const quad of quads) {
    // Triples only: an engine's CONSTRUCT quads are in the default graph already, a parser's too.
    const triple = quad.graph.termType === "DefaultGraph" ? quad : oxigraph.quad(quad.subject, quad.predicate, quad.object, defaultGraph);
    if (graph.has(triple)) continue;
    if (graph.size === max) return { graph, truncated: true };
    graph.add(triple);
  }
  return { graph, truncated: false };
}

/** The graph written in `format`. */
export function writeGraph(graph: InstanceType<typeof oxigraph.Store>, format: RdfFormat): string {
  return graph.dump({ format: RDF_FORMATS[format], from_graph_name: oxigraph.defaultGraph() });
}

/** Capped and written: what a graph query answers. */
export function graphResult(quads: Iterable<Quad>, options: { format: RdfFormat; maxTriples: number }): GraphResult {
  const { graph, truncated } = capTriples(quads, options.maxTriples);
  return { text: writeGraph(graph, options.format), triples: graph.size, truncated };
}

/** Parses an RDF document (an external store's answer); throws on text that is not `mediaType`. */
export function parseTriples(text: string, mediaType: string): Quad[] {
  return oxigraph.parse(text, { format: mediaType, lenient: true });
}
