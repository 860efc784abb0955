/**
 * The graph relations a scan reads (src/signals/graph-facts.ts), in real DuckDB: a fact of a
 * synthetic source counts only between generated entities, so made-up investors or developers can
 * never make a signal about a real protocol; real facts count whoever they name.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { type GraphFacts, loadGraphFacts, sharedInvestorPairs } from "../../src/signals/graph-facts.ts";
import { openDuck } from "../../src/store/duckdb.ts";

let duck: DuckDBInstance;
let c: DuckDBConnection;
let graph: GraphFacts;

const SYNTHETIC = "synthetic-demo";
const REAL = "aave-address-book";

beforeAll(async () => {
  duck = await openDuck();
  c = await duck.connect();
  // The columns of the snapshot's entities.parquet and facts.parquet that the loader reads.
  await c.run(`CREATE TABLE entities (id VARCHAR, name VARCHAR, source VARCHAR)`);
  await c.run(`CREATE TABLE facts (subject_id VARCHAR, predicate VARCHAR, object VARCHAR, source VARCHAR)`);
  const entity = (id: string, source: string) => c.run(`INSERT INTO entities VALUES ('${id}', '${id.split("/")[1]}', '${source}')`);
  const fact = (s: string, p: string, o: string, source: string) => c.run(`INSERT INTO facts VALUES ('${s}', '${p}', '${o}', '${source}')`);
  await entity("protocol/aave", REAL);
  await entity("token/aave", REAL);
  for (const id of ["protocol/zorvex", "protocol/krenova", "token/zrv", "token/krn", "organization/north-capital", "organization/polar-fund", "organization/arc-ventures", "person/ada", "repository/zorvex-core"]) {
    await entity(id, SYNTHETIC);
  }
  await fact("token/zrv", "issuedBy", "protocol/zorvex", SYNTHETIC);
  await fact("token/krn", "issuedBy", "protocol/krenova", SYNTHETIC);
  await fact("token/aave", "issuedBy", "protocol/aave", REAL);
  await fact("protocol/aave", "category", "Lending", REAL);
  await fact("protocol/zorvex", "category", "Dexes", SYNTHETIC);
  for (const fund of ["organization/north-capital", "organization/polar-fund", "organization/arc-ventures"]) {
    // Synthetic funds back the synthetic protocols, and (made up) the real one.
    await fact(fund, "investedIn", "protocol/zorvex", SYNTHETIC);
    await fact(fund, "investedIn", "protocol/krenova", SYNTHETIC);
    await fact(fund, "investedIn", "protocol/aave", SYNTHETIC);
  }
  // A real source may say a synthetic fund backs Aave (an ingest matching a name): that counts.
  await fact("organization/north-capital", "investedIn", "protocol/aave", REAL);
  await fact("protocol/aave", "hasRepository", "repository/zorvex-core", SYNTHETIC);
  await fact("protocol/zorvex", "hasRepository", "repository/zorvex-core", SYNTHETIC);
  await fact("person/ada", "contributesTo", "repository/zorvex-core", SYNTHETIC);
  graph = await loadGraphFacts(c, [SYNTHETIC]);
});

afterAll(() => {
  c.closeSync();
  duck.closeSync();
});

test("synthetic facts link generated entities; a synthetic fact naming a real entity is not read", () => {
  expect(graph.investorsOf.get("protocol/zorvex")).toEqual(["organization/arc-ventures", "organization/north-capital", "organization/polar-fund"]);
  // Only the real fact reaches Aave: the made-up investments do not.
  expect(graph.investorsOf.get("protocol/aave")).toEqual(["organization/north-capital"]);
  expect(graph.developersOf.get("protocol/zorvex")).toEqual(["person/ada"]);
  expect(graph.developersOf.has("protocol/aave")).toBe(false);
  expect(graph.issuerOf.get("token/aave")).toBe("protocol/aave");
  expect(graph.sectorOf.get("protocol/aave")).toBe("Lending");
});

test("so a co-investment pair is between synthetic tokens only", () => {
  const pairs = sharedInvestorPairs(graph, 3);
  expect(pairs.map((p) => [p.a, p.b])).toEqual([["token/krn", "token/zrv"]]);
});

test("names and sources of entities; outside ids have none", () => {
  expect(graph.name("protocol/aave")).toBe("aave");
  expect(graph.sourceOf("protocol/aave")).toBe(REAL);
  expect(graph.sourceOf("token/zrv")).toBe(SYNTHETIC);
  expect(graph.sourceOf("eip155:1:0xabc")).toBeUndefined();
  expect(graph.name("eip155:1:0xabc")).toBe("eip155:1:0xabc");
});
