/**
 * SPARQL client libraries that no one here wrote, each with its own defaults, against ckg on a real
 * port: Python's SPARQLWrapper (SPARQL XML results by default, RDF/XML for CONSTRUCT, a dataset by
 * addDefaultGraph) and rdflib's SPARQLStore (a Graph over the endpoint: XML results, RDF/XML graphs),
 * from Debian's python3-sparqlwrapper and python3-rdflib (`.ci/run` installs them; with
 * CKG_REQUIRE_ENGINES=1 their absence fails), and Comunica's fetch-sparql-endpoint for CONSTRUCT
 * (Turtle). The script is test/support/python/sparql_clients.py.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { SparqlEndpointFetcher } from "fetch-sparql-endpoint";
import { engineAvailable } from "../support/engines.ts";
import { type Running, json, startListening } from "../support/fixture.ts";

const PYTHON = "/usr/bin/python3";
const ETHEREUM = "https://ckg.example/id/chain/ethereum";
const present = spawnSync(PYTHON, ["-c", "import SPARQLWrapper, rdflib"], { stdio: "ignore" }).status === 0;
const python = engineAvailable("python3-sparqlwrapper and python3-rdflib", present, "the Python SPARQL client tests", "apt-get install python3-sparqlwrapper python3-rdflib; .ci/run installs them");

let run: Running & { url: string };
let endpoint: string;
beforeAll(async () => {
  run = await startListening();
  endpoint = `${run.url}/sparql`;
});
afterAll(() => run.close());

describe.skipIf(!python)("Python's SPARQLWrapper and rdflib", () => {
  let seen: Record<string, any>;
  beforeAll(async () => {
    const source = "https://ckg.example/source/ckg-aliases";
    const script = Bun.spawn([PYTHON, join(import.meta.dir, "../support/python/sparql_clients.py"), endpoint, ETHEREUM, source], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(script.stdout).text(), new Response(script.stderr).text(), script.exited]);
    if (code !== 0) throw new Error(`sparql_clients.py failed (${code}): ${err}`);
    seen = JSON.parse(out);
  }, 60_000);

  test("SPARQLWrapper's default, XML results: terms, a datatype, a language tag, escaped text read back", () => {
    expect(seen.wrapper_select_xml).toEqual([
      {
        name: { type: "literal", value: "Ethereum", lang: "", datatype: "" },
        n: { type: "literal", value: "42", lang: "", datatype: "http://www.w3.org/2001/XMLSchema#integer" },
        text: { type: "literal", value: "x & <y>", lang: "en", datatype: "" },
      },
    ]);
    expect(seen.wrapper_ask_xml).toBe("true");
  });

  test("SPARQLWrapper: JSON by POST; CONSTRUCT as RDF/XML into an rdflib Graph; DESCRIBE as Turtle", () => {
    expect(seen.wrapper_select_json_post).toEqual([{ name: { type: "literal", value: "Ethereum" } }]);
    expect(seen.wrapper_construct_rdfxml).toEqual(["Ethereum"]);
    expect(seen.wrapper_describe_turtle.names).toEqual(["Ethereum"]);
    expect(seen.wrapper_describe_turtle.triples).toBeGreaterThan(5);
  });

  test("SPARQLWrapper's addDefaultGraph: one source's graph is the default graph", async () => {
    const { body } = await run.request("POST", "/api/sparql", { query: "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <https://ckg.example/source/ckg-aliases> { ?s ?p ?o } }" }).then(json);
    expect(seen.wrapper_dataset_count).toBe(body.data[0].n);
    expect(seen.wrapper_dataset_count).toBeGreaterThan(0);
  });

  test("rdflib's SPARQLStore: SELECT, ASK, CONSTRUCT and triples() over the endpoint", () => {
    expect(seen.rdflib_select).toEqual(["Ethereum"]);
    expect(seen.rdflib_ask).toBe(true);
    expect(seen.rdflib_construct.names).toEqual(["Ethereum"]);
    expect(seen.rdflib_construct.triples).toBeGreaterThan(5);
    expect(seen.rdflib_triples).toEqual(["Ethereum"]);
  });
});

test("fetch-sparql-endpoint: CONSTRUCT and DESCRIBE as an RDF/JS triple stream (Turtle)", async () => {
  const fetcher = new SparqlEndpointFetcher();
  for (const query of [`CONSTRUCT { <${ETHEREUM}> ?p ?o } WHERE { <${ETHEREUM}> ?p ?o }`, `DESCRIBE <${ETHEREUM}>`]) {
    const names: string[] = [];
    for await (const quad of (await fetcher.fetchTriples(endpoint, query)) as AsyncIterable<{ subject: { value: string }; predicate: { value: string }; object: { value: string } }>) {
      if (quad.subject.value === ETHEREUM && quad.predicate.value === "http://schema.org/name") names.push(quad.object.value);
    }
    expect(names).toEqual(["Ethereum"]);
  }
});
