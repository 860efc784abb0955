/**
 * @module graph/graph-results
 * SPARQL 1.1 JSON results text to rows. Graph processes send the engine's JSON text unparsed, so it
 * is parsed once, by the server, instead of parsed, re-serialized for IPC and parsed again; graph
 * answers (CONSTRUCT, DESCRIBE) cross as their document behind a one-line header.
 */
import type { GraphResult, SelectResult, Term } from "./protocol.ts";

interface SparqlJson {
  head: { vars?: string[] };
  boolean?: boolean;
  results?: { bindings: Record<string, Term>[] };
}

export function parseResults(text: string): SelectResult {
  const json = JSON.parse(text) as SparqlJson;
  if (typeof json.boolean === "boolean") return { variables: [], rows: [], boolean: json.boolean };
  return { variables: json.head.vars ?? [], rows: json.results?.bindings ?? [] };
}

/**
 * A graph answer on the wire from a graph process: one header line (`<triples> <truncated 0|1>`)
 * then the document, so the document is never escaped into JSON and parsed back.
 */
export function encodeGraphResult(result: GraphResult): string {
  return `${result.triples} ${result.truncated ? 1 : 0}\n${result.text}`;
}

export function decodeGraphResult(wire: string): GraphResult {
  const newline = wire.indexOf("\n");
  const [triples, truncated] = wire.slice(0, newline).split(" ");
  return { triples: Number(triples), truncated: truncated === "1", text: wire.slice(newline + 1) };
}
