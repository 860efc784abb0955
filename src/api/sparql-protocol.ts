/**
 * @module api/sparql-protocol
 * The SPARQL 1.1 Protocol at /sparql, so SPARQL clients (YASGUI, rdflib, SPARQLWrapper, Jena,
 * Comunica) work against ckg unchanged: the query from `?query=` (GET), an `application/sparql-query`
 * body or an `application/x-www-form-urlencoded` body (POST), with the dataset in
 * `default-graph-uri` and `named-graph-uri` (beside the query: in the URL for GET and a direct
 * POST, in the form for a form POST). The query runs through the `sparql` operation (same guard,
 * limits, time limit, price and payment) with typed terms; sparql-formats.ts writes the answer in
 * the format `Accept` asks for. A GET without a query is answered with the service description
 * (sparql-service.ts). Errors keep ckg's JSON error shape.
 */
import { CkgError } from "../errors.ts";
import { MAX_BODY_BYTES, readTextBody } from "./body.ts";
import { type Run, readInput } from "./operation-routes.ts";
import { UnreadableInput } from "../operations/judge.ts";
import type { AnyOperation } from "../operations/operation.ts";
import type { GraphAnswer, SparqlAnswer } from "../operations/sparql-answers.ts";
import type { Route } from "./routes.ts";
import { negotiateGraph, negotiateResults, writeResults } from "./sparql-formats.ts";
import { serviceDescription } from "./sparql-service.ts";

const SPARQL_PROTOCOL_PATH = "/sparql";

/** A protocol request: the query and the dataset it names (each list absent when not given). */
export interface ProtocolRequest {
  query: string;
  defaultGraphs?: string[];
  namedGraphs?: string[];
}

/** The query and dataset of a protocol request (GET or POST); undefined for a GET without any (the service description). */
async function protocolRequest(request: Request): Promise<ProtocolRequest | undefined> {
  const url = new URL(request.url).searchParams;
  let params = url;
  if (request.method === "GET") {
    if (![...url.keys()].some((k) => k === "query" || k === "update")) return undefined;
  } else {
    const [type = "", ...typeParams] = (request.headers.get("content-type") ?? "").toLowerCase().split(";").map((p) => p.trim());
    // The protocol's text is UTF-8: a body declared in another charset is refused, not misread.
    const charset = typeParams.find((p) => p.startsWith("charset="))?.slice(8).replaceAll('"', "");
    if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
      throw new CkgError("invalid_request", `The body must be UTF-8, not ${charset}.`, { details: { content_type: type, charset } });
    }
    if (type === "application/sparql-update") throw readOnly();
    if (type !== "application/sparql-query" && type !== "application/x-www-form-urlencoded") {
      throw new CkgError(
        "invalid_request",
        `POST /sparql takes a body of type application/sparql-query or application/x-www-form-urlencoded (query=...), not ${type || "none"}.`,
        { details: { content_type: type || null } },
      );
    }
    const body = await readTextBody(request, MAX_BODY_BYTES, { strict: true });
    if (type === "application/sparql-query") {
      if (url.has("update")) throw readOnly();
      return { query: nonEmpty(body), ...datasetParams(url) };
    }
    params = new URLSearchParams(body);
  }
  if (params.has("update")) throw readOnly();
  const queries = params.getAll("query");
  if (queries.length !== 1) {
    throw new CkgError("invalid_request", queries.length === 0 ? "Give the SPARQL query as the query parameter." : "Give the query parameter once.", {
      details: { field: "query" },
    });
  }
  return { query: nonEmpty(queries[0]!), ...datasetParams(params) };
}

/** `default-graph-uri` and `named-graph-uri` as given (either may repeat); a list is absent when not given. */
function datasetParams(params: URLSearchParams): Omit<ProtocolRequest, "query"> {
  const out: Omit<ProtocolRequest, "query"> = {};
  if (params.has("default-graph-uri")) out.defaultGraphs = params.getAll("default-graph-uri");
  if (params.has("named-graph-uri")) out.namedGraphs = params.getAll("named-graph-uri");
  return out;
}

function nonEmpty(query: string): string {
  if (query.trim() === "") throw new CkgError("invalid_request", "The query is empty.", { details: { field: "query" } });
  return query;
}

function readOnly(): CkgError {
  return new CkgError("read_only", "The SPARQL endpoint is read-only: updates are refused.");
}

const SPARQL_PROTOCOL_ABOUT =
  "The SPARQL 1.1 Protocol, for SPARQL clients: the sparql operation (priced as it is) with the standard request forms " +
  "(`?query=` on GET; an application/sparql-query or form body on POST) and the result formats Accept asks for; updates are refused (403 read_only). " +
  "A GET without a query answers the service description, free.";

/** GET and POST /sparql, when the table has the sparql operation; `graphs` are the live snapshot's named graphs. */
export function sparqlProtocolRoutes(operations: readonly AnyOperation[], run: Run, graphs: () => string[]): Route[] {
  const sparql = operations.find((op) => op.name === "sparql");
  if (!sparql) return [];
  const handle: Route["handle"] = async ({ request, set }) => {
    const accept = request.headers.get("accept");
    set.headers.vary = "Accept";
    // A request that cannot be read is judged after the offer, as every paid route's (operation-routes).
    const asked = await readInput(() => protocolRequest(request));
    if (!asked) {
      const description = await serviceDescription(new URL(SPARQL_PROTOCOL_PATH, request.url).href, graphs(), accept);
      set.headers["content-type"] = description.contentType;
      return description.body;
    }
    // The graph format is chosen before the query is read: a SELECT leaves it unused.
    const graphFormat = negotiateGraph(accept);
    const input =
      asked instanceof UnreadableInput
        ? asked
        : { query: asked.query, typed: true, default_graph_uri: asked.defaultGraphs, named_graph_uri: asked.namedGraphs, rdf_format: graphFormat.format };
    const outcome = await run(sparql, input, request, set);
    if (!outcome.answered) return outcome.body;
    const answer = outcome.answer as SparqlAnswer | GraphAnswer;
    // The standard formats have no field for it: a cut answer says so in a header.
    if (answer.truncated) set.headers["x-ckg-truncated"] = "true";
    if ("form" in answer) {
      set.headers["content-type"] = graphFormat.format === "turtle" || graphFormat.format === "n-triples" ? `${graphFormat.mediaType}; charset=utf-8` : graphFormat.mediaType;
      return answer.rdf ?? JSON.stringify(answer["@graph"]);
    }
    const { contentType, body } = writeResults(answer, negotiateResults(accept, answer.boolean !== undefined).format);
    set.headers["content-type"] = contentType;
    return body;
  };
  return (["GET", "POST"] as const).map((method) => ({ method, path: SPARQL_PROTOCOL_PATH, doc: undefined, about: SPARQL_PROTOCOL_ABOUT, handle }));
}
