import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GRAPH_TABLES } from "../../src/timeseries/graph-tables.ts";
import { type Running, json, startServices } from "../support/fixture.ts";

let run: Running;
beforeAll(async () => {
  run = await startServices();
});
afterAll(() => run.close());

const sql = async (sql_query: string) => {
  const { status, body } = await run.request("POST", "/api/timeseries", { sql_query }).then(json);
  if (status !== 200) throw new Error(`${status}: ${JSON.stringify(body)}`);
  return body.data as Record<string, unknown>[];
};
const sparql = async (query: string) => {
  const { status, body } = await run.request("POST", "/api/sparql", { query }).then(json);
  if (status !== 200) throw new Error(`${status}: ${JSON.stringify(body)}`);
  return body.data as Record<string, unknown>[];
};
const ENTITY = "https://ckg.example/id/";

describe("the graph as SQL tables (graph_entities, graph_facts)", () => {
  test("are listed in /api/schema with their row counts and in ts_catalog as kind graph", async () => {
    const { body } = await run.request("GET", "/api/schema").then(json);
    const listed = body.graph_tables as { name: string; columns: { name: string; type: string }[]; row_count: number }[];
    expect(listed.map((t) => t.name)).toEqual(GRAPH_TABLES.map((t) => t.name));
    for (const table of listed) {
      expect(table.columns.map((c) => c.name)).toEqual(GRAPH_TABLES.find((t) => t.name === table.name)!.columns.map((c) => c.name));
      const n = ((await sql(`SELECT count(*) AS n FROM ${table.name}`)) as { n: number }[])[0]!.n;
      expect(table.row_count).toBe(n);
    }
    expect(listed.find((t) => t.name === "graph_facts")!.row_count).toBe(body.provenance.facts);
    const catalog = await sql(`SELECT table_name, column_name FROM ts_catalog WHERE kind = 'graph' ORDER BY table_name, column_name`);
    expect(catalog.length).toBe(GRAPH_TABLES.reduce((sum, t) => sum + t.columns.length, 0));
    // Every catalogued type is the column's real type.
    for (const table of GRAPH_TABLES) {
      const [types] = await sql(`SELECT ${table.columns.map((c) => `typeof("${c.name}") AS "${c.name}"`).join(", ")} FROM ${table.name} LIMIT 1`);
      expect(types).toEqual(Object.fromEntries(table.columns.map((c) => [c.name, c.type])));
    }
  });

  test("entities by type are the graph's node counts", async () => {
    const { body } = await run.request("GET", "/api/schema").then(json);
    const rows = (await sql(`SELECT type, count(*) AS n FROM graph_entities GROUP BY type`)) as { type: string; n: number }[];
    expect(Object.fromEntries(rows.map((r) => [r.type, r.n]))).toEqual(body.provenance.node_counts);
  });

  test("a relationship histogram in SQL is the same as in SPARQL", async () => {
    const viaSql = (await sql(
      `SELECT object AS chain, count(*) AS n FROM graph_facts WHERE predicate = 'deployedOn' AND object_kind = 'entity' GROUP BY object ORDER BY chain`,
    )) as { chain: string; n: number }[];
    const viaSparql = await sparql(`SELECT ?chain (COUNT(?p) AS ?n) WHERE { ?p ckg:deployedOn ?chain } GROUP BY ?chain ORDER BY ?chain`);
    expect(viaSql.length).toBeGreaterThan(5);
    expect(viaSql).toEqual(viaSparql.map((r) => ({ chain: String(r.chain).replace(ENTITY, ""), n: Number(r.n) })).sort((a, b) => (a.chain < b.chain ? -1 : 1)));
  });

  test("an entity's names and sources are those SPARQL gives", async () => {
    const [entity] = (await sql(`SELECT id, name, source FROM graph_entities WHERE type = 'Exchange' ORDER BY prominence DESC, id LIMIT 1`)) as { id: string; name: string; source: string }[];
    const names = await sparql(`SELECT ?name WHERE { <${ENTITY}${entity!.id}> schema:name ?name }`);
    expect(names.map((r) => r.name)).toContain(entity!.name);
    const sources = (await sql(`SELECT DISTINCT source FROM graph_facts WHERE subject_id = '${entity!.id}' ORDER BY 1`)).map((r) => r.source);
    expect(sources).toContain(entity!.source);
  });

  test("joins to the series by entity id: the largest tokens by market cap carry their graph names", async () => {
    const rows = (await sql(`
      SELECT e.name, e.symbol, t."marketCap" FROM ts_synthetic_token t JOIN graph_entities e ON e.id = t.entity_id
      WHERE t.date = (SELECT max(date) FROM ts_synthetic_token) ORDER BY t."marketCap" DESC LIMIT 5`)) as { name: string; marketCap: number }[];
    expect(rows.length).toBe(5);
    for (const row of rows) expect(row.name.length).toBeGreaterThan(0);
  });

  test("are read-only like every table", async () => {
    const { status, body } = await run.request("POST", "/api/timeseries", { sql_query: "DELETE FROM graph_facts" }).then(json);
    expect(status).toBe(403);
    expect(body.error.code).toBe("read_only");
  });
});
