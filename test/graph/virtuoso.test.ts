/**
 * The graph on an external SPARQL store (CKG_SPARQL_URL): a real Virtuoso 7 loaded with what
 * `ckg export` writes, by the bulk loader commands the README gives. The SPARQL conformance tests
 * run against it as against the embedded store; explore and search answer as on the embedded store;
 * a store that is down, stale or slow gets the documented errors. Needs Debian's
 * virtuoso-opensource-7 (`.ci/run` installs it; with CKG_REQUIRE_ENGINES=1 its absence fails).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selfCommand } from "../../src/runtime.ts";
import { snapshotMarkerQuad } from "../../src/graph/remote-store.ts";
import { engineAvailable } from "../support/engines.ts";
import { type Running, json, startServices } from "../support/fixture.ts";
import { describeSparqlConformance } from "../support/sparql-conformance.ts";
import { describeProtocolConformance } from "../support/sparql-protocol-conformance.ts";
import { type Virtuoso, startVirtuoso, virtuosoAvailable } from "../support/virtuoso.ts";

const available = engineAvailable("virtuoso-opensource-7", virtuosoAvailable(), "the external SPARQL store tests", "apt-get install virtuoso-opensource-7; .ci/run installs it");

type Answer = Awaited<ReturnType<typeof json>>;
let virtuoso: Virtuoso;
let remote: Running;
let embedded: Running;
let exported: string;

describe.skipIf(!available)("the graph on Virtuoso (CKG_SPARQL_URL)", () => {
  beforeAll(async () => {
    embedded = await startServices();
    // What an operator does: export the live snapshot, load it with Virtuoso's bulk loader.
    exported = mkdtempSync(join(tmpdir(), "ckg-export-"));
    rmSync(exported, { recursive: true });
    const exporting = Bun.spawn([...selfCommand("export", exported), "--data-dir", embedded.dir], { stdout: "pipe", stderr: "pipe" });
    if ((await exporting.exited) !== 0) throw new Error(`ckg export failed: ${await new Response(exporting.stderr).text()}`);
    virtuoso = await startVirtuoso({ loadDirs: [exported] });
    await virtuoso.loadDir(exported);
    remote = await startServices({ sparql_url: virtuoso.endpoint });
  }, 240_000);
  afterAll(async () => {
    await remote?.close();
    await embedded?.close();
    await virtuoso?.stop();
    if (exported) rmSync(exported, { recursive: true, force: true });
  });

  describeSparqlConformance("Virtuoso", () => remote, { booleans: false });
  describeProtocolConformance("Virtuoso", () => remote);

  test("CONSTRUCT and DESCRIBE give the embedded store's triples", async () => {
    const queries = [
      "DESCRIBE <chain/ethereum>",
      "DESCRIBE ?e WHERE { ?e a ckg:Exchange } ORDER BY ?e LIMIT 5",
      "CONSTRUCT { ?investor ckg:investedIn ?x } WHERE { ?investor ckg:investedIn ?x } ",
      "CONSTRUCT { ?s schema:name ?n } WHERE { GRAPH ?g { ?s schema:name ?n } FILTER(STRENDS(STR(?g), 'ckg-aliases')) }",
    ];
    for (const query of queries) {
      const [a, b] = (await Promise.all([embedded, remote].map((r) => r.request("POST", "/api/sparql", { query, rdf_format: "n-triples" }).then(json)))) as [Answer, Answer];
      expect(b.status, JSON.stringify(b.body)).toBe(200);
      const lines = (answer: Answer) => answer.body.rdf.trim().split("\n").sort();
      expect({ query, count: b.body.count, triples: lines(b) }).toEqual({ query, count: a.body.count, triples: lines(a) });
    }
  });

  test("/readyz names the store and the snapshot it holds; no graph process is started", async () => {
    const { body } = await remote.request("GET", "/readyz").then(json);
    expect(body.graph.phase).toBe("ready");
    expect(body.graph.endpoint).toBe(virtuoso.endpoint);
    expect(body.graph.store_snapshot).toBe(body.snapshot.id);
    expect(body.graph.replicas).toEqual([]);
  });

  test("analytic queries answer as on the embedded store", async () => {
    const queries = [
      "SELECT ?class (COUNT(?s) AS ?n) WHERE { ?s a ?class } GROUP BY ?class ORDER BY ?class",
      "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p ORDER BY ?p",
      "SELECT ?investor (COUNT(?x) AS ?n) WHERE { ?investor ckg:investedIn ?x } GROUP BY ?investor ORDER BY DESC(?n) ?investor LIMIT 20",
      "SELECT ?name WHERE { ?e a ckg:Exchange ; schema:name ?name } ORDER BY ?name LIMIT 50",
    ];
    for (const query of queries) {
      const [a, b] = (await Promise.all([embedded, remote].map((r) => r.request("POST", "/api/sparql", { query }).then(json)))) as [Answer, Answer];
      expect(b.status).toBe(200);
      expect({ query, data: b.body.data }).toEqual({ query, data: a.body.data });
    }
  });

  test("explore and search answer as on the embedded store", async () => {
    for (const [path, body] of [
      ["/api/explore", { entity_name: "Ethereum" }],
      ["/api/search", { query: "ethereum", limit: 5 }],
    ] as const) {
      const [a, b] = (await Promise.all([embedded, remote].map((r) => r.request("POST", path, body).then(json)))) as [Answer, Answer];
      expect(b.status).toBe(200);
      expect(b.body).toEqual(a.body);
    }
  });

  test("queries see the snapshot's graphs alone; CKG_SPARQL_DATASET=store gives the store's whole default graph", async () => {
    const graphs = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g";
    const [a, b] = (await Promise.all([embedded, remote].map((r) => r.request("POST", "/api/sparql", { query: graphs }).then(json)))) as [Answer, Answer];
    expect(b.body.data).toEqual(a.body.data);
    const whole = await startServices({ sparql_url: virtuoso.endpoint, sparql_dataset: "store" });
    try {
      const { body } = await whole.request("POST", "/api/sparql", { query: graphs }).then(json);
      const seen = body.data.map((r: { g: string }) => r.g);
      expect(seen).toContain("urn:ckg:snapshot");
      expect(seen.length).toBeGreaterThan(a.body.data.length);
    } finally {
      await whole.close();
    }
  });

  test("a query past its time limit is 504 query_timeout", async () => {
    const slow = await startServices({ sparql_url: virtuoso.endpoint, query_timeout_ms: 100 });
    try {
      const { status, body } = await slow
        .request("POST", "/api/sparql", { query: "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?b . ?c ?q ?d FILTER(?b != ?d) }" })
        .then(json);
      expect(status, JSON.stringify(body)).toBe(504);
      expect(body.error.code).toBe("query_timeout");
    } finally {
      await slow.close();
    }
  });

  test("a store that is down: SPARQL is 503 not_ready naming it, every other route serves", async () => {
    const down = await startServices({ sparql_url: "http://127.0.0.1:9/sparql" });
    try {
      const sparql = await down.request("POST", "/api/sparql", { query: "ASK {}" }).then(json);
      expect(sparql.status).toBe(503);
      expect(sparql.body.error.code).toBe("not_ready");
      expect(sparql.body.error.message).toContain("127.0.0.1:9");
      expect(sparql.headers.get("retry-after")).not.toBeNull();
      const explore = await down.request("POST", "/api/explore", { entity_name: "Ethereum" }).then(json);
      expect(explore.status).toBe(200);
      const ready = await down.request("GET", "/readyz").then(json);
      expect(ready.body.graph.phase).toBe("failed");
      expect(ready.body.graph.error).toBeString();
    } finally {
      await down.close();
    }
  });

  test("a store holding another snapshot is reported, and credentials in the URL are never shown", async () => {
    const stale = mkdtempSync(join(tmpdir(), "ckg-stale-"));
    writeFileSync(join(stale, "marker.nq"), snapshotMarkerQuad("20200101T000000Z-000000"));
    const other = await startVirtuoso({ loadDirs: [stale] });
    try {
      await other.loadDir(stale);
      const url = new URL(other.endpoint);
      url.username = "dba";
      url.password = "secret-password";
      const running = await startServices({ sparql_url: url.href });
      try {
        const { body } = await running.request("GET", "/readyz").then(json);
        expect(body.graph.store_snapshot).toBe("20200101T000000Z-000000");
        expect(body.graph.store_snapshot).not.toBe(body.snapshot.id);
        expect(JSON.stringify(body)).not.toContain("secret-password");
        const ask = await running.request("POST", "/api/sparql", { query: "ASK { <chain/ethereum> ?p ?o }" }).then(json);
        expect(ask.body.boolean).toBe(false);
      } finally {
        await running.close();
      }
    } finally {
      await other.stop();
      rmSync(stale, { recursive: true, force: true });
    }
  }, 120_000);
});

// Virtuoso's /sparql asks for no credentials, so what is sent is checked on a recording endpoint.
test("credentials in the URL go out as Basic auth; CKG_SPARQL_AUTH replaces them", async () => {
  const seen: (string | null)[] = [];
  const endpoint = Bun.serve({
    port: 0,
    fetch(request) {
      seen.push(request.headers.get("authorization"));
      return Response.json({ head: { vars: ["id"] }, results: { bindings: [] } });
    },
  });
  try {
    for (const [overrides, expected] of [
      [{ sparql_url: `http://user:pa%20ss@127.0.0.1:${endpoint.port}/sparql` }, `Basic ${btoa("user:pa ss")}`],
      [{ sparql_url: `http://user:x@127.0.0.1:${endpoint.port}/sparql`, sparql_auth: "Bearer t0ken" }, "Bearer t0ken"],
    ] as const) {
      seen.length = 0;
      const running = await startServices(overrides);
      try {
        await running.request("POST", "/api/sparql", { query: "ASK { ?s ?p ?o }" });
        expect(seen.length).toBeGreaterThanOrEqual(2); // the snapshot check and the query
        expect(new Set(seen)).toEqual(new Set([expected]));
      } finally {
        await running.close();
      }
    }
  } finally {
    await endpoint.stop(true);
  }
});
