/**
 * What a server says of itself (the OpenAPI document, the docs page, its MCP tools and resources)
 * takes counts, limits and bands from their constants and its own settings: the query time limit
 * it enforces (CKG_QUERY_TIMEOUT_MS), the number of signal types in the catalog, the score bands.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SCORE_AT } from "../../src/signals/bands.ts";
import { signalCatalog } from "../../src/signals/catalog.ts";
import { type Running, startServices } from "../support/fixture.ts";
import { MCP_HEADERS } from "../support/fuzz.ts";

let run: Running;
let texts: { where: string; text: string }[];

async function mcp(method: string): Promise<any> {
  const response = await run.request("POST", "/mcp", { jsonrpc: "2.0", id: 1, method, params: {} }, MCP_HEADERS);
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (!body.result) throw new Error(`${method}: ${JSON.stringify(body)}`);
  return body.result;
}

beforeAll(async () => {
  run = await startServices({ query_timeout_ms: 2500 });
  const openapi = (await (await run.request("GET", "/openapi.json")).json()) as { paths: Record<string, Record<string, any>> };
  const entries = Object.entries(openapi.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ where: `${method} ${path}`, op })));
  const { tools } = (await mcp("tools/list")) as { tools: { name: string; description: string }[] };
  const { resources } = (await mcp("resources/list")) as { resources: { name: string; description: string }[] };
  const { resourceTemplates } = (await mcp("resources/templates/list")) as { resourceTemplates: { name: string; description: string }[] };
  texts = [
    ...entries.flatMap(({ where, op }) => [{ where, text: `${op.summary} ${op.description}` }, ...Object.values<any>(op.responses).map((r) => ({ where, text: String(r.description) }))]),
    ...entries.map(({ where, op }) => ({ where: `${where} answer`, text: JSON.stringify(op.responses["200"]?.content ?? {}) })),
    { where: "/docs", text: await (await run.request("GET", "/docs")).text() },
    ...[...tools, ...resources, ...resourceTemplates].map((t) => ({ where: `mcp ${t.name}`, text: t.description })),
  ];
});
afterAll(() => run.close());

test("the SPARQL and SQL descriptions and their 504 state this server's query time limit, not the default", () => {
  const quoting = texts.filter((t) => / per query|time limit/.test(t.text));
  // OpenAPI (both operations and their 504), the docs page, both MCP tools.
  expect(quoting.map((t) => t.where)).toEqual(expect.arrayContaining(["post /api/sparql", "post /api/timeseries", "/docs", "mcp sparql", "mcp timeseries"]));
  for (const { where, text } of quoting) {
    expect(text, where).not.toMatch(/\b10 s\b/);
    expect(text, where).toMatch(/2\.5 s (per query|on this server)/);
  }
});

test("every number of signal types stated is the catalog's, every band start is the scale's", () => {
  const count = signalCatalog().count;
  let counts = 0;
  let bands = 0;
  for (const { where, text } of texts) {
    for (const [, n] of text.matchAll(/\b(\d+) (?:signal )?types\b/g)) {
      counts++;
      expect(Number(n), where).toBe(count);
    }
    for (const [, low, moderate, high] of text.matchAll(/low from (\d+), moderate from (\d+), high from (\d+)/g)) {
      bands++;
      expect({ low: Number(low), moderate: Number(moderate), high: Number(high) }, where).toEqual(SCORE_AT);
    }
  }
  // They are stated: in the signal routes' and the catalog's descriptions, tools and resources.
  expect(counts).toBeGreaterThanOrEqual(5);
  expect(bands).toBeGreaterThanOrEqual(4);
});
