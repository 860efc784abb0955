/**
 * The conformance tests of POST /api/sparql, run on every graph store the server can query: the
 * embedded one (test/api/sparql.test.ts) and an external SPARQL store (test/graph/virtuoso.test.ts).
 * The same query gets the same answer, error code and shape from either.
 */
import { describe, expect, test } from "bun:test";
import { type Running, json } from "./fixture.ts";

/**
 * `booleans: false` for a store without a boolean type (Virtuoso answers `true` as the integer 1);
 * the README lists that difference.
 */
export function describeSparqlConformance(store: string, current: () => Running, options: { booleans: boolean } = { booleans: true }): void {
  const sparql = (query: unknown, extra: Record<string, unknown> = {}) => current().request("POST", "/api/sparql", { query, ...extra }).then(json);

  describe(`POST /api/sparql on ${store}`, () => {
    test("answers a SELECT with variables, row objects and count", async () => {
      const { status, body } = await sparql(
        "SELECT ?chain ?name WHERE { ?chain a ckg:Chain ; schema:name ?name ; ckg:chainKey 'eip155:1' }",
      );
      expect(status).toBe(200);
      expect(body).toEqual({
        status: "success",
        variables: ["chain", "name"],
        data: [{ chain: "https://ckg.example/id/chain/ethereum", name: "Ethereum" }],
        count: 1,
        truncated: false,
      });
    });

    test("plain values: numbers as numbers, booleans as booleans; typed: true gives SPARQL JSON terms", async () => {
      const query = "SELECT ?n ?flag WHERE { BIND(42 AS ?n) BIND(true AS ?flag) }";
      expect((await sparql(query)).body.data).toEqual([{ n: 42, flag: options.booleans ? true : 1 }]);
      const typed = (await sparql(query, { typed: true })).body.data[0];
      expect(typed.n).toEqual({ type: "literal", value: "42", datatype: "http://www.w3.org/2001/XMLSchema#integer" });
    });

    test("relative IRIs resolve to entity URIs and every fact's source is its named graph", async () => {
      const { body } = await sparql("SELECT ?g WHERE { GRAPH ?g { <chain/ethereum> schema:name ?n } }");
      expect(body.data.length).toBeGreaterThan(0);
      for (const row of body.data) expect(row.g).toStartWith("https://ckg.example/source/");
    });

    test("ASK answers a boolean", async () => {
      const { status, body } = await sparql("ASK { <chain/ethereum> a ckg:Chain }");
      expect(status).toBe(200);
      expect(body.boolean).toBe(true);
      expect(body.data).toEqual([{ boolean: true }]);
    });

    test("caps answers at 10,000 rows and says so", async () => {
      const { body } = await sparql("SELECT ?s ?p ?o WHERE { ?s ?p ?o }");
      expect(body.count).toBe(10_000);
      expect(body.data.length).toBe(10_000);
      expect(body.truncated).toBe(true);
    });

    test("a LIMIT under the cap is kept", async () => {
      const { body } = await sparql("SELECT ?s WHERE { ?s a ckg:Token } LIMIT 7");
      expect(body.count).toBe(7);
      expect(body.truncated).toBe(false);
    });

    test.each([
      ["INSERT DATA { <a> <b> <c> }"],
      ["DELETE WHERE { ?s ?p ?o }"],
      ["LOAD <http://example.org/data.ttl>"],
      ["CLEAR ALL"],
      ["DROP GRAPH <http://x>"],
      ["PREFIX x: <http://x/> INSERT { ?s x:p 1 } WHERE { ?s ?p ?o }"],
      ["SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }"],
      ["INSERT DATA { this is not even valid"],
    ])("refuses %p with 403 read_only", async (query) => {
      const { status, body } = await sparql(query);
      expect(status).toBe(403);
      expect(body.error.code).toBe("read_only");
    });

    test("a syntax error is 400 invalid_sparql with its position", async () => {
      const { status, body } = await sparql("SELECT ?s\nWHERE {\n  ?s ?p ?o FILTER(?s = ) }");
      expect(status).toBe(400);
      expect(body.error.code).toBe("invalid_sparql");
      expect(body.error.details.line).toBe(3);
      expect(body.error.details.column).toBeGreaterThan(1);
      expect(body.error.message).toContain("line 3");
    });

    test("CONSTRUCT answers its distinct triples as JSON-LD, or as Turtle, N-Triples, RDF/XML text by rdf_format", async () => {
      const query = "CONSTRUCT { ?chain a ckg:Chain ; schema:name ?name } WHERE { ?chain a ckg:Chain ; schema:name ?name ; ckg:chainKey 'eip155:1' }";
      const { status, body } = await sparql(query);
      expect(status).toBe(200);
      expect(body).toMatchObject({ status: "success", form: "CONSTRUCT", format: "json-ld", count: 2, truncated: false });
      const nodes = body["@graph"].filter((n: { "@id": string }) => n["@id"] === "https://ckg.example/id/chain/ethereum");
      expect(Object.assign({}, ...nodes)).toMatchObject({
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#type": [{ "@id": "https://ckg.example/ontology#Chain" }],
        "http://schema.org/name": [{ "@value": "Ethereum" }],
      });
      const nt = (await sparql(query, { rdf_format: "n-triples" })).body;
      expect(nt.rdf.trim().split("\n").sort()).toEqual([
        '<https://ckg.example/id/chain/ethereum> <http://schema.org/name> "Ethereum" .',
        "<https://ckg.example/id/chain/ethereum> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://ckg.example/ontology#Chain> .",
      ]);
      expect((await sparql(query, { rdf_format: "turtle" })).body.rdf).toContain('"Ethereum"');
      expect((await sparql(query, { rdf_format: "rdf-xml" })).body.rdf).toContain("<rdf:RDF");
    });

    test("CONSTRUCT is capped at 10,000 distinct triples and says so", async () => {
      const { body } = await sparql("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", { rdf_format: "n-triples" });
      expect(body.count).toBe(10_000);
      expect(body.truncated).toBe(true);
      expect(new Set(body.rdf.trim().split("\n")).size).toBe(10_000);
      // The solutions are capped too (10,001): many solutions making one triple are one triple, cut
      // when solutions were left out, whole when they were not.
      const cut = (await sparql("CONSTRUCT { <chain/ethereum> a ckg:Chain } WHERE { ?s ?p ?o }")).body;
      expect({ count: cut.count, truncated: cut.truncated }).toEqual({ count: 1, truncated: true });
      const whole = (await sparql("CONSTRUCT { <chain/ethereum> a ckg:Chain } WHERE { ?c a ckg:Chain }")).body;
      expect({ count: whole.count, truncated: whole.truncated }).toEqual({ count: 1, truncated: false });
      // The short form, and a LIMIT of the query's own under the cap.
      const short = (await sparql("CONSTRUCT WHERE { <chain/ethereum> schema:name ?n }", { rdf_format: "n-triples" })).body;
      expect(short.rdf).toBe('<https://ckg.example/id/chain/ethereum> <http://schema.org/name> "Ethereum" .\n');
      const limited = (await sparql("CONSTRUCT { ?s a ckg:Chain } WHERE { ?s a ckg:Chain } LIMIT 3")).body;
      expect({ count: limited.count, truncated: limited.truncated }).toEqual({ count: 3, truncated: false });
    });

    test("DESCRIBE: the resource's own facts and the names of what it points at", async () => {
      const { body } = await sparql("DESCRIBE <chain/ethereum>", { rdf_format: "n-triples" });
      expect(body).toMatchObject({ form: "DESCRIBE", truncated: false });
      const lines: string[] = body.rdf.trim().split("\n");
      const subjects = new Set(lines.map((l) => l.split(" ")[0]));
      expect(lines).toContain('<https://ckg.example/id/chain/ethereum> <http://schema.org/name> "Ethereum" .');
      const token = lines.find((l) => l.includes("ontology#nativeToken>"))!.split(" ")[2]!;
      // The native token is named, and nothing else of it is told.
      const ofToken = lines.filter((l) => l.startsWith(`${token} `));
      expect(ofToken.length).toBeGreaterThan(0);
      for (const line of ofToken) expect(line.split(" ")[1]).toMatch(/^<(http:\/\/schema\.org\/name|http:\/\/www\.w3\.org\/2000\/01\/rdf-schema#label)>$/);
      expect(subjects.has("<https://ckg.example/id/chain/ethereum>")).toBe(true);
      // DESCRIBE ?x WHERE: each solution's value; its LIMIT counts solutions.
      const two = (await sparql("DESCRIBE ?c WHERE { ?c a ckg:Chain } ORDER BY ?c LIMIT 2", { rdf_format: "n-triples" })).body;
      const described = new Set(two.rdf.trim().split("\n").filter((l: string) => l.includes("rdf-syntax-ns#type> <https://ckg.example/ontology#Chain>")).map((l: string) => l.split(" ")[0]));
      expect(described.size).toBe(2);
    });

    test("a dataset by default_graph_uri and named_graph_uri; a graph the snapshot lacks is 400", async () => {
      const graphs = (await sparql("SELECT DISTINCT ?g WHERE { GRAPH ?g { <chain/ethereum> schema:name ?n } } ORDER BY ?g")).body.data.map((r: { g: string }) => r.g);
      const inOne = await sparql("ASK { <chain/ethereum> schema:name ?n }", { default_graph_uri: [graphs[0]] });
      expect(inOne.body.boolean).toBe(true);
      const none = await sparql("ASK { <chain/ethereum> schema:name ?n }", { default_graph_uri: ["https://ckg.example/source/ckg"], named_graph_uri: graphs });
      expect(none.body.boolean).toBe(false);
      const named = await sparql("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }", { named_graph_uri: [graphs[0]] });
      expect(named.body.data).toEqual([{ g: graphs[0] }]);
      const unknown = await sparql("ASK {}", { default_graph_uri: ["https://ckg.example/source/nowhere"] });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.code).toBe("invalid_request");
      expect(unknown.body.error.details.unknown).toEqual(["https://ckg.example/source/nowhere"]);
    });

    test.each([
      [{}, "query"],
      [{ query: "" }, "query"],
      [{ query: 42 }, "query"],
      [{ query: "ASK {}", extra: 1 }, "extra"],
      [{ query: "ASK {}", typed: "yes" }, "typed"],
    ])("bad body %p is 400 naming the field", async (body, field) => {
      const response = await json(await current().request("POST", "/api/sparql", body));
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
      expect(JSON.stringify(response.body.error.details)).toContain(field);
    });
  });
}
