/**
 * @module api/sparql-protocol
 * The SPARQL 1.1 Protocol at /sparql, so SPARQL clients (YASGUI, rdflib, Jena, Comunica) work
 * against ckg unchanged: the query from `?query=` (GET), an `application/sparql-query` body or an
 * `application/x-www-form-urlencoded` body (POST), answered as SPARQL 1.1 Query Results JSON, CSV
 * or TSV by Accept. The query runs through the `sparql` operation (same guard, limits, time limit,
 * price and payment) with typed terms; this module only reads the request and writes the result
 * formats. Errors keep ckg's JSON error shape.
 */
import { CkgError } from "../errors.ts";
import type { SparqlAnswer } from "../graph/sparql.ts";
import type { Term } from "../graph/protocol.ts";
import { MAX_BODY_BYTES, readTextBody } from "./body.ts";

export const SPARQL_PROTOCOL_PATH = "/sparql";

const FORMATS = {
  json: "application/sparql-results+json",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
} as const;

/** The query text of a protocol request (GET or POST); 400 when there is none or it is not a query. */
export async function protocolQuery(request: Request): Promise<string> {
  let params: URLSearchParams;
  if (request.method === "GET") {
    params = new URL(request.url).searchParams;
  } else {
    const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    const body = await readTextBody(request, MAX_BODY_BYTES);
    if (type === "application/sparql-query") return nonEmpty(body);
    if (type === "application/sparql-update") throw readOnly();
    if (type !== "application/x-www-form-urlencoded") {
      throw new CkgError(
        "invalid_request",
        `POST /sparql takes a body of type application/sparql-query or application/x-www-form-urlencoded (query=...), not ${type || "none"}.`,
        { details: { content_type: type || null } },
      );
    }
    params = new URLSearchParams(body);
  }
  if (params.has("update")) throw readOnly();
  for (const unsupported of ["default-graph-uri", "named-graph-uri"]) {
    if (params.has(unsupported)) {
      throw new CkgError("invalid_request", `${unsupported} is not supported: the default graph is the union of all sources; use GRAPH ?g { ... } to name one.`, {
        details: { field: unsupported },
      });
    }
  }
  const queries = params.getAll("query");
  if (queries.length !== 1) {
    throw new CkgError("invalid_request", queries.length === 0 ? "Give the SPARQL query as the query parameter." : "Give the query parameter once.", {
      details: { field: "query" },
    });
  }
  return nonEmpty(queries[0]!);
}

function nonEmpty(query: string): string {
  if (query.trim() === "") throw new CkgError("invalid_request", "The query is empty.", { details: { field: "query" } });
  return query;
}

function readOnly(): CkgError {
  return new CkgError("read_only", "The SPARQL endpoint is read-only: updates are refused.");
}

/** The format the client accepts most (q-values weigh; JSON when it names none of the three). */
export function negotiate(accept: string | null): keyof typeof FORMATS {
  let best: { format: keyof typeof FORMATS; q: number } = { format: "json", q: -1 };
  for (const part of (accept ?? "").split(",")) {
    const [range, ...params] = part.trim().toLowerCase().split(";");
    const q = Number(params.find((p) => p.trim().startsWith("q="))?.split("=")[1] ?? 1);
    const format = range === FORMATS.csv ? "csv" : range === FORMATS.tsv ? "tsv" : range === FORMATS.json || range === "application/json" ? "json" : undefined;
    if (format && q > best.q) best = { format, q };
  }
  return best.format;
}

/** The answer in the negotiated format. ASK answers are JSON whatever is asked: CSV and TSV have no boolean form. */
export function protocolResponse(answer: SparqlAnswer, accept: string | null): { contentType: string; body: string } {
  const format = answer.boolean === undefined ? negotiate(accept) : "json";
  const rows = answer.data as Record<string, Term>[];
  if (format === "csv") {
    const lines = [answer.variables.map(csvField), ...rows.map((row) => answer.variables.map((v) => csvField(row[v] ? row[v]!.value : "")))];
    return { contentType: `${FORMATS.csv}; charset=utf-8`, body: lines.map((fields) => `${fields.join(",")}\r\n`).join("") };
  }
  if (format === "tsv") {
    const lines = [answer.variables.map((v) => `?${v}`), ...rows.map((row) => answer.variables.map((v) => (row[v] ? tsvTerm(row[v]!) : "")))];
    return { contentType: `${FORMATS.tsv}; charset=utf-8`, body: lines.map((fields) => `${fields.join("\t")}\n`).join("") };
  }
  const body =
    answer.boolean === undefined ? { head: { vars: answer.variables }, results: { bindings: rows } } : { head: {}, boolean: answer.boolean };
  return { contentType: FORMATS.json, body: JSON.stringify(body) };
}

/** A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A term in the TSV results format: IRIs in <>, blank nodes as _:, literals quoted and escaped with their datatype or language. */
function tsvTerm(term: Term): string {
  if (term.type === "uri") return `<${term.value}>`;
  if (term.type === "bnode") return `_:${term.value}`;
  const escaped = term.value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n").replaceAll("\r", "\\r").replaceAll("\t", "\\t");
  if (term["xml:lang"]) return `"${escaped}"@${term["xml:lang"]}`;
  if (term.datatype && term.datatype !== "http://www.w3.org/2001/XMLSchema#string") return `"${escaped}"^^<${term.datatype}>`;
  return `"${escaped}"`;
}
