/**
 * @module graph/rdf-graph
 * CONSTRUCT and DESCRIBE answers as documents: the engine's triples made a set (an RDF graph has no
 * duplicates, and Oxigraph's CONSTRUCT repeats a triple each solution makes), capped at a number of
 * distinct triples, and written by Oxigraph's own serializers (Turtle, N-Triples, RDF/XML,
 * JSON-LD). Used by the graph processes on their own answers and by the server on an external
 * store's N-Triples (remote-store.ts), so both write the same documents.
 */
import { oxigraph, type Quad, type Store } from "./oxigraph.ts";
import { SOLUTION_MARKER } from "./construct-cap.ts";
import { RDF_FORMATS, type GraphResult, type RdfFormat } from "./protocol.ts";

interface Cap {
  format: RdfFormat;
  maxTriples: number;
  solutionCap?: number;
}

/**
 * Distinct triples gathered up to a cap: `add` says false once one more than the cap was offered.
 * The solution markers of a capped CONSTRUCT (construct-cap.ts) are counted, not kept.
 */
class CappedGraph {
  readonly graph: Store = new oxigraph.Store();
  truncated = false;
  private solutions = 0;
  private readonly defaultGraph = oxigraph.defaultGraph();

  constructor(private readonly cap: Cap) {}

  add(quad: Quad): boolean {
    if (quad.predicate.value === SOLUTION_MARKER) {
      if (++this.solutions >= (this.cap.solutionCap ?? Number.POSITIVE_INFINITY)) this.truncated = true;
      return true;
    }
    // Triples only: an engine's CONSTRUCT quads are in the default graph already, a parser's too.
    const triple = quad.graph.termType === "DefaultGraph" ? quad : oxigraph.quad(quad.subject, quad.predicate, quad.object, this.defaultGraph);
    if (this.graph.has(triple)) return true;
    if (this.graph.size >= this.cap.maxTriples) {
      this.truncated = true;
      return false;
    }
    this.graph.add(triple);
    return true;
  }

  result(format: RdfFormat): GraphResult {
    const text = this.graph.dump({ format: RDF_FORMATS[format], from_graph_name: this.defaultGraph });
    return { text, triples: this.graph.size, truncated: this.truncated };
  }
}

/** Capped and written: what a graph query answers. */
export function graphResult(quads: Iterable<Quad>, options: Cap): GraphResult {
  const capped = new CappedGraph(options);
  for (const quad of quads) if (!capped.add(quad)) break;
  return capped.result(options.format);
}

/**
 * The same from a stream of RDF text (an external store's answer), parsed as it comes and left
 * unread past the cap: a store that sends a million triples costs the parse of the first 10,001.
 */
export async function graphResultOfStream(body: AsyncIterable<Uint8Array>, mediaType: string, options: Cap): Promise<GraphResult> {
  const capped = new CappedGraph(options);
  for await (const quad of oxigraph.parse(body, { format: mediaType, lenient: true })) if (!capped.add(quad)) break;
  return capped.result(options.format);
}

/** Parses an RDF document; throws on text that is not `mediaType`. */
export function parseTriples(text: string, mediaType: string): Quad[] {
  return oxigraph.parse(text, { format: mediaType, lenient: true });
}
