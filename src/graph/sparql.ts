/**
 * @module graph/sparql
 * The read-only SPARQL endpoint's logic: parse the query (sparqljs) to refuse anything but SELECT
 * and ASK, refuse SERVICE, cap the rows (LIMIT max+1, so truncation is known), then run it on the
 * graph processes and shape the answer.
 *
 * Answer rows are objects keyed by variable. By default values are plain JSON: IRIs and blank
 * nodes (`_:b0`) as strings, numeric literals as numbers, booleans as booleans, every other literal
 * as its lexical string. With `typed: true` each value is the SPARQL 1.1 JSON term
 * (`{type, value, datatype, xml:lang}`).
 */
import { Generator, Parser, type SparqlQuery } from "sparqljs";
import { z } from "zod";
import { CkgError } from "../errors.ts";
import type { GraphPool } from "./graph-pool.ts";
import type { SelectResult, Term } from "./protocol.ts";
import { OWL, RDFS, SCHEMA, XSD, type Namespaces } from "./vocabulary.ts";

export const MAX_ROWS = 10_000;

export const sparqlAnswerSchema = z.object({
  status: z.literal("success"),
  variables: z.array(z.string()),
  data: z.array(z.record(z.string(), z.unknown())),
  count: z.number().int(),
  truncated: z.boolean(),
  /** ASK queries. */
  boolean: z.boolean().optional(),
});
export type SparqlAnswer = z.infer<typeof sparqlAnswerSchema>;

/** Prefixes every query may use without declaring them. */
export function defaultPrefixes(ns: Namespaces): Record<string, string> {
  return {
    ckg: ns.ontology,
    schema: SCHEMA,
    rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    rdfs: RDFS,
    xsd: XSD,
    owl: OWL,
    source: ns.source,
  };
}

const UPDATE_START = /^\s*(?:(?:PREFIX\s+\S*:\s*<[^>]*>|BASE\s+<[^>]*>)\s*)*(INSERT|DELETE|LOAD|CLEAR|CREATE|DROP|COPY|MOVE|ADD|WITH)\b/i;

/** Checks a query and rewrites it with the row cap; throws the documented 400/403 errors. */
export function prepareQuery(text: string, ns: Namespaces, maxRows = MAX_ROWS): { query: string; form: "SELECT" | "ASK" } {
  const withoutComments = text.replace(/#[^\n<>"']*$/gm, "");
  let parsed: SparqlQuery;
  try {
    parsed = new Parser({ prefixes: defaultPrefixes(ns), baseIRI: ns.entity }).parse(text);
  } catch (error) {
    if (UPDATE_START.test(withoutComments)) throw readOnly();
    throw syntaxError(error as Error & { hash?: ParseHash });
  }
  if (parsed.type === "update") throw readOnly();
  if (parsed.queryType !== "SELECT" && parsed.queryType !== "ASK") {
    throw new CkgError("invalid_sparql", `${parsed.queryType} queries are not supported; use SELECT (or ASK).`, {
      details: { query_type: parsed.queryType },
    });
  }
  if (containsService(parsed)) {
    throw new CkgError("read_only", "SERVICE is not allowed: queries run on this graph only and never reach the network.");
  }
  if (parsed.queryType === "SELECT" && (parsed.limit === undefined || parsed.limit > maxRows)) parsed.limit = maxRows + 1;
  return { query: new Generator().stringify(parsed), form: parsed.queryType };
}

export async function runSparql(
  graph: GraphPool,
  text: string,
  options: { ns: Namespaces; timeoutMs: number; typed: boolean; maxRows?: number },
): Promise<SparqlAnswer> {
  const maxRows = options.maxRows ?? MAX_ROWS;
  const { query } = prepareQuery(text, options.ns, maxRows);
  const result: SelectResult = await graph.select(query, options.timeoutMs);
  if (result.boolean !== undefined) {
    return { status: "success", variables: ["boolean"], data: [{ boolean: result.boolean }], count: 1, truncated: false, boolean: result.boolean };
  }
  const truncated = result.rows.length > maxRows;
  const rows = truncated ? result.rows.slice(0, maxRows) : result.rows;
  const data = rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const variable of result.variables) {
      const term = row[variable];
      if (term !== undefined) out[variable] = options.typed ? term : plainValue(term);
    }
    return out;
  });
  return { status: "success", variables: result.variables, data, count: data.length, truncated };
}

const NUMERIC = new Set(
  ["integer", "decimal", "double", "float", "long", "int", "short", "byte", "nonNegativeInteger", "positiveInteger", "negativeInteger", "nonPositiveInteger", "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte"].map(
    (t) => `${XSD}${t}`,
  ),
);

/** A term as plain JSON: numbers stay numbers when they fit a double exactly, else strings. */
export function plainValue(term: Term): unknown {
  if (term.type === "uri") return term.value;
  if (term.type === "bnode") return `_:${term.value}`;
  if (term.datatype && NUMERIC.has(term.datatype)) {
    const n = Number(term.value);
    const exact = Number.isFinite(n) && (!/^[+-]?\d+$/.test(term.value) || Number.isSafeInteger(n));
    return exact ? n : term.value;
  }
  if (term.datatype === `${XSD}boolean`) return term.value === "true" || term.value === "1";
  return term.value;
}

interface ParseHash {
  line?: number;
  loc?: { first_line: number; first_column: number };
  expected?: string[];
  token?: string;
}

function syntaxError(error: Error & { hash?: ParseHash }): CkgError {
  const loc = error.hash?.loc;
  const firstLine = error.message.split("\n")[0] ?? "syntax error";
  const position = loc ? { line: loc.first_line, column: loc.first_column + 1 } : undefined;
  const expected = error.hash?.expected?.slice(0, 12).map((e) => e.replaceAll("'", ""));
  const message = position
    ? `SPARQL syntax error at line ${position.line}, column ${position.column}${expected?.length ? `: expected one of ${expected.join(", ")}` : ""}.`
    : `SPARQL error: ${firstLine}`;
  return new CkgError("invalid_sparql", message, { details: { ...position, expected, parser: error.message } });
}

function readOnly(): CkgError {
  return new CkgError("read_only", "Only SELECT and ASK queries are allowed; this endpoint never changes the graph.");
}

function containsService(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(containsService);
  if (node && typeof node === "object") {
    if ((node as { type?: string }).type === "service") return true;
    return Object.values(node).some(containsService);
  }
  return false;
}
