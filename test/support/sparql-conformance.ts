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

    test("CONSTRUCT and DESCRIBE are refused as unsupported forms", async () => {
      for (const query of ["CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "DESCRIBE <chain/ethereum>"]) {
        const { status, body } = await sparql(query);
        expect(status).toBe(400);
        expect(body.error.code).toBe("invalid_sparql");
      }
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
