import { z } from "zod";
import { MAX_ROWS, prepareQuery, runSparql, sparqlAnswerSchema } from "../../graph/sparql.ts";
import { defineOperation, seconds } from "../operation.ts";

export const sparql = defineOperation({
  name: "sparql",
  method: "POST",
  path: "/api/sparql",
  summary: "Run a read-only SPARQL query over the knowledge graph",
  description: ({ query_timeout_ms }) =>
    "Runs a SPARQL 1.1 SELECT (or ASK) query over the whole graph and returns one JSON object per solution. " +
    "Prefixes ckg: (the ontology namespace, https://ckg.example/ontology# unless the snapshot was built with another; /api/schema says which), schema:, rdf:, rdfs:, xsd:, owl: and source: are predeclared; relative IRIs " +
    "such as <token/usd-coin> resolve to entity URIs. The default graph is the union of all sources; use GRAPH ?g { ... } " +
    "to see which source states a fact. Values are plain JSON (IRIs as strings, numbers as numbers); set typed: true for " +
    `SPARQL JSON terms with datatypes. At most ${MAX_ROWS.toLocaleString("en")} rows (truncated: true beyond); ${seconds(query_timeout_ms)} per query (504 query_timeout beyond). Updates, LOAD and ` +
    "SERVICE are refused with 403 read_only. Use /api/schema to see the classes and predicates.",
  priceUsd: 0.1,
  input: z.strictObject({
    query: z.string().min(1, "query must not be empty").max(65_536),
    typed: z.boolean().default(false).describe("return SPARQL JSON terms ({type, value, datatype}) instead of plain values"),
  }),
  output: sparqlAnswerSchema,
  needs: ["graph"],
  example: { query: "SELECT ?token ?name WHERE { ?token a ckg:Stablecoin ; schema:name ?name } LIMIT 5" },
  prepare(input, { live }) {
    return { query: prepareQuery(input.query, live.ns), typed: input.typed };
  },
  handler({ query, typed }, { services, live }) {
    // The graph of the snapshot this request pinned, never a newer one switched in meanwhile.
    return runSparql(services.graph, query, { timeoutMs: services.config.query_timeout_ms, typed, snapshotId: live.id });
  },
});
