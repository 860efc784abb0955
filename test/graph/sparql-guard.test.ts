import { describe, expect, test } from "bun:test";
import { oxigraph } from "../../src/graph/oxigraph.ts";
import { prepareQuery } from "../../src/graph/sparql.ts";
import { scanQuery } from "../../src/graph/sparql-guard.ts";
import { namespaces } from "../../src/entities/vocabulary.ts";

const ns = namespaces();
const store = new oxigraph.Store();
// 30 solutions to count against caps.
store.load([...Array(30).keys()].map((i) => `<http://e/${i}> <http://p> "${i}"^^<http://www.w3.org/2001/XMLSchema#integer> .`).join("\n"), { format: "application/n-triples" });
const rows = (query: string) => {
  const result = JSON.parse(store.query(prepareQuery(query, ns, 10).query, { results_format: "json" }) as string);
  return result.results.bindings.length as number;
};

describe("the SPARQL lexer guard", () => {
  test.each([
    ["SELECT * WHERE { ?s ?p ?o }", "SELECT"],
    ["PREFIX x: <http://x/> BASE <http://b/> select ?s { ?s ?p ?o }", "SELECT"],
    ["ASK { ?s ?p ?o }", "ASK"],
    ["CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "CONSTRUCT"],
    ["DESCRIBE <http://e/1>", "DESCRIBE"],
    ["INSERT DATA { <a> <b> <c> }", "UPDATE"],
    ["PREFIX x: <http://x/>\nDELETE WHERE { ?s ?p ?o }", "UPDATE"],
    ["# a comment\nLOAD <http://x/>", "UPDATE"],
    ["WITH <g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }", "UPDATE"],
  ])("%p is %s", (query, form) => {
    expect(scanQuery(query, 10)?.form).toBe(form as never);
  });

  test("SERVICE is found outside strings, IRIs and comments only", () => {
    expect(scanQuery("SELECT * { SERVICE <http://x/> { ?s ?p ?o } }", 10)?.usesService).toBe(true);
    expect(scanQuery("SELECT * { service silent <http://x/> { ?s ?p ?o } }", 10)?.usesService).toBe(true);
    expect(scanQuery("SELECT * { ?s ?p 'SERVICE' } # SERVICE", 10)?.usesService).toBe(false);
    expect(scanQuery("SELECT ?service { ?service <http://x/SERVICE> ?o }", 10)?.usesService).toBe(false);
  });

  test.each([
    ["SELECT ?s ?o WHERE { ?s <http://p> ?o }", 11],
    ["SELECT ?s ?o WHERE { ?s <http://p> ?o } LIMIT 5", 5],
    ["SELECT ?s ?o WHERE { ?s <http://p> ?o } LIMIT 500", 11],
    ["SELECT ?s ?o WHERE { ?s <http://p> ?o } OFFSET 2 LIMIT 500", 11],
    ["SELECT ?s ?o WHERE { ?s <http://p> ?o } LIMIT 500 OFFSET 25", 5],
    ["SELECT ?s ?o WHERE { ?s <http://p> ?o } ORDER BY DESC(?o)", 11],
    ["SELECT ?s WHERE { { SELECT ?s WHERE { ?s <http://p> ?o } LIMIT 20 } }", 11],
    ["SELECT ?s WHERE { { SELECT ?s WHERE { ?s <http://p> ?o } LIMIT 3 } }", 3],
    ["SELECT ?s (EXISTS { ?s <http://p> 3 } AS ?three) WHERE { ?s <http://p> ?o }", 11],
    ["SELECT ?s ?o WHERE { ?s <http://p> ?o FILTER(?o < 20 && ?o > 2) }", 11],
    ["SELECT ?s ?o WHERE { ?s <http://p> ?o } VALUES ?o { 1 2 3 }", 3],
    ["SELECT ?s ?o WHERE { ?s <http://p> ?o FILTER(STR(?s) != '}') } # LIMIT 1", 11],
    ["SELECT ?s ?o { ?s <http://p> ?o . }", 11],
  ])("%p answers %d rows with the cap at 10", (query, expected) => {
    expect(rows(query)).toBe(expected);
  });

  test("text the lexer does not follow goes through the full parser", () => {
    expect(scanQuery("SELECT * WHERE { ?s ?p 'unterminated }", 10)).toBeUndefined();
    expect(() => prepareQuery("SELECT * WHERE { ?s ?p 'unterminated }", ns)).toThrow("syntax error");
  });
});
