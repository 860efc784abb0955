/**
 * @module graph/protocol
 * Messages between the server and its graph processes (sent over graph-channel.ts). Oxigraph runs
 * in a child process, not a Worker: a SPARQL query is one synchronous WebAssembly call, and Bun
 * cannot interrupt WebAssembly in a Worker (terminate() returns while the thread keeps computing).
 * A process can be killed.
 */
import type { ErrorCode } from "../errors.ts";

/** An RDF term as the server sees it. */
export type Term =
  | { type: "uri"; value: string }
  | { type: "bnode"; value: string }
  | { type: "literal"; value: string; datatype?: string; "xml:lang"?: string };

export interface SelectResult {
  /** SELECT: the projected variables; ASK: []. */
  variables: string[];
  /** One object per solution, keyed by variable; unbound variables are absent. */
  rows: Record<string, Term>[];
  /** ASK queries answer a boolean instead of rows. */
  boolean?: boolean;
}

export type GraphRequest =
  | { kind: "load"; id: number; file: string }
  | { kind: "select"; id: number; query: string };

/** The payload of an error frame. */
export interface GraphError {
  code: ErrorCode;
  message: string;
}
