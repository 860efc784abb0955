/**
 * @module api/sparql-service
 * The SPARQL 1.1 Service Description of /sparql (W3C, `sd:` vocabulary), answered to a GET without
 * a query: the endpoint, the language (SPARQL 1.1 Query; no update), the result formats, the
 * default dataset (its default graph the union of the named graphs, one per source and ckg's own),
 * so a client can find the graphs to name in `default-graph-uri` and `named-graph-uri`. Written as
 * Turtle by hand (readable, with prefixes); another RDF format is that Turtle rewritten by Oxigraph,
 * loaded on first use so a server that is never asked does not load it.
 */
import { RDF_FORMATS, rewriteRdf } from "../operations/sparql-answers.ts";
import { negotiateGraph } from "./sparql-formats.ts";

/** W3C format IRIs (http://www.w3.org/ns/formats/) of what /sparql writes. */
const FORMAT_IRIS = ["SPARQL_Results_JSON", "SPARQL_Results_XML", "SPARQL_Results_CSV", "SPARQL_Results_TSV", "Turtle", "N-Triples", "RDF_XML", "JSON-LD"];

/** The description in Turtle. */
function serviceTurtle(endpoint: string, graphs: readonly string[]): string {
  const iri = (value: string) => `<${value.replace(/[\u0000-\u0020<>"{}|^`\\]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}>`;
  const named = graphs.map((g) => `    sd:namedGraph [ a sd:NamedGraph ; sd:name ${iri(g)} ]`).join(" ;\n");
  return `@prefix sd: <http://www.w3.org/ns/sparql-service-description#> .
@prefix formats: <http://www.w3.org/ns/formats/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

${iri(endpoint)} a sd:Service ;
  rdfs:label "ckg: crypto knowledge graph, read-only SPARQL 1.1 query endpoint" ;
  sd:endpoint ${iri(endpoint)} ;
  sd:supportedLanguage sd:SPARQL11Query ;
  sd:resultFormat ${FORMAT_IRIS.map((f) => `formats:${f}`).join(", ")} ;
  # The default graph is the union of every named graph (unless the request names a dataset).
  sd:feature sd:UnionDefaultGraph ;
  sd:defaultEntailmentRegime <http://www.w3.org/ns/entailment/Simple> ;
  sd:defaultDataset [
    a sd:Dataset ;
    sd:defaultGraph [ a sd:Graph ]${named ? ` ;\n${named}` : ""}
  ] .
`;
}

/** The description in the RDF format `accept` asks for (Turtle by default). */
export async function serviceDescription(endpoint: string, graphs: readonly string[], accept: string | null): Promise<{ contentType: string; body: string }> {
  const turtle = serviceTurtle(endpoint, graphs);
  const { format, mediaType } = negotiateGraph(accept);
  if (format === "turtle") return { contentType: `${mediaType}; charset=utf-8`, body: turtle };
  return { contentType: format === "n-triples" ? `${mediaType}; charset=utf-8` : mediaType, body: await rewriteRdf(turtle, RDF_FORMATS.turtle, format) };
}
