/**
 * The SPARQL 1.1 Protocol at /sparql (api/sparql-protocol.ts): a real SPARQL client library
 * (fetch-sparql-endpoint, Comunica's) queries ckg over a real port by POST and by GET; the request
 * forms (query parameter, application/sparql-query, form body) and the result formats (JSON, XML,
 * CSV, TSV by Accept) are checked byte for byte; CONSTRUCT and DESCRIBE in each RDF format; the
 * service description; refusals keep ckg's error shape. The W3C protocol tests are
 * sparql-w3c-protocol.test.ts; other clients (SPARQLWrapper, rdflib) sparql-clients.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SparqlEndpointFetcher } from "fetch-sparql-endpoint";
import { oxigraph } from "../../src/graph/oxigraph.ts";
import { type Running, startListening } from "../support/fixture.ts";

let run: Running & { url: string };
let endpoint: string;
beforeAll(async () => {
  run = await startListening();
  endpoint = `${run.url}/sparql`;
});
afterAll(() => run.close());

const ETHEREUM = "SELECT ?chain ?name WHERE { ?chain a ckg:Chain ; schema:name ?name ; ckg:chainKey 'eip155:1' }";

/** Every binding a client stream gives, as plain {variable: value} objects. */
async function bindingsOf(stream: NodeJS.ReadableStream): Promise<Record<string, { termType: string; value: string }>[]> {
  const rows: Record<string, { termType: string; value: string }>[] = [];
  for await (const row of stream as AsyncIterable<Record<string, { termType: string; value: string }>>) rows.push(row);
  return rows;
}

describe("a SPARQL client library", () => {
  for (const method of ["POST", "GET"] as const) {
    test(`${method}: SELECT bindings as RDF terms, ASK as a boolean`, async () => {
      const fetcher = new SparqlEndpointFetcher({ method });
      const rows = await bindingsOf(await fetcher.fetchBindings(endpoint, ETHEREUM));
      expect(rows).toHaveLength(1);
      const { chain, name } = rows[0]!;
      expect(chain).toMatchObject({ termType: "NamedNode", value: "https://ckg.example/id/chain/ethereum" });
      expect(name).toMatchObject({ termType: "Literal", value: "Ethereum" });
      expect(await fetcher.fetchAsk(endpoint, "ASK { <chain/ethereum> a ckg:Chain }")).toBe(true);
      expect(await fetcher.fetchAsk(endpoint, "ASK { <chain/no-such-chain> a ckg:Chain }")).toBe(false);
    });
  }
});

describe("GET and POST /sparql", () => {
  const get = (query: string, accept = "application/sparql-results+json") => fetch(`${endpoint}?${new URLSearchParams({ query })}`, { headers: { accept } });

  test("the three request forms give the same SPARQL JSON results", async () => {
    const expected = {
      head: { vars: ["chain", "name"] },
      results: { bindings: [{ chain: { type: "uri", value: "https://ckg.example/id/chain/ethereum" }, name: { type: "literal", value: "Ethereum" } }] },
    };
    const answers = [
      await get(ETHEREUM),
      await fetch(endpoint, { method: "POST", headers: { "content-type": "application/sparql-query" }, body: ETHEREUM }),
      await fetch(endpoint, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ query: ETHEREUM }).toString() }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe("application/sparql-results+json");
      expect(await answer.json()).toEqual(expected);
    }
  });

  test("CSV and TSV by Accept: plain values in CSV (quoted where needed), terms in TSV; unbound is empty", async () => {
    const query = `SELECT ?s ?n ?text ?none WHERE { BIND(<chain/ethereum> AS ?s) BIND(42 AS ?n) BIND("a, \\"b\\"\\tc"@en AS ?text) }`;
    const csv = await get(query, "text/csv");
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(await csv.text()).toBe(`s,n,text,none\r\nhttps://ckg.example/id/chain/ethereum,42,"a, ""b""\tc",\r\n`);
    const tsv = await get(query, "text/csv;q=0.5, text/tab-separated-values");
    expect(tsv.headers.get("content-type")).toBe("text/tab-separated-values; charset=utf-8");
    expect(await tsv.text()).toBe(
      `?s\t?n\t?text\t?none\n<https://ckg.example/id/chain/ethereum>\t"42"^^<http://www.w3.org/2001/XMLSchema#integer>\t"a, \\"b\\"\\tc"@en\t\n`,
    );
    // No format named: JSON.
    expect((await get(query, "text/html")).headers.get("content-type")).toBe("application/sparql-results+json");
  });

  test("XML results: terms, language tags, datatypes, blank nodes, unbound left out, XML 1.0 escaping", async () => {
    const query = `SELECT ?s ?n ?text ?b ?odd ?none WHERE { BIND(<chain/ethereum> AS ?s) BIND(42 AS ?n) BIND("a <b> & \\"c\\"\\r\\n"@en-GB AS ?text) BIND(BNODE() AS ?b) BIND("bell\\u0007 ]]> end" AS ?odd) }`;
    const answer = await get(query, "application/sparql-results+xml");
    expect(answer.headers.get("content-type")).toBe("application/sparql-results+xml; charset=utf-8");
    const xml = await answer.text();
    const bnode = /<bnode>([^<]+)<\/bnode>/.exec(xml)?.[1];
    expect(bnode).toBeString();
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">' +
        '<head><variable name="s"/><variable name="n"/><variable name="text"/><variable name="b"/><variable name="odd"/><variable name="none"/></head>' +
        "<results><result>" +
        '<binding name="s"><uri>https://ckg.example/id/chain/ethereum</uri></binding>' +
        '<binding name="n"><literal datatype="http://www.w3.org/2001/XMLSchema#integer">42</literal></binding>' +
        '<binding name="text"><literal xml:lang="en-gb">a &lt;b&gt; &amp; "c"&#xD;\n</literal></binding>' +
        `<binding name="b"><bnode>${bnode}</bnode></binding>` +
        '<binding name="odd"><literal>bell\uFFFD ]]&gt; end</literal></binding>' +
        "</result></results></sparql>\n",
    );
    const ask = await get("ASK { <chain/ethereum> a ckg:Chain }", "application/sparql-results+xml");
    expect(await ask.text()).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head/><boolean>true</boolean></sparql>\n');
  });

  test("content negotiation weighs q-values and wildcards; a type named beats a wildcard of the same weight", async () => {
    const typeFor = async (accept: string, query = ETHEREUM) => (await get(query, accept)).headers.get("content-type")!.split(";")[0];
    expect(await typeFor("application/sparql-results+json;q=0.5, application/sparql-results+xml")).toBe("application/sparql-results+xml");
    expect(await typeFor("text/csv;q=0.2, application/sparql-results+xml;q=0.1")).toBe("text/csv");
    expect(await typeFor("*/*;q=0.1, text/tab-separated-values")).toBe("text/tab-separated-values");
    expect(await typeFor("text/csv, */*")).toBe("text/csv");
    expect(await typeFor("application/*")).toBe("application/sparql-results+json");
    expect(await typeFor("application/sparql-results+json;q=0, */*")).toBe("application/sparql-results+xml");
    // ASK has no CSV form: XML or JSON.
    expect(await typeFor("text/csv, application/sparql-results+xml;q=0.5", "ASK {}")).toBe("application/sparql-results+xml");
    const graph = "CONSTRUCT { <chain/ethereum> a ckg:Chain } WHERE {}";
    expect(await typeFor("", graph)).toBe("text/turtle");
    expect(await typeFor("application/rdf+xml;q=0.9, application/ld+json", graph)).toBe("application/ld+json");
    expect(await typeFor("application/sparql-results+json", graph)).toBe("text/turtle");
  });

  test("CONSTRUCT and DESCRIBE in Turtle, N-Triples, RDF/XML and JSON-LD: the same triples; a cut graph says so in a header", async () => {
    const query = "DESCRIBE <chain/ethereum>";
    const sets: string[][] = [];
    for (const type of ["text/turtle", "application/n-triples", "application/rdf+xml", "application/ld+json"]) {
      const answer = await get(query, type);
      expect(answer.headers.get("content-type")!.split(";")[0]).toBe(type);
      expect(answer.headers.get("x-ckg-truncated")).toBeNull();
      sets.push(oxigraph.parse(await answer.text(), { format: type }).map(String).sort());
    }
    for (const set of sets) expect(set).toEqual(sets[0]!);
    expect(sets[0]!.length).toBeGreaterThan(5);
    const cut = await get("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "application/n-triples");
    expect(cut.headers.get("x-ckg-truncated")).toBe("true");
    expect((await cut.text()).trim().split("\n")).toHaveLength(10_000);
  });

  test("GET /sparql without a query: the service description, its named graphs the snapshot's", async () => {
    const answer = await fetch(endpoint);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/turtle; charset=utf-8");
    const triples = oxigraph.parse(await answer.text(), { format: "text/turtle" });
    const SD = "http://www.w3.org/ns/sparql-service-description#";
    const objects = (p: string) => triples.filter((t) => t.predicate.value === `${SD}${p}`).map((t) => t.object.value);
    expect(objects("endpoint")).toEqual([endpoint]);
    expect(objects("supportedLanguage")).toEqual([`${SD}SPARQL11Query`]);
    expect(objects("resultFormat")).toContain("http://www.w3.org/ns/formats/SPARQL_Results_XML");
    expect(objects("feature")).toEqual([`${SD}UnionDefaultGraph`]);
    const results = (await (await get("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }")).json()) as { results: { bindings: { g: { value: string } }[] } };
    const graphs = results.results.bindings.map((b) => b.g.value);
    expect(objects("name").sort()).toEqual(graphs.sort());
    const jsonld = await fetch(endpoint, { headers: { accept: "application/ld+json" } });
    expect(jsonld.headers.get("content-type")).toBe("application/ld+json");
    expect(oxigraph.parse(await jsonld.text(), { format: "application/ld+json" })).toHaveLength(triples.length);
  });

  test("ASK is a boolean result", async () => {
    expect(await (await get("ASK { ?s a ckg:Chain }")).json()).toEqual({ head: {}, boolean: true });
  });

  test("refusals keep ckg's error shape: no query, updates, unknown graphs, other bodies, bad syntax, other methods", async () => {
    const cases: [Promise<Response>, number, string][] = [
      [fetch(endpoint, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" }), 400, "invalid_request"],
      [get("   "), 400, "invalid_request"],
      [fetch(`${endpoint}?query=${encodeURIComponent(ETHEREUM)}&query=${encodeURIComponent(ETHEREUM)}`), 400, "invalid_request"],
      [fetch(endpoint, { method: "POST", headers: { "content-type": "application/sparql-update" }, body: "DROP ALL" }), 403, "read_only"],
      [fetch(endpoint, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "update=DROP%20ALL" }), 403, "read_only"],
      [get("INSERT DATA { <a> <b> <c> }"), 403, "read_only"],
      [fetch(`${endpoint}?${new URLSearchParams({ query: ETHEREUM, "default-graph-uri": "https://ckg.example/source/x" })}`), 400, "invalid_request"],
      [fetch(`${endpoint}?${new URLSearchParams({ query: ETHEREUM, "named-graph-uri": "urn:other" })}`), 400, "invalid_request"],
      [fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: ETHEREUM }) }), 400, "invalid_request"],
      [get("SELECT WHERE {"), 400, "invalid_sparql"],
      [fetch(endpoint, { method: "PUT", body: ETHEREUM }), 405, "method_not_allowed"],
    ];
    for (const [sent, status, code] of cases) {
      const response = await sent;
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect({ status: response.status, code: body.error.code }).toEqual({ status, code });
      expect(body.error.message.length).toBeGreaterThan(0);
    }
  });
});
