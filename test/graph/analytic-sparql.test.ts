/**
 * Analytic SPARQL on DuckDB: every query of the differential corpus answers the same on
 * DuckDB over the graph tables as on the graph store (Oxigraph), value for value: datatypes,
 * languages, unbound variables, and the order ORDER BY fixes. What the translator is unsure of
 * goes to the graph store; the route says which engine answered in its log and /metrics.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { GraphProfile } from "../../src/graph/analytic/graph-profile.ts";
import { readGraphProfile } from "../../src/graph/analytic/graph-profile.ts";
import type { Term } from "../../src/graph/protocol.ts";
import { type SparqlAnswer, prepareQuery, runSparql, shapeAnswer } from "../../src/graph/sparql.ts";
import type { LiveSnapshot } from "../../src/operations/context.ts";
import { type CorpusQuery, generated, LEFT_TO_THE_GRAPH_STORE, WRITTEN } from "./analytic-corpus.ts";
import { heldOut } from "./analytic-heldout.ts";
import { json, type Running, startServices } from "../support/fixture.ts";
import { until } from "../support/until.ts";

let run: Running;
let live: LiveSnapshot;
let profile: GraphProfile;

beforeAll(async () => {
  run = await startServices();
  live = run.services.snapshot();
  await live.analytic.ready;
  const read = await readGraphProfile(live.timeseries, live.manifest);
  if ("refused" in read) throw new Error(`analytic SPARQL refused the fixture: ${read.refused}`);
  profile = read;
});

afterAll(() => run.close());

const TIMEOUT = 60_000;

/** The graph store's answer (typed terms). */
async function onGraphStore(sparql: string): Promise<SparqlAnswer> {
  const prepared = prepareQuery(sparql, live.ns);
  return (await runSparql(run.services.graph, prepared, { timeoutMs: TIMEOUT, typed: true, snapshotId: live.id })) as SparqlAnswer;
}

/** DuckDB's answer, or undefined when the translator leaves the query to the graph store. */
async function onDuckDb(sparql: string): Promise<SparqlAnswer | undefined> {
  const prepared = prepareQuery(sparql, live.ns);
  let engine: string | undefined;
  const answer = (await runSparql(run.services.graph, prepared, {
    timeoutMs: TIMEOUT,
    typed: true,
    snapshotId: live.id,
    analytic: live.analytic,
    onEngine: (e) => (engine = e),
  })) as SparqlAnswer;
  return engine === "duckdb" ? answer : undefined;
}

const termKey = (t: unknown) => (t === undefined ? "∅" : JSON.stringify(Object.fromEntries(Object.entries(t as Term).sort())));
const rowKey = (row: Record<string, unknown>, vars: string[]) => vars.map((v) => termKey(row[v])).join(" | ");

/** ORDER BY's variables, when each is projected (the corpus orders by projected variables or aggregates). */
function orderVars(sparql: string, vars: string[]): string[] | undefined {
  const clause = /ORDER BY (.*?)(LIMIT|OFFSET|$)/is.exec(sparql)?.[1];
  if (!clause) return undefined;
  const named = [...clause.matchAll(/\?(\w+)/g)].map((m) => m[1]!);
  return named.every((v) => vars.includes(v)) && !/COUNT|SUM/i.test(clause) ? named : [];
}

/**
 * Same answer: the same variables and rows (as multisets), and where ORDER BY fixes an order the
 * same sequence of its keys. Under a LIMIT, rows tied with the last one may differ (either engine
 * may keep any of them), so those are compared by their keys alone.
 */
function expectSame(q: CorpusQuery, duck: SparqlAnswer, graph: SparqlAnswer): void {
  expect(duck.variables, q.name).toEqual(graph.variables);
  expect(duck.count, q.name).toBe(graph.count);
  const vars = graph.variables;
  const keys = orderVars(q.sparql, vars);
  const ordered = keys !== undefined && keys.length > 0;
  const keyOf = (row: Record<string, unknown>) => rowKey(row, keys ?? []);
  if (ordered) expect(duck.data.map(keyOf), `${q.name}: order`).toEqual(graph.data.map(keyOf));
  const cut = /\bLIMIT\b/i.test(q.sparql) && keys !== undefined;
  const last = cut && graph.data.length > 0 ? (ordered ? keyOf(graph.data.at(-1)!) : undefined) : undefined;
  const rows = (answer: SparqlAnswer) =>
    answer.data
      .filter((row) => !cut || (ordered && keyOf(row) !== last))
      .map((row) => rowKey(row, vars))
      .sort();
  expect(rows(duck), q.name).toEqual(rows(graph));
}

describe("the differential corpus", () => {
  test("has at least 200 queries that DuckDB answers, each the same as the graph store", async () => {
    const corpus = [...WRITTEN, ...generated(profile)];
    let compared = 0;
    const untranslated: string[] = [];
    for (const q of corpus) {
      const graph = await onGraphStore(q.sparql);
      const duck = await onDuckDb(q.sparql);
      if (!duck) {
        untranslated.push(q.name);
        continue;
      }
      expectSame(q, duck, graph);
      compared++;
    }
    expect(untranslated).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(200);
  }, 600_000);

  test("what the translator is unsure of goes to the graph store, and is answered", async () => {
    for (const q of LEFT_TO_THE_GRAPH_STORE) {
      expect(await onDuckDb(q.sparql), q.name).toBeUndefined();
      expect((await onGraphStore(q.sparql)).status).toBe("success");
    }
  });

  test("plain values (typed: false) are shaped the same from either engine", async () => {
    const sparql = "SELECT ?stage (SUM(?usd) AS ?total) (COUNT(?r) AS ?n) WHERE { ?r ckg:roundStage ?stage ; ckg:amountUsd ?usd } GROUP BY ?stage ORDER BY ?stage";
    const graph = await onGraphStore(sparql);
    const duck = (await onDuckDb(sparql))!;
    const plain = (a: SparqlAnswer) => shapeAnswer({ variables: a.variables, rows: a.data as Record<string, Term>[] }, { typed: false, maxRows: 10_000 });
    expect(plain(duck).data).toEqual(plain(graph).data);
    expect(typeof plain(duck).data[0]!.n).toBe("number");
  });
});

describe("the held-out set", () => {
  test("at least 100 generated queries: each answered, and where DuckDB answers, the same as the graph store", async () => {
    const types = await onGraphStore("SELECT DISTINCT ?c WHERE { ?s a ?c }");
    const classes = types.data.map((row) => (row.c as Term).value).filter((iri) => iri.startsWith(live.ns.ontology)).map((iri) => iri.slice(live.ns.ontology.length));
    const set = heldOut(profile, classes);
    expect(set.length).toBeGreaterThanOrEqual(100);
    const untranslated: string[] = [];
    for (const q of set) {
      const graph = await onGraphStore(q.sparql);
      expect(graph.status, q.name).toBe("success");
      const duck = await onDuckDb(q.sparql);
      if (!duck) {
        untranslated.push(q.name);
        continue;
      }
      expectSame(q, duck, graph);
    }
    // Every shape the generator draws (counts, sums, averages, min and max, joins, filters, optionals) is one the translator takes.
    expect(untranslated).toEqual([]);
  }, 600_000);
});

describe("the route", () => {
  test("an analytic query is answered by DuckDB, a point query by the graph store: /metrics counts each engine", async () => {
    const before = await engines();
    const analytic = await json(await run.request("POST", "/api/sparql", { query: WRITTEN[0]!.sparql }));
    expect(analytic.status).toBe(200);
    const point = await json(await run.request("POST", "/api/sparql", { query: "SELECT ?p ?o WHERE { <chain/ethereum> ?p ?o } LIMIT 5" }));
    expect(point.status).toBe(200);
    const after = await engines();
    expect(after.duckdb - before.duckdb).toBe(1);
    expect(after.oxigraph - before.oxigraph).toBe(1);
  });

  test("a syntax error is still explained by the parser, never answered by DuckDB", async () => {
    const response = await json(await run.request("POST", "/api/sparql", { query: "SELECT ?c (COUNT(?s) AS ?n) WHERE { ?s a ?c  GROUP BY ?c" }));
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_sparql");
  });

  test("an analytic query over the row cap is truncated like any other", async () => {
    const response = await json(await run.request("POST", "/api/sparql", { query: "SELECT ?s (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?s" }));
    expect(response.status).toBe(200);
    const graph = await onGraphStore("SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?p ?o }");
    const subjects = Number((graph.data[0]!.n as Term).value);
    expect(response.body.count).toBe(Math.min(subjects, 10_000));
    expect(response.body.truncated).toBe(subjects > 10_000);
  });
});

describe("the time limit", () => {
  let limited: Running;
  beforeAll(async () => {
    limited = await startServices({ query_timeout_ms: 1000 });
    await limited.services.snapshot().analytic.ready;
  });
  afterAll(() => limited.close());

  test("a runaway analytic query is stopped on DuckDB with 504, while other routes answer, and the next query is answered", async () => {
    const runaway = limited.request("POST", "/api/sparql", { query: "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f }" });
    let settled = false;
    void runaway.then(() => (settled = true));
    const timeseries = limited.services.snapshot().timeseries;
    await until("the query to run on DuckDB", 10_000, () => timeseries.running === 1);
    expect((await limited.request("GET", "/api/schema")).status).toBe(200);
    expect(settled).toBe(false);
    const { status, body } = await json(await runaway);
    expect(status).toBe(504);
    expect(body.error.code).toBe("query_timeout");
    const next = await json(await limited.request("POST", "/api/sparql", { query: WRITTEN[0]!.sparql }));
    expect(next.status).toBe(200);
    expect(timeseries.running).toBe(0);
  });
});

async function engines(): Promise<{ duckdb: number; oxigraph: number }> {
  const text = await (await run.request("GET", "/metrics")).text();
  const count = (engine: string) => Number(new RegExp(`ckg_sparql_queries_total\\{engine="${engine}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  return { duckdb: count("duckdb"), oxigraph: count("oxigraph") };
}
