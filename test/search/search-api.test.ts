import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ENTITY_TYPES } from "../../src/entities/vocabulary.ts";
import { type Running, json, startServices } from "../support/fixture.ts";

let run: Running;
beforeAll(async () => {
  run = await startServices();
});
afterAll(() => run.close());

interface Result {
  uri: string;
  name: string;
  labels: string[];
  similarity: number;
}
const search = async (body: Record<string, unknown>) => {
  const { status, body: answer } = await run.request("POST", "/api/search", body).then(json);
  if (status !== 200) throw new Error(`${status}: ${JSON.stringify(answer)}`);
  return answer as { status: string; query: string; results: Result[]; total_count: number };
};
const sparqlRows = async (query: string) => (await run.request("POST", "/api/sparql", { query }).then(json)).body.data as Record<string, string>[];

describe("POST /api/search", () => {
  test("answers the documented shape, 10 results by default, in decreasing similarity", async () => {
    const answer = await search({ query: "lending protocol" });
    expect(answer.status).toBe("success");
    expect(answer.query).toBe("lending protocol");
    expect(answer.results).toHaveLength(10);
    for (const r of answer.results) {
      expect(r.uri).toStartWith("https://");
      expect(r.name.length).toBeGreaterThan(0);
      expect(r.labels.length).toBeGreaterThan(0);
      expect(r.similarity).toBeGreaterThan(0);
      expect(r.similarity).toBeLessThanOrEqual(1);
    }
    const similarities = answer.results.map((r) => r.similarity);
    expect(similarities).toEqual([...similarities].sort((a, b) => b - a));
    expect(answer.total_count).toBeGreaterThanOrEqual(answer.results.length);
  });

  test("an exact name comes first with similarity 1, whatever its case and spacing", async () => {
    for (const query of ["Uniswap", "  uNiSwAp  ", "UNISWAP"]) {
      const { results } = await search({ query });
      expect(results[0]!.name).toBe("Uniswap");
      expect(results[0]!.similarity).toBe(1);
    }
    const { results } = await search({ query: "arbitrumone" });
    expect(results[0]).toMatchObject({ name: "Arbitrum One", similarity: 1 });
  });

  test("symbols and known aliases match exactly too", async () => {
    const [aliased] = await sparqlRows(`SELECT ?e ?alias WHERE { ?e a ckg:Chain ; ckg:alias ?alias } ORDER BY ?alias LIMIT 1`);
    const byAlias = await search({ query: aliased!.alias! });
    expect(byAlias.results[0]).toMatchObject({ uri: aliased!.e, similarity: 1 });

    const [token] = await sparqlRows(`SELECT ?e ?symbol WHERE { ?e a ckg:Token ; ckg:symbol ?symbol ; schema:name "Uniswap" } LIMIT 1`);
    const bySymbol = await search({ query: token!.symbol!.toLowerCase(), entity_types: ["Token"] });
    expect(bySymbol.results[0]).toMatchObject({ uri: token!.e, similarity: 1 });
  });

  test.each([
    ["uniswp", "Uniswap"],
    ["etherium", "Ethereum"],
    ["chainlnk", "ChainLink Token"],
  ])("the typo %p still finds %p", async (query, name) => {
    const { results } = await search({ query });
    expect(results.slice(0, 3).map((r) => r.name)).toContain(name);
    expect(results[0]!.similarity).toBeLessThan(1);
  });

  test("the type filter applies before the cut: `limit` results of that type come back", async () => {
    for (const type of ["Person", "Pool", "Exchange"] as const) {
      const { results } = await search({ query: "ethereum", entity_types: [type], limit: 25 });
      expect(results).toHaveLength(25);
      for (const r of results) expect(r.labels).toContain(type);
    }
    const mixed = await search({ query: "staking", entity_types: ["Protocol", "Token"], limit: 40 });
    expect(mixed.results).toHaveLength(40);
    for (const r of mixed.results) expect(r.labels.some((l) => l === "Protocol" || l === "Token")).toBe(true);
  });

  test("limit takes 1..100", async () => {
    expect((await search({ query: "bridge", limit: 1 })).results).toHaveLength(1);
    expect((await search({ query: "bridge", limit: 100 })).results).toHaveLength(100);
  });

  test("free text finds the fitting kind of entity", async () => {
    const categories = async (results: Result[]) => {
      const values = results.map((r) => `<${r.uri}>`).join(" ");
      return (await sparqlRows(`SELECT ?c WHERE { VALUES ?e { ${values} } ?e ckg:category ?c }`)).map((r) => r.c);
    };
    const dex = await search({ query: "decentralized exchange", entity_types: ["Protocol"], limit: 5 });
    expect((await categories(dex.results)).filter((c) => c === "Dexes").length).toBeGreaterThanOrEqual(4);
    const lending = await search({ query: "borrow and lend crypto", entity_types: ["Protocol"], limit: 5 });
    expect((await categories(lending.results)).filter((c) => c === "Lending").length).toBeGreaterThanOrEqual(4);
    const funds = await search({ query: "venture fund investing in DeFi", limit: 5 });
    expect(funds.results.filter((r) => r.labels.includes("VentureFund")).length).toBeGreaterThanOrEqual(4);
  });

  test("a question scoped to a chain ranks what is deployed there first", async () => {
    const there = (await sparqlRows(`SELECT ?e WHERE { ?e a ckg:Protocol ; ckg:deployedOn ?c . ?c schema:name "Ethereum" }`)).map((r) => r.e);
    const dexesThere = (await sparqlRows(`SELECT ?e WHERE { ?e ckg:category "Dexes" ; ckg:deployedOn ?c . ?c schema:name "Ethereum" }`)).map((r) => r.e);
    expect(dexesThere.length).toBeGreaterThanOrEqual(5);
    const { results } = await search({ query: "decentralized exchange on ethereum", entity_types: ["Protocol"], limit: 10 });
    const first = results.slice(0, 5).map((r) => r.uri);
    // Every one of the first answers is in scope; by meaning they are DEXes (a derivatives exchange may come close).
    expect(first.every((uri) => there.includes(uri))).toBe(true);
    expect(first.filter((uri) => dexesThere.includes(uri)).length).toBeGreaterThanOrEqual(4);
    expect(dexesThere).toContain(first[0]!);
    // Unscoped, the same question ranks by meaning alone.
    const unscoped = await search({ query: "decentralized exchange", entity_types: ["Protocol"], limit: 10 });
    expect(unscoped.results.map((r) => r.uri)).not.toEqual(results.map((r) => r.uri));
  });

  test.each([
    [{}, "query"],
    [{ query: "" }, "query"],
    [{ query: "   " }, "query"],
    [{ query: "x".repeat(501) }, "query"],
    [{ query: 42 }, "query"],
    [{ query: "eth", limit: 0 }, "limit"],
    [{ query: "eth", limit: 101 }, "limit"],
    [{ query: "eth", limit: 2.5 }, "limit"],
    [{ query: "eth", entity_types: [] }, "entity_types"],
    [{ query: "eth", entity_types: ["Dragon"] }, "entity_types"],
    [{ query: "eth", entity_types: "Token" }, "entity_types"],
    [{ query: "eth", top_k: 5 }, "top_k"],
  ])("bad body %p is 400 naming %p", async (body, field) => {
    const { status, body: answer } = await run.request("POST", "/api/search", body).then(json);
    expect(status).toBe(400);
    expect(answer.error.code).toBe("invalid_request");
    expect(JSON.stringify(answer.error.details)).toContain(field);
  });

  test("a body that is not JSON is 400", async () => {
    const { status, body } = await run.request("POST", "/api/search", "{query:").then(json);
    expect(status).toBe(400);
    expect(body.error.code).toBe("invalid_request");
  });

  test("is described in the OpenAPI document with every entity type", async () => {
    const { body } = await run.request("GET", "/openapi.json").then(json);
    const operation = body.paths["/api/search"].post;
    expect(operation.description).toContain("total_count counts the entities found");
    expect(operation.description).toContain("at most max(limit, 25) deep per entity type");
    expect(operation.description).toContain("similarity 0.80-0.99");
    expect(JSON.stringify(operation)).toContain(ENTITY_TYPES.join('","'));
  });
});

describe("repeated questions", () => {
  test("the same question, limit and types is answered from the snapshot's cache; another is not", async () => {
    const engine = run.services.snapshot().search;
    const input = { query: "lending protocol on base", limit: 10 };
    const answer = await engine.search(input);
    expect(await engine.search({ ...input })).toBe(answer);
    expect(await engine.search({ ...input, limit: 5 })).not.toBe(answer);
    expect(await engine.search({ ...input, entity_types: ["Protocol"] })).not.toBe(answer);
  });

  test("search_cache_entries 0 turns the cache off: equal answers, computed each time", async () => {
    const uncached = await startServices({ search_cache_entries: 0 });
    try {
      const engine = uncached.services.snapshot().search;
      const input = { query: "lending protocol on base", limit: 10 };
      const first = await engine.search(input);
      const second = await engine.search(input);
      expect(second).not.toBe(first);
      expect(second).toEqual(first);
    } finally {
      await uncached.close();
    }
  });
});
