/**
 * @module graph/sparql
 * The read-only SPARQL endpoint's logic: refuse updates and SERVICE, cap SELECT's rows (LIMIT
 * max+1, so truncation is known) and CONSTRUCT's solutions and triples (construct-cap.ts: the same
 * number), rewrite DESCRIBE into the CONSTRUCT it means here (describe.ts), then run it on the
 * graph store and shape the answer.
 *
 * Answer rows are objects keyed by variable. By default values are plain JSON: IRIs and blank
 * nodes (`_:b0`) as strings, numeric literals as numbers, booleans as booleans, every other literal
 * as its lexical string. With `typed: true` each value is the SPARQL 1.1 JSON term
 * (`{type, value, datatype, xml:lang}`). CONSTRUCT and DESCRIBE answer a graph: JSON-LD node
 * objects in `@graph` (the answer is then a JSON-LD document), or the document as text in `rdf` in
 * another RDF format.
 */
import { Generator, Parser, type SparqlQuery } from "sparqljs";
import { z } from "zod";
import { CkgError, isCkgError } from "../errors.ts";
import { capSolutions } from "./construct-cap.ts";
import { describeAsConstruct } from "./describe.ts";
import type { AnalyticSparql, SparqlEngine } from "./analytic/analytic-sparql.ts";
import type { GraphStore } from "./graph-store.ts";
import { type Dataset, type GraphResult, RDF_FORMATS, type RdfFormat, type SelectResult, type Term } from "./protocol.ts";
import { type Scan, scanQuery } from "./sparql-guard.ts";
import { OWL, RDFS, SCHEMA, XSD, type Namespaces } from "../entities/vocabulary.ts";

export const MAX_ROWS = 10_000;
/**
 * CONSTRUCT and DESCRIBE: at most this many distinct triples, like SELECT's rows.
 * @alias MAX_ROWS under the name the CONSTRUCT limit is read by (knip: a second name on purpose).
 */
export const MAX_TRIPLES = MAX_ROWS;

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

const RDF_FORMAT_NAMES = Object.keys(RDF_FORMATS) as [RdfFormat, ...RdfFormat[]];
export const rdfFormatSchema = z.enum(RDF_FORMAT_NAMES);

export const graphAnswerSchema = z.object({
  status: z.literal("success"),
  form: z.enum(["CONSTRUCT", "DESCRIBE"]),
  format: rdfFormatSchema,
  /** Distinct triples in the answer. */
  count: z.number().int(),
  truncated: z.boolean(),
  /** json-ld: the node objects (the answer is a JSON-LD document). */
  "@graph": z.array(z.record(z.string(), z.unknown())).optional(),
  /** Any other format: the document. */
  rdf: z.string().optional(),
});
export type GraphAnswer = z.infer<typeof graphAnswerSchema>;

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

/** The full SPARQL parser, with the default prefixes and entity base every query gets. */
function parser(ns: Namespaces): InstanceType<typeof Parser> {
  return new Parser({ prefixes: defaultPrefixes(ns), baseIRI: ns.entity });
}

const UPDATE_START = /^\s*(?:(?:PREFIX\s+\S*:\s*<[^>]*>|BASE\s+<[^>]*>)\s*)*(INSERT|DELETE|LOAD|CLEAR|CREATE|DROP|COPY|MOVE|ADD|WITH)\b/i;

export interface PreparedQuery {
  /** The text sent to the graph: one prologue line, then the (row-capped) query; DESCRIBE as its CONSTRUCT. */
  query: string;
  form: "SELECT" | "ASK" | "CONSTRUCT" | "DESCRIBE";
  /** The query names its own dataset (FROM): it runs on that, not on the union of every graph. */
  fromQuery: boolean;
  /** CONSTRUCT, DESCRIBE: the solutions were capped at this many, each marked (construct-cap.ts). */
  solutionCap?: number;
  /** The user's own text and what it was prepared with: an engine error is explained on them. */
  text: string;
  ns: Namespaces;
  maxRows: number;
}

/** Each snapshot's prologue, written once: every SPARQL request puts it before its query. */
const prologues = new WeakMap<Namespaces, string>();

/** BASE and default prefixes on one line before the user's query; the user's own declarations override them. */
function prologue(ns: Namespaces): string {
  let text = prologues.get(ns);
  if (text === undefined) {
    const prefixes = Object.entries(defaultPrefixes(ns)).map(([name, iri]) => `PREFIX ${name}: <${iri}>`);
    text = `BASE <${ns.entity}> ${prefixes.join(" ")}`;
    prologues.set(ns, text);
  }
  return text;
}

/**
 * Checks a query and caps its rows; throws the documented 400/403 errors. The fast lexer guard
 * handles ordinary queries; what it does not follow goes through the full sparqljs parser.
 */
export function prepareQuery(text: string, ns: Namespaces, maxRows = MAX_ROWS): PreparedQuery {
  const scanned = scanQuery(text, maxRows);
  // CONSTRUCT and DESCRIBE are rewritten (construct-cap.ts, describe.ts) from the full parse.
  const scan = scanned && scanned.form !== "CONSTRUCT" && scanned.form !== "DESCRIBE" ? scanned : parseQuery(text, ns, maxRows);
  if (scan.form === "UPDATE") throw readOnly();
  if (scan.usesService) {
    throw new CkgError("read_only", "SERVICE is not allowed: queries run on this graph only and never reach the network.");
  }
  return { query: `${prologue(ns)}\n${scan.capped}`, form: scan.form, fromQuery: scan.fromQuery, solutionCap: scan.solutionCap, text, ns, maxRows };
}

/** The slow path: a full parse (sparqljs), for text the lexer guard does not follow. */
function parseQuery(text: string, ns: Namespaces, maxRows: number): Scan {
  let parsed: SparqlQuery;
  try {
    parsed = parser(ns).parse(text);
  } catch (error) {
    if (UPDATE_START.test(text.replace(/#[^\n<>"']*$/gm, ""))) throw readOnly();
    throw syntaxError(error as Error & { hash?: ParseHash });
  }
  if (parsed.type === "update") return { form: "UPDATE", usesService: false, fromQuery: false, capped: text };
  if (parsed.queryType === "SELECT" && (parsed.limit === undefined || parsed.limit > maxRows)) parsed.limit = maxRows + 1;
  const fromQuery = (parsed.from?.default.length ?? 0) + (parsed.from?.named.length ?? 0) > 0;
  const sent = parsed.queryType === "DESCRIBE" ? describeAsConstruct(parsed) : parsed;
  const solutionCap = sent.queryType === "CONSTRUCT" ? capSolutions(sent, maxRows) : undefined;
  // The parser resolved relative IRIs already; a BASE written after the prefixes (where the
  // generator puts it, behind ckg's prologue) is a syntax error to Virtuoso.
  delete sent.base;
  return { form: parsed.queryType, usesService: containsService(parsed), fromQuery, solutionCap, capped: new Generator().stringify(sent) };
}

/**
 * Explains a query the engine refused. Oxigraph's positions point at the end of what it read, not
 * at the mistake, so syntax errors are located by the full parser on the user's own text.
 */
export function explainEngineError(text: string, ns: Namespaces, message: string): CkgError {
  try {
    parser(ns).parse(text);
  } catch (error) {
    return syntaxError(error as Error & { hash?: ParseHash });
  }
  return new CkgError("invalid_sparql", `SPARQL error: ${message.replace(/^error at \d+:\d+: /, "")}`, { details: { engine: message } });
}

export interface RunOptions {
  timeoutMs: number;
  /** Analytic SPARQL on DuckDB for the same snapshot: a SELECT it translates runs there. */
  analytic?: AnalyticSparql;
  /** Told which engine answered (its log line and /metrics). */
  onEngine?: (engine: SparqlEngine, seconds: number) => void;
  typed: boolean;
  snapshotId?: string;
  /** The dataset the request named (checked against the snapshot's graphs by the sparql operation). */
  dataset?: Dataset;
  /** CONSTRUCT and DESCRIBE: the format of the graph (JSON-LD unless said). */
  rdfFormat?: RdfFormat;
}

/** Runs a prepared query (prepareQuery) on the graph store and shapes the answer. */
export async function runSparql(graph: GraphStore, prepared: PreparedQuery, options: RunOptions): Promise<SparqlAnswer | GraphAnswer> {
  const scope = { dataset: options.dataset, fromQuery: prepared.fromQuery };
  try {
    if (prepared.form === "CONSTRUCT" || prepared.form === "DESCRIBE") {
      const format = options.rdfFormat ?? "json-ld";
      const cap = { format, maxTriples: prepared.maxRows, solutionCap: prepared.solutionCap };
      const result = await graph.construct(prepared.query, { ...scope, ...cap }, options.timeoutMs, options.snapshotId);
      return graphAnswer(result, prepared.form, format);
    }
    const started = performance.now();
    const plan = prepared.form === "SELECT" && !options.dataset ? options.analytic?.plan(prepared.text, () => parser(prepared.ns).parse(prepared.text), prepared.maxRows) : undefined;
    const result = plan ? await options.analytic!.run(plan, options.timeoutMs) : await graph.select(prepared.query, options.timeoutMs, options.snapshotId, scope);
    options.onEngine?.(plan ? "duckdb" : "oxigraph", (performance.now() - started) / 1000);
    return shapeAnswer(result, { typed: options.typed, maxRows: prepared.maxRows });
  } catch (error) {
    throw isCkgError(error) && error.code === "invalid_sparql" ? explainEngineError(prepared.text, prepared.ns, error.message) : error;
  }
}

/** A graph result as the answer of POST /api/sparql: JSON-LD's node objects as `@graph`, another format's document as `rdf`. */
export function graphAnswer(result: GraphResult, form: "CONSTRUCT" | "DESCRIBE", format: RdfFormat): GraphAnswer {
  const answer: GraphAnswer = { status: "success", form, format, count: result.triples, truncated: result.truncated };
  if (format === "json-ld") answer["@graph"] = JSON.parse(result.text) as Record<string, unknown>[];
  else answer.rdf = result.text;
  return answer;
}

/** The engine's result as the answer of POST /api/sparql (also `ckg sparql`'s output). */
export function shapeAnswer(result: SelectResult, options: { typed: boolean; maxRows: number }): SparqlAnswer {
  if (result.boolean !== undefined) {
    return { status: "success", variables: ["boolean"], data: [{ boolean: result.boolean }], count: 1, truncated: false, boolean: result.boolean };
  }
  const truncated = result.rows.length > options.maxRows;
  const rows = truncated ? result.rows.slice(0, options.maxRows) : result.rows;
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
export function plainValue(term: Term): string | number | boolean {
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
  return new CkgError("read_only", "Only queries (SELECT, ASK, CONSTRUCT, DESCRIBE) are allowed; this endpoint never changes the graph.");
}

function containsService(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(containsService);
  if (node && typeof node === "object") {
    if ((node as { type?: string }).type === "service") return true;
    return Object.values(node).some(containsService);
  }
  return false;
}
