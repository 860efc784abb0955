/**
 * @module operations/sparql-answers
 * The sparql operation's answers as the SPARQL 1.1 Protocol writes them (api/sparql-*.ts): their
 * types and RDF terms, the RDF formats a graph answer comes in, the graphs a request's dataset may
 * name, and an RDF document rewritten in another format (the service description is written as
 * Turtle). The protocol reaches graph/ and store/ only through here and the operation itself.
 */
import type { RdfFormat } from "../graph/protocol.ts";

export type { GraphAnswer, SparqlAnswer } from "../graph/sparql.ts";
export { RDF_FORMATS, type RdfFormat, type Term } from "../graph/protocol.ts";
/** The graphs a request's dataset may name: the live snapshot's named graphs. */
export { snapshotGraphs } from "../store/manifest.ts";

/** `text`, an RDF document of `mediaType`, written in `format`. Oxigraph's parser loads on first use: a server never asked does not load it. */
export async function rewriteRdf(text: string, mediaType: string, format: RdfFormat): Promise<string> {
  const { rewrite } = await import("../graph/rdf-graph.ts");
  return rewrite(text, mediaType, format);
}
