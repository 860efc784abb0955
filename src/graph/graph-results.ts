/**
 * @module graph/graph-results
 * SPARQL 1.1 JSON results text to rows. Graph processes send the engine's JSON text unparsed, so it
 * is parsed once, by the server, instead of parsed, re-serialized for IPC and parsed again.
 */
import type { SelectResult, Term } from "./protocol.ts";

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
