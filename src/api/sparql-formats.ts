/**
 * @module api/sparql-formats
 * The answer formats of /sparql and how one is chosen from `Accept` (RFC 9110: q-values, `type/*`
 * and `*\/*`, the most specific range deciding a type's weight; a tie goes to the type named
 * rather than covered by a wildcard, then to the first listed here). SELECT and ASK answer SPARQL
 * Query Results JSON, XML, CSV or TSV; CONSTRUCT and DESCRIBE an RDF document. A request accepting
 * none of them gets the default (JSON results, Turtle) rather than 406: clients that send
 * `text/html` or nothing still get an answer.
 */
import { RDF_FORMATS, type RdfFormat, type SparqlAnswer, type Term } from "../operations/sparql-answers.ts";
import { askXml, selectXml } from "./sparql-results-xml.ts";

export const RESULT_FORMATS = {
  json: "application/sparql-results+json",
  xml: "application/sparql-results+xml",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
} as const;
export type ResultFormat = keyof typeof RESULT_FORMATS;

/** Media types each result format answers to, in the server's order of preference. */
const RESULT_TYPES: [string, ResultFormat][] = [
  [RESULT_FORMATS.json, "json"],
  [RESULT_FORMATS.xml, "xml"],
  [RESULT_FORMATS.csv, "csv"],
  [RESULT_FORMATS.tsv, "tsv"],
  ["application/json", "json"],
  ["application/xml", "xml"],
  ["text/xml", "xml"],
];
/** ASK: CSV and TSV have no boolean form. */
const BOOLEAN_TYPES = RESULT_TYPES.filter(([, format]) => format === "json" || format === "xml");

/** The same for graphs: N3 clients read Turtle (a subset of N3); `text/plain` is N-Triples' old name. */
const RDF_TYPES: [string, RdfFormat][] = [
  [RDF_FORMATS.turtle, "turtle"],
  [RDF_FORMATS["n-triples"], "n-triples"],
  [RDF_FORMATS["rdf-xml"], "rdf-xml"],
  [RDF_FORMATS["json-ld"], "json-ld"],
  ["application/x-turtle", "turtle"],
  ["text/n3", "turtle"],
  ["text/rdf+n3", "turtle"],
  ["text/plain", "n-triples"],
  ["application/xml", "rdf-xml"],
  ["application/json", "json-ld"],
];

interface Range {
  type: string;
  subtype: string;
  q: number;
}

function ranges(accept: string | null): Range[] {
  const out: Range[] = [];
  for (const part of (accept ?? "").split(",")) {
    const [range, ...params] = part.trim().toLowerCase().split(";");
    const [type, subtype] = (range ?? "").trim().split("/");
    if (!type || !subtype) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    out.push({ type, subtype, q: Number.isFinite(q) ? Math.min(1, Math.max(0, q)) : 0 });
  }
  return out;
}

/** The weight `accept` gives a media type: that of the most specific range matching it (q 0: not acceptable). */
function weight(mediaType: string, accepted: Range[]): { q: number; specificity: number } {
  const [type, subtype] = mediaType.split("/");
  let best = { specificity: -1, q: 0 };
  for (const range of accepted) {
    const specificity = range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === "*" ? 1 : range.type === "*" ? 0 : -1;
    if (specificity > best.specificity) best = { specificity, q: range.q };
  }
  return best;
}

/** The format of `types` the client weighs most; `fallback` when it accepts none (or sends no Accept). */
function negotiate<F extends string>(accept: string | null, types: readonly [string, F][], fallback: F): { format: F; mediaType: string } {
  const accepted = ranges(accept);
  let best: { format: F; mediaType: string; q: number; specificity: number } | undefined;
  for (const [mediaType, format] of types) {
    const { q, specificity } = weight(mediaType, accepted);
    // Equal weights: a type the client named beats one its wildcard covers.
    if (q > 0 && (!best || q > best.q || (q === best.q && specificity > best.specificity))) best = { format, mediaType, q, specificity };
  }
  if (best) return best;
  return { format: fallback, mediaType: types.find(([, f]) => f === fallback)![0] };
}

export const negotiateResults = (accept: string | null, boolean: boolean) => negotiate(accept, boolean ? BOOLEAN_TYPES : RESULT_TYPES, "json");
export const negotiateGraph = (accept: string | null) => negotiate(accept, RDF_TYPES, "turtle");

/** A SELECT or ASK answer (typed terms) in a result format: the body and its Content-Type. */
export function writeResults(answer: SparqlAnswer, format: ResultFormat): { contentType: string; body: string } {
  const rows = answer.data as Record<string, Term>[];
  if (format === "xml") {
    return { contentType: `${RESULT_FORMATS.xml}; charset=utf-8`, body: answer.boolean === undefined ? selectXml(answer.variables, rows) : askXml(answer.boolean) };
  }
  if (format === "csv") {
    const lines = [answer.variables.map(csvField), ...rows.map((row) => answer.variables.map((v) => csvField(row[v] ? row[v]!.value : "")))];
    return { contentType: `${RESULT_FORMATS.csv}; charset=utf-8`, body: lines.map((fields) => `${fields.join(",")}\r\n`).join("") };
  }
  if (format === "tsv") {
    const lines = [answer.variables.map((v) => `?${v}`), ...rows.map((row) => answer.variables.map((v) => (row[v] ? tsvTerm(row[v]!) : "")))];
    return { contentType: `${RESULT_FORMATS.tsv}; charset=utf-8`, body: lines.map((fields) => `${fields.join("\t")}\n`).join("") };
  }
  const body = answer.boolean === undefined ? { head: { vars: answer.variables }, results: { bindings: rows } } : { head: {}, boolean: answer.boolean };
  return { contentType: RESULT_FORMATS.json, body: JSON.stringify(body) };
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
