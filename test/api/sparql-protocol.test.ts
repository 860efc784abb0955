/**
 * The SPARQL 1.1 Protocol at /sparql (api/sparql-protocol.ts): a real SPARQL client library
 * (fetch-sparql-endpoint, Comunica's) queries ckg over a real port by POST and by GET; the request
 * forms (query parameter, application/sparql-query, form body) and the result formats (JSON, CSV,
 * TSV by Accept) are checked byte for byte; refusals keep ckg's error shape.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SparqlEndpointFetcher } from "fetch-sparql-endpoint";
import { type Running, startServices } from "../support/fixture.ts";

let run: Running;
let endpoint: string;
beforeAll(async () => {
  run = await startServices();
  run.app.listen({ hostname: "127.0.0.1", port: 0 });
  endpoint = `http://127.0.0.1:${run.app.server!.port}/sparql`;
});
afterAll(async () => {
  await run.app.stop();
  await run.close();
});

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

  test("ASK is a boolean result", async () => {
    expect(await (await get("ASK { ?s a ckg:Chain }")).json()).toEqual({ head: {}, boolean: true });
  });

  test("refusals keep ckg's error shape: no query, updates, dataset parameters, other bodies, bad syntax, other methods", async () => {
    const cases: [Promise<Response>, number, string][] = [
      [fetch(endpoint), 400, "invalid_request"],
      [get("   "), 400, "invalid_request"],
      [fetch(`${endpoint}?query=${encodeURIComponent(ETHEREUM)}&query=${encodeURIComponent(ETHEREUM)}`), 400, "invalid_request"],
      [fetch(endpoint, { method: "POST", headers: { "content-type": "application/sparql-update" }, body: "DROP ALL" }), 403, "read_only"],
      [fetch(endpoint, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "update=DROP%20ALL" }), 403, "read_only"],
      [get("INSERT DATA { <a> <b> <c> }"), 403, "read_only"],
      [fetch(`${endpoint}?${new URLSearchParams({ query: ETHEREUM, "default-graph-uri": "https://ckg.example/source/x" })}`), 400, "invalid_request"],
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
