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

/**
 * A dataset the request names (SPARQL 1.1 Protocol `default-graph-uri` / `named-graph-uri`): the
 * merge of `defaultGraphs` is the default graph and `namedGraphs` alone are seen by GRAPH.
 */
export interface Dataset {
  defaultGraphs: string[];
  namedGraphs: string[];
}

/**
 * Which dataset a query reads: the one the request named, else the query's own FROM / FROM NAMED
 * (`fromQuery`), else ckg's default, every graph with their union as the default graph.
 */
export interface QueryScope {
  dataset?: Dataset;
  fromQuery?: boolean;
}

/** The RDF formats CONSTRUCT and DESCRIBE answers are written in. */
export const RDF_FORMATS = {
  turtle: "text/turtle",
  "n-triples": "application/n-triples",
  "rdf-xml": "application/rdf+xml",
  "json-ld": "application/ld+json",
} as const;
export type RdfFormat = keyof typeof RDF_FORMATS;

/** A CONSTRUCT or DESCRIBE answer: the (capped) triples written in the format asked for. */
export interface GraphResult {
  text: string;
  /** Distinct triples written. */
  triples: number;
  /** The query gave more than `maxTriples` distinct triples; the rest were left out. */
  truncated: boolean;
}

export interface ConstructOptions extends QueryScope {
  format: RdfFormat;
  maxTriples: number;
  /** The query's solutions were capped at this many, each marked (graph/construct-cap.ts): as many markers means more were left out. */
  solutionCap?: number;
}

export type GraphRequest =
  | { kind: "load"; id: number; file: string }
  | ({ kind: "select"; id: number; query: string } & QueryScope)
  | ({ kind: "construct"; id: number; query: string } & ConstructOptions);

/** The payload of an error frame. */
export interface GraphError {
  code: ErrorCode;
  message: string;
}
