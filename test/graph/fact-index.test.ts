/**
 * The fact index (src/graph/fact-index.ts) answers explore's neighbourhoods in the server's process
 * from the snapshot's facts. On a real snapshot it must say what the graph says (the SPARQL queries
 * the graph process ran before, test/support/sparql-neighbourhood.ts), for every entity; on small
 * hand-written tables, the cases a generated world rarely shows.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { DuckDBInstance } from "@duckdb/node-api";
import { NameIndex } from "../../src/entities/name-index.ts";
import { type Namespaces, RDF_TYPE, SCHEMA, XSD, namespaces } from "../../src/entities/vocabulary.ts";
import { FactIndex } from "../../src/graph/fact-index.ts";
import { OxigraphStore } from "../../src/graph/graph-process.ts";
import { openDuck, sqlString } from "../../src/store/duckdb.ts";
import type { SnapshotManifest } from "../../src/store/manifest.ts";
import { fixtureSnapshot } from "../support/fixture.ts";
import { LIMIT, OUTGOING_LIMIT, comparable, sparqlNeighbourhood } from "../support/sparql-neighbourhood.ts";
import { tempDir } from "../support/temp-dirs.ts";

let duck: DuckDBInstance;
beforeAll(async () => {
  duck = await openDuck();
});
afterAll(() => duck.closeSync());

describe("on a real snapshot", () => {
  /** The fixture's live snapshot with its name index and fact index, read once. */
  let snapshot: { dir: string; manifest: SnapshotManifest; ns: Namespaces; names: NameIndex; facts: FactIndex };
  beforeAll(async () => {
    const { dir, manifest } = await fixtureSnapshot();
    const ns = manifest.namespaces;
    const names = await NameIndex.fromParquet(duck, join(dir, manifest.files.entities), ns);
    const facts = await FactIndex.fromParquet(duck, { facts: join(dir, manifest.files.facts), entities: join(dir, manifest.files.entities) }, names, ns);
    snapshot = { dir, manifest, ns, names, facts };
  }, 120_000);

  test("every entity's neighbourhood is the graph's: each fact with its source, each link with its total", async () => {
    const { dir, manifest, ns, names, facts } = snapshot;
    const store = new OxigraphStore();
    store.load(join(dir, manifest.files.graph));
    expect(facts.skipped).toBe(0);
    // Every fact but the ontology's and the sources' own descriptions (in the ckg graph), once.
    const quads = store.select(`SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } FILTER(?g != <${ns.source}ckg>) }`).rows[0]!.n!.value;
    expect(facts.facts).toBe(Number(quads));

    const differ: string[] = [];
    let hubs = 0;
    for (let position = 0; position < names.size; position++) {
      const uri = `${ns.entity}${names.idAt(position)}`;
      // A small limit, so many relationships are cut: totals and what is shown are checked there too.
      const graph = sparqlNeighbourhood(store, uri, 3);
      const index = facts.neighbourhood(uri, 3, OUTGOING_LIMIT);
      if (comparable(graph) !== comparable(index)) differ.push(uri);
      if (index.incoming.some((g) => g.total > 3)) hubs++;
    }
    expect(differ).toEqual([]);
    expect(hubs).toBeGreaterThan(10);
    expect(names.size).toBeGreaterThan(1000);
  }, 120_000);

  test("a hub shows the most prominent subjects first, each once per source, and how many there are", async () => {
    const { ns, names, facts } = snapshot;
    const ethereum = names.exactAny("Ethereum", (t) => t === "Chain")[0]!;
    const hood = facts.neighbourhood(ethereum.uri, LIMIT, OUTGOING_LIMIT);
    const deployed = hood.incoming.find((g) => g.predicate === `${ns.ontology}deployedOn`)!;
    expect(deployed.total).toBeGreaterThan(LIMIT);
    expect(new Set(deployed.items.map((i) => i.uri)).size).toBe(LIMIT);
    const prominence = deployed.items.map((i) => names.byUri(i.uri)!.prominence);
    expect(prominence).toEqual([...prominence].sort((a, b) => b - a));
    // The most prominent of all that deploy on it: none left out is more prominent than one shown.
    const all = facts.neighbourhood(ethereum.uri, 1_000_000, OUTGOING_LIMIT).incoming.find((g) => g.predicate === deployed.predicate)!;
    expect(new Set(all.items.map((i) => i.uri)).size).toBe(deployed.total);
    const shown = new Set(deployed.items.map((i) => i.uri));
    const leftOut = all.items.filter((i) => !shown.has(i.uri)).map((i) => names.byUri(i.uri)!.prominence);
    expect(Math.max(...leftOut)).toBeLessThanOrEqual(Math.min(...prominence));
    for (const item of deployed.items) expect(item.name).toBe(names.byUri(item.uri)!.name);
    expect(hood.outgoing.find((f) => f.predicate === `${SCHEMA}name`)?.object).toEqual({ type: "literal", value: ethereum.name });
  });
});

describe("on hand-written tables", () => {
  const ns = namespaces("https://t.example/ontology#");
  const entity = (id: string, type: string, name: string, prominence: number) => ({ id, type, name, prominence });
  const entities = [entity("chain/a", "Chain", "Chain A", 0.9), entity("token/x", "Token", "Token X", 0.2), entity("token/y", "Token", "Token Y", 0.8), entity("token/z", "Token", "Token Z", 0.5)];
  type Fact = [subject: string, predicate: string, object: string, kind: string, datatype: string | null, source: string];
  const facts: Fact[] = [
    ["chain/a", "rdf:type", "Chain", "class", null, "s1"],
    ["chain/a", "schema:name", "Chain A", "literal", null, "s1"],
    ["chain/a", "schema:name", "Chain A", "literal", null, "s1"], // repeated by its source: one fact
    ["chain/a", "schema:name", "Chain A", "literal", null, "s2"], // the same from another source: another fact
    ["chain/a", "alias", "Ä-Net ✓", "literal", null, "s2"], // UTF-8 beyond ASCII
    ["chain/a", "chainId", "7", "literal", `${XSD}string`, "s1"], // xsd:string: a plain literal
    ["chain/a", "owl:sameAs", "https://other.example/a", "iri", null, "s2"],
    ["token/x", "rdf:type", "Token", "class", null, "s1"],
    ["token/x", "schema:name", "Token X", "literal", null, "s1"],
    ["token/x", "schema:name", "X Token", "literal", null, "s2"], // a second name: kept as written
    ["token/x", "decimals", "18", "literal", `${XSD}integer`, "s1"],
    ["token/x", "deployedOn", "chain/a", "entity", null, "s1"],
    ["token/x", "deployedOn", "chain/a", "entity", null, "s2"],
    ["token/x", "deployedOn", "chain/gone", "entity", null, "s1"], // a target the snapshot does not have: an IRI
    ["token/y", "rdf:type", "Token", "class", null, "s1"],
    ["token/y", "rdf:type", "Stablecoin", "class", null, "s1"],
    ["token/y", "deployedOn", "chain/a", "entity", null, "s1"],
    ["token/z", "deployedOn", "chain/a", "entity", null, "s1"],
    ["token/q", "deployedOn", "chain/a", "entity", null, "s1"], // a subject the snapshot does not have: left out
  ];
  let index: FactIndex;

  beforeAll(async () => {
    const dir = tempDir("ckg-fact-index-");
    const c = await duck.connect();
    const values = (rows: unknown[][]) => rows.map((r) => `(${r.map((v) => (v === null ? "NULL" : typeof v === "number" ? v : sqlString(String(v)))).join(", ")})`).join(", ");
    await c.run(
      `COPY (SELECT id, ${sqlString(ns.entity)} || id AS uri, type, [type] AS labels, name, lower(replace(name, ' ', '')) AS name_key, NULL::VARCHAR AS symbol,
         []::VARCHAR[] AS aliases, 's1' AS source, prominence FROM (VALUES ${values(entities.map((e) => [e.id, e.type, e.name, e.prominence]))}) AS t(id, type, name, prominence))
       TO ${sqlString(join(dir, "entities.parquet"))} (FORMAT parquet)`,
    );
    await c.run(
      `COPY (SELECT *, TIMESTAMP '2026-01-01' AS as_of FROM (VALUES ${values(facts)}) AS t(subject_id, predicate, object, object_kind, datatype, source))
       TO ${sqlString(join(dir, "facts.parquet"))} (FORMAT parquet)`,
    );
    c.closeSync();
    const names = await NameIndex.fromParquet(duck, join(dir, "entities.parquet"), ns);
    index = await FactIndex.fromParquet(duck, { facts: join(dir, "facts.parquet"), entities: join(dir, "entities.parquet") }, names, ns);
  });

  test("each fact once per source, with its source, literal datatype and the objects' names and types", () => {
    expect(index.skipped).toBe(1);
    expect(index.duplicates).toBe(1);
    const chain = index.neighbourhood(`${ns.entity}chain/a`, 10, 100);
    const s = (id: string) => `${ns.source}${id}`;
    expect(chain.exists).toBe(true);
    expect(chain.outgoing).toEqual([
      { predicate: `${ns.ontology}alias`, object: { type: "literal", value: "Ä-Net ✓" }, graph: s("s2"), types: [] },
      { predicate: `${ns.ontology}chainId`, object: { type: "literal", value: "7" }, graph: s("s1"), types: [] },
      { predicate: "http://www.w3.org/2002/07/owl#sameAs", object: { type: "uri", value: "https://other.example/a" }, graph: s("s2"), types: [] },
      { predicate: RDF_TYPE, object: { type: "uri", value: `${ns.ontology}Chain` }, graph: s("s1"), types: [] },
      { predicate: `${SCHEMA}name`, object: { type: "literal", value: "Chain A" }, graph: s("s1"), types: [] },
      { predicate: `${SCHEMA}name`, object: { type: "literal", value: "Chain A" }, graph: s("s2"), types: [] },
    ]);
    const token = index.neighbourhood(`${ns.entity}token/x`, 10, 100);
    expect(token.outgoing.filter((f) => f.predicate.endsWith("deployedOn"))).toEqual([
      { predicate: `${ns.ontology}deployedOn`, object: { type: "uri", value: `${ns.entity}chain/a` }, graph: s("s1"), name: "Chain A", types: [`${ns.ontology}Chain`] },
      { predicate: `${ns.ontology}deployedOn`, object: { type: "uri", value: `${ns.entity}chain/a` }, graph: s("s2"), name: "Chain A", types: [`${ns.ontology}Chain`] },
      { predicate: `${ns.ontology}deployedOn`, object: { type: "uri", value: `${ns.entity}chain/gone` }, graph: s("s1"), types: [] },
    ]);
    expect(token.outgoing.find((f) => f.predicate.endsWith("decimals"))!.object).toEqual({ type: "literal", value: "18", datatype: `${XSD}integer` });
    expect(token.outgoing.filter((f) => f.predicate === `${SCHEMA}name`).map((f) => f.object.value)).toEqual(["Token X", "X Token"]);
  });

  test("links to an entity: the total of distinct subjects, the most prominent first, one item per subject and source", () => {
    const chain = index.neighbourhood(`${ns.entity}chain/a`, 2, 100);
    expect(chain.incoming).toHaveLength(1);
    const [deployed] = chain.incoming;
    expect(deployed!.total).toBe(3);
    const s = (id: string) => `${ns.source}${id}`;
    expect(deployed!.items).toEqual([
      { uri: `${ns.entity}token/y`, name: "Token Y", graph: s("s1"), types: [`${ns.ontology}Token`, `${ns.ontology}Stablecoin`] },
      { uri: `${ns.entity}token/z`, name: "Token Z", graph: s("s1"), types: [] },
    ]);
    expect(index.neighbourhood(`${ns.entity}chain/a`, 10, 100).incoming[0]!.items.map((i) => `${i.uri.slice(-7)} ${i.graph.slice(-2)}`)).toEqual([
      "token/y s1",
      "token/z s1",
      "token/x s1",
      "token/x s2",
    ]);
  });

  test("an entity with no facts, or a URI that is not one, has no neighbourhood", () => {
    expect(index.neighbourhood(`${ns.entity}token/z`, 10, 100)).toMatchObject({ exists: true, incoming: [] });
    expect(index.neighbourhood(`${ns.entity}token/none`, 10, 100)).toEqual({ exists: false, outgoing: [], incoming: [] });
    expect(index.neighbourhood("https://elsewhere.example/x", 10, 100)).toEqual({ exists: false, outgoing: [], incoming: [] });
    // A cap on facts as subject: the first ones, in the same order.
    expect(index.neighbourhood(`${ns.entity}chain/a`, 10, 2).outgoing.map((f) => f.object.value)).toEqual(["Ä-Net ✓", "7"]);
  });
});
