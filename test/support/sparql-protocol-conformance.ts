/**
 * The W3C SPARQL 1.1 Protocol tests that apply to a read-only query endpoint (the protocol test
 * suite's query_*, query_dataset_*, query_content_type_* and bad_query_* cases; its update cases do
 * not apply, beyond an update being refused), run on every graph store the server can query: the
 * embedded one (test/api/sparql-w3c-protocol.test.ts) and Virtuoso (test/graph/virtuoso.test.ts).
 * The W3C suite loads its own small graphs; here the graphs are two of the snapshot's sources, and
 * each test's expectation is computed from facts found in them first, so it holds on any data.
 * Requests go through app.handle as real Request objects, bytes and headers as a client sends them.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { oxigraph } from "../../src/graph/oxigraph.ts";
import type { Running } from "./fixture.ts";

type Fact = { s: string; p: string; o: string };
type Results = { results: { bindings: Record<string, { value: string }>[] } };
const resultsOf = async (response: Response) => ((await response.json()) as Results).results.bindings;

export function describeProtocolConformance(store: string, current: () => Running): void {
  const send = (path: string, init: RequestInit = {}) => current().app.handle(new Request(`http://127.0.0.1:8402${path}`, init));
  const get = (params: [string, string][], accept = "application/sparql-results+json") => send(`/sparql?${new URLSearchParams(params)}`, { headers: { accept } });
  const postForm = (params: [string, string][], accept = "application/sparql-results+json") =>
    send("/sparql", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", accept }, body: new URLSearchParams(params).toString() });
  const ask = async (response: Response): Promise<boolean> => {
    expect(response.status, await response.clone().text()).toBe(200);
    return ((await response.json()) as { boolean: boolean }).boolean;
  };

  // Two source graphs and a fact each states that the other does not.
  let graphA: string;
  let graphB: string;
  let onlyA: Fact;
  let onlyB: Fact;
  const askFact = (f: Fact) => `ASK { <${f.s}> <${f.p}> ${f.o} }`;

  describe(`the SPARQL 1.1 Protocol tests on ${store}`, () => {
    beforeAll(async () => {
      const sizes = await resultsOf(await get([["query", "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), 'https://ckg.example/source/')) } GROUP BY ?g ORDER BY DESC(?n) ?g"]]));
      [graphA, graphB] = sizes.map((b) => b.g!.value) as [string, string];
      const only = async (inGraph: string, notIn: string): Promise<Fact> => {
        const query = `SELECT ?s ?p ?o WHERE { GRAPH <${inGraph}> { ?s ?p ?o } FILTER(isIRI(?o)) FILTER NOT EXISTS { GRAPH <${notIn}> { ?s ?p ?o } } } ORDER BY ?s ?p ?o LIMIT 1`;
        const row = (await resultsOf(await get([["query", query]])))[0]!;
        return { s: row.s!.value, p: row.p!.value, o: `<${row.o!.value}>` };
      };
      [onlyA, onlyB] = await Promise.all([only(graphA, graphB), only(graphB, graphA)]);
    });

    test("query_get, query_post_form, query_post_direct: the same answer by each request form", async () => {
      const query = askFact(onlyA);
      expect(await ask(await get([["query", query]]))).toBe(true);
      expect(await ask(await postForm([["query", query]]))).toBe(true);
      const direct = await send("/sparql", { method: "POST", headers: { "content-type": "application/sparql-query", accept: "application/sparql-results+json" }, body: query });
      expect(await ask(direct)).toBe(true);
    });

    test("query_dataset_default_graphs_get and _post: the default graph is the merge of the graphs named", async () => {
      const both: [string, string][] = [["default-graph-uri", graphA], ["default-graph-uri", graphB]];
      for (const send of [get, postForm]) {
        expect(await ask(await send([["query", askFact(onlyA)], ...both]))).toBe(true);
        expect(await ask(await send([["query", askFact(onlyB)], ...both]))).toBe(true);
        expect(await ask(await send([["query", askFact(onlyB)], ["default-graph-uri", graphA]]))).toBe(false);
        // Only a default graph named: GRAPH sees no graph.
        expect(await ask(await send([["query", "ASK { GRAPH ?g { ?s ?p ?o } }"], ["default-graph-uri", graphA]]))).toBe(false);
      }
    });

    test("query_dataset_named_graphs_post and _get: GRAPH sees the graphs named alone, the default graph is empty", async () => {
      const query = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g";
      for (const send of [get, postForm]) {
        const answer = await send([["query", query], ["named-graph-uri", graphA], ["named-graph-uri", graphB]]);
        expect(answer.status).toBe(200);
        const seen = (await resultsOf(answer)).map((b) => b.g!.value);
        expect(seen).toEqual([graphA, graphB].sort());
        expect(await ask(await send([["query", "ASK { ?s ?p ?o }"], ["named-graph-uri", graphA]]))).toBe(false);
      }
    });

    test("query_dataset_full: a default graph and named graphs in one request", async () => {
      const params: [string, string][] = [["default-graph-uri", graphA], ["named-graph-uri", graphB]];
      expect(await ask(await get([["query", askFact(onlyA)], ...params]))).toBe(true);
      expect(await ask(await get([["query", askFact(onlyB)], ...params]))).toBe(false);
      expect(await ask(await get([["query", `ASK { GRAPH <${graphB}> { <${onlyB.s}> <${onlyB.p}> ${onlyB.o} } }`], ...params]))).toBe(true);
      expect(await ask(await get([["query", `ASK { GRAPH <${graphA}> { ?s ?p ?o } }`], ...params]))).toBe(false);
    });

    test("query_multiple_dataset: the protocol's dataset wins over the query's FROM; FROM alone is the query's dataset", async () => {
      const fromB = `ASK FROM <${graphB}> { <${onlyA.s}> <${onlyA.p}> ${onlyA.o} }`;
      expect(await ask(await get([["query", fromB], ["default-graph-uri", graphA]]))).toBe(true);
      expect(await ask(await get([["query", fromB]]))).toBe(false);
    });

    test("query_content_type_select and _ask: the result format asked for", async () => {
      const select = `SELECT ?s WHERE { <${onlyA.s}> ?p ?o BIND(<${onlyA.s}> AS ?s) } LIMIT 1`;
      for (const [accept, type] of [
        ["application/sparql-results+xml", "application/sparql-results+xml"],
        ["application/sparql-results+json", "application/sparql-results+json"],
        ["text/csv", "text/csv"],
        ["text/tab-separated-values", "text/tab-separated-values"],
      ]) {
        const answer = await get([["query", select]], accept!);
        expect(answer.status).toBe(200);
        expect(answer.headers.get("content-type")!.split(";")[0]).toBe(type!);
        expect(await answer.text()).toContain(onlyA.s);
      }
      for (const [accept, body] of [
        ["application/sparql-results+xml", "<boolean>true</boolean>"],
        ["application/sparql-results+json", '"boolean":true'],
      ]) {
        const answer = await get([["query", askFact(onlyA)]], accept!);
        expect(answer.headers.get("content-type")!.split(";")[0]).toBe(accept!);
        expect(await answer.text()).toContain(body!);
      }
    });

    test("query_content_type_construct and _describe: the RDF format asked for, parsed back", async () => {
      const construct = `CONSTRUCT { <${onlyA.s}> <${onlyA.p}> ?o } WHERE { <${onlyA.s}> <${onlyA.p}> ?o }`;
      const expected = `<${onlyA.s}> <${onlyA.p}> ${onlyA.o}`;
      for (const [accept, type] of [
        ["text/turtle", "text/turtle"],
        ["application/n-triples", "application/n-triples"],
        ["application/rdf+xml", "application/rdf+xml"],
        ["application/ld+json", "application/ld+json"],
      ] as const) {
        for (const query of [construct, `DESCRIBE <${onlyA.s}>`]) {
          const answer = await get([["query", query]], accept);
          expect(answer.status).toBe(200);
          expect(answer.headers.get("content-type")!.split(";")[0]).toBe(type);
          const triples = oxigraph.parse(await answer.text(), { format: type, base_iri: "http://127.0.0.1:8402/sparql" }).map((q) => q.toString());
          expect(triples).toContain(expected);
        }
      }
    });

    test("bad_query_method, bad_multiple_queries, bad_query_wrong_media_type, bad_query_missing_*_type, bad_query_non_utf8, bad_query_syntax, bad_update_get", async () => {
      const utf16 = new Uint8Array(new Uint16Array([..."ASK {}"].map((c) => c.charCodeAt(0))).buffer);
      const cases: [string, Promise<Response>][] = [
        ["bad_query_method", send(`/sparql?${new URLSearchParams({ query: "ASK {}" })}`, { method: "PUT" })],
        ["bad_multiple_queries", get([["query", "ASK {}"], ["query", "SELECT * {}"]])],
        ["bad_query_wrong_media_type", send("/sparql", { method: "POST", headers: { "content-type": "text/plain" }, body: "ASK {}" })],
        ["bad_query_missing_form_type", send("/sparql", { method: "POST", body: new TextEncoder().encode("query=ASK%20%7B%7D") })],
        ["bad_query_missing_direct_type", send("/sparql", { method: "POST", body: new TextEncoder().encode("ASK {}") })],
        ["bad_query_non_utf8", send("/sparql", { method: "POST", headers: { "content-type": "application/sparql-query; charset=UTF-16" }, body: utf16 })],
        ["bad_query_non_utf8 (undeclared)", send("/sparql", { method: "POST", headers: { "content-type": "application/sparql-query" }, body: new Uint8Array([0x41, 0x53, 0x4b, 0x20, 0xff, 0x7b, 0x7d]) })],
        ["bad_query_syntax", get([["query", "ASK {"]])],
        ["bad_update_get", get([["update", "CLEAR ALL"]])],
        ["an unknown graph", get([["query", "ASK {}"], ["default-graph-uri", "https://ckg.example/source/no-such-source"]])],
      ];
      for (const [name, sent] of cases) {
        const response = await sent;
        const status = response.status;
        expect({ name, client_error: status >= 400 && status < 500 }).toEqual({ name, client_error: true });
        expect(((await response.json()) as { error: { message: string } }).error.message.length).toBeGreaterThan(0);
      }
    });
  });
}
