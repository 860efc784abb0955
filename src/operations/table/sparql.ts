import { z } from "zod";
import { CkgError } from "../../errors.ts";
import type { Dataset } from "../../graph/protocol.ts";
import { MAX_ROWS, MAX_TRIPLES, graphAnswerSchema, prepareQuery, rdfFormatSchema, runSparql, sparqlAnswerSchema } from "../../graph/sparql.ts";
import { snapshotGraphs } from "../../store/manifest.ts";
import { READS } from "../effects.ts";
import { defineOperation, seconds } from "../operation.ts";

const graphUris = z.array(z.string().min(1)).max(100);

export const sparql = defineOperation({
  name: "sparql",
  method: "POST",
  path: "/api/sparql",
  summary: "Run a read-only SPARQL query over the knowledge graph",
  description: ({ query_timeout_ms }) =>
    "Runs a SPARQL 1.1 query (SELECT, ASK, CONSTRUCT or DESCRIBE) over the whole graph. SELECT returns one JSON object per solution. " +
    "Prefixes ckg: (the ontology namespace, https://ckg.example/ontology# unless the snapshot was built with another; /api/schema says which), schema:, rdf:, rdfs:, xsd:, owl: and source: are predeclared; relative IRIs " +
    "such as <token/usd-coin> resolve to entity URIs. The default graph is the union of all sources; use GRAPH ?g { ... } " +
    "to see which source states a fact, or name a dataset (default_graph_uri, named_graph_uri: source graphs). Values are plain JSON (IRIs as strings, numbers as numbers); set typed: true for " +
    `SPARQL JSON terms with datatypes. At most ${MAX_ROWS.toLocaleString("en")} rows (truncated: true beyond). CONSTRUCT and DESCRIBE ` +
    `answer JSON-LD (@graph; rdf_format for Turtle, N-Triples or RDF/XML as text in rdf), at most ${MAX_TRIPLES.toLocaleString("en")} distinct triples (truncated: true beyond); ` +
    "DESCRIBE gives a resource's own facts and its neighbours' names and labels. " +
    `${seconds(query_timeout_ms)} per query (504 query_timeout beyond). Updates, LOAD and ` +
    "SERVICE are refused with 403 read_only. Use /api/schema to see the classes and predicates.",
  priceUsd: 0.1,
  effects: READS,
  input: z.strictObject({
    query: z.string().min(1, "query must not be empty").max(65_536),
    typed: z.boolean().default(false).describe("return SPARQL JSON terms ({type, value, datatype}) instead of plain values"),
    default_graph_uri: graphUris.optional().describe("the graphs whose merge is the default graph (SPARQL 1.1 Protocol default-graph-uri); source graphs as /api/schema lists them"),
    named_graph_uri: graphUris.optional().describe("the graphs GRAPH sees (named-graph-uri); with either field, a field left out names no graph"),
    rdf_format: rdfFormatSchema.default("json-ld").describe("CONSTRUCT and DESCRIBE: json-ld (@graph) or turtle, n-triples, rdf-xml (the document in rdf)"),
  }),
  output: z.union([sparqlAnswerSchema, graphAnswerSchema]),
  needs: ["graph"],
  example: { query: "SELECT ?token ?name WHERE { ?token a ckg:Stablecoin ; schema:name ?name } LIMIT 5" },
  prepare(input, { live }) {
    const dataset = datasetOf(input.default_graph_uri, input.named_graph_uri, snapshotGraphs(live.manifest));
    return { query: prepareQuery(input.query, live.ns), typed: input.typed, dataset, rdfFormat: input.rdf_format };
  },
  handler({ query, typed, dataset, rdfFormat }, { services, live, log }) {
    // The graph of the snapshot this request pinned, never a newer one switched in meanwhile; an
    // analytic SELECT on the same snapshot's graph tables.
    return runSparql(services.graph, query, {
      timeoutMs: services.config.query_timeout_ms,
      typed,
      snapshotId: live.id,
      dataset,
      rdfFormat,
      analytic: services.config.sparql_analytic ? live.analytic : undefined,
      onEngine: (engine, seconds) => {
        services.sparqlEngines.record(engine, seconds);
        log.info({ engine, ms: Math.round(seconds * 1e4) / 10 }, "sparql");
      },
    });
  },
});

/**
 * The dataset a request names, or none (the default: every graph, their union the default graph).
 * Only the snapshot's own graphs can be named: any other is a mistake (a typo, another server's
 * graph), answered 400 with the graphs there are, rather than an empty answer.
 */
function datasetOf(defaultGraphs: string[] | undefined, namedGraphs: string[] | undefined, known: string[]): Dataset | undefined {
  if (defaultGraphs === undefined && namedGraphs === undefined) return undefined;
  const unknownIn = (graphs: string[] | undefined) => [...new Set(graphs ?? [])].filter((graph) => !known.includes(graph));
  const unknown = [...new Set([...unknownIn(defaultGraphs), ...unknownIn(namedGraphs)])];
  if (unknown.length > 0) {
    const field = unknownIn(defaultGraphs).length > 0 ? "default_graph_uri" : "named_graph_uri";
    throw new CkgError("invalid_request", `No such graph: ${unknown.join(", ")}. The graphs are the sources' (GET /api/schema; GET /sparql describes the dataset): ${known.join(", ")}.`, {
      details: { field, unknown, graphs: known },
    });
  }
  return { defaultGraphs: [...new Set(defaultGraphs)], namedGraphs: [...new Set(namedGraphs)] };
}
