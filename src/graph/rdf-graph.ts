/**
 * @module graph/rdf-graph
 * CONSTRUCT and DESCRIBE answers as documents: the engine's triples made a set (an RDF graph has no
 * duplicates, and Oxigraph's CONSTRUCT repeats a triple each solution makes), capped at a number of
 * distinct triples, and written by Oxigraph's own serializers (Turtle, N-Triples, RDF/XML,
 * JSON-LD). Used by the graph processes on their own answers and by the server on an external
 * store's (remote-store.ts), so both write the same documents.
 *
 * Triples travel as N-Triples lines, not as Oxigraph's JavaScript terms: every property of a term
 * is a call into WebAssembly that makes a new object, about 60 µs a triple to count and keep them,
 * where Oxigraph writing the lines in one call and a Set of strings take a few.
 */
import { SOLUTION_MARKER } from "./construct-cap.ts";
import { oxigraph, type Quad } from "./oxigraph.ts";
import { RDF_FORMATS, type GraphResult, type RdfFormat } from "./protocol.ts";

interface Cap {
  format: RdfFormat;
  maxTriples: number;
  solutionCap?: number;
}

const MARKER = `<${SOLUTION_MARKER}>`;

/**
 * Distinct N-Triples lines gathered up to a cap: `add` says false once one more than the cap was
 * offered. The solution markers of a capped CONSTRUCT (construct-cap.ts) are counted, not kept.
 */
class CappedTriples {
  private readonly lines = new Set<string>();
  private solutions = 0;
  private truncated = false;

  constructor(private readonly cap: Cap) {}

  add(raw: string): boolean {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return true;
    if (isMarker(line)) {
      if (++this.solutions >= (this.cap.solutionCap ?? Number.POSITIVE_INFINITY)) this.truncated = true;
      return true;
    }
    if (this.lines.has(line)) return true;
    if (this.lines.size >= this.cap.maxTriples) {
      this.truncated = true;
      return false;
    }
    this.lines.add(line);
    return true;
  }

  /**
   * The document. `canonical`: the lines are Oxigraph's own N-Triples (one way to write each term),
   * so they are the N-Triples document already; another store's are rewritten (and a triple written
   * two ways counted once).
   */
  result(canonical: boolean): GraphResult {
    const ntriples = this.lines.size === 0 ? "" : `${[...this.lines].join("\n")}\n`;
    if (canonical && this.cap.format === "n-triples") return { text: ntriples, triples: this.lines.size, truncated: this.truncated };
    const graph = new oxigraph.Store();
    graph.load(ntriples, { format: RDF_FORMATS["n-triples"], lenient: true });
    const text = graph.dump({ format: RDF_FORMATS[this.cap.format], from_graph_name: oxigraph.defaultGraph() });
    return { text, triples: graph.size, truncated: this.truncated };
  }
}

/** A marker triple: a blank node subject, then the marker predicate. */
function isMarker(line: string): boolean {
  if (!line.startsWith("_:")) return false;
  const space = line.search(/[ \t]/);
  return space > 0 && line.slice(space).trimStart().startsWith(MARKER);
}

/** An engine's CONSTRUCT answer written as N-Triples by Oxigraph (graph-process.ts): capped and written. */
export function graphResultOfNTriples(ntriples: string, cap: Cap): GraphResult {
  const capped = new CappedTriples(cap);
  let start = 0;
  while (start < ntriples.length) {
    const end = ntriples.indexOf("\n", start);
    const line = ntriples.slice(start, end < 0 ? ntriples.length : end);
    if (!capped.add(line)) break;
    start = end < 0 ? ntriples.length : end + 1;
  }
  return capped.result(true);
}

/**
 * An external store's answer as it arrives: N-Triples read line by line and left unread past the
 * cap (a store that sends a million triples costs the first 10,001 lines); any other RDF format
 * (a store that writes no N-Triples) parsed whole by Oxigraph.
 */
export async function graphResultOfStream(body: AsyncIterable<Uint8Array>, mediaType: string, cap: Cap): Promise<GraphResult> {
  const capped = new CappedTriples(cap);
  if (mediaType !== RDF_FORMATS["n-triples"] && mediaType !== "text/plain") {
    let text = "";
    const decoder = new TextDecoder();
    for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
    for (const quad of parseTriples(text, mediaType)) if (!capped.add(`${tripleOf(quad)} .`)) break;
    return capped.result(false);
  }
  const decoder = new TextDecoder();
  let rest = "";
  reading: for await (const chunk of body) {
    rest += decoder.decode(chunk, { stream: true });
    let newline = rest.indexOf("\n");
    while (newline >= 0) {
      if (!capped.add(rest.slice(0, newline))) break reading;
      rest = rest.slice(newline + 1);
      newline = rest.indexOf("\n");
    }
  }
  if (rest !== "") capped.add(rest);
  return capped.result(false);
}

/** Any RDF document rewritten in `format` (the service description in another format). */
export function rewrite(text: string, mediaType: string, format: RdfFormat): string {
  const capped = new CappedTriples({ format, maxTriples: Number.POSITIVE_INFINITY });
  for (const quad of parseTriples(text, mediaType)) capped.add(`${tripleOf(quad)} .`);
  return capped.result(false).text;
}

function parseTriples(text: string, mediaType: string): Quad[] {
  return oxigraph.parse(text, { format: mediaType, lenient: true });
}

/** A parsed quad as an N-Triples triple (its graph dropped: answers are triples). */
function tripleOf(quad: Quad): string {
  return oxigraph.triple(quad.subject, quad.predicate, quad.object).toString();
}
