/**
 * Fuzzing from the OpenAPI document (test/support/fuzz.ts): requests generated from /openapi.json and
 * MCP messages, near the schemas and far from them, never get a 5xx, never hang, always answer in the
 * documented error shape and are never charged. A bounded run; scripts/bench/fuzz.ts runs 100,000.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { OPERATIONS } from "../../src/operations/table/index.ts";
import { type Running, startServices } from "../support/fixture.ts";
import { type FuzzRequest, MCP_HEADERS, check, mcpMessages, requestsFrom } from "../support/fuzz.ts";

const BASE = "http://127.0.0.1:8402";
const HANG_MS = 20_000;
let run: Running;
beforeAll(async () => {
  run = await startServices();
});
afterAll(() => run.close());

/** The answer, or a failure when none comes within HANG_MS. */
async function answer(request: Request): Promise<Response> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${HANG_MS} ms`)), HANG_MS)));
  try {
    return await Promise.race([run.app.handle(request), hang]);
  } finally {
    clearTimeout(timer);
  }
}

test("requests generated from /openapi.json: no 5xx, no hang, the documented error shape, never charged", async () => {
  const openapi = await (await run.app.handle(new Request(`${BASE}/openapi.json`))).json();
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(requestsFrom(openapi as { paths: Record<string, Record<string, any>> }), async (r: FuzzRequest) => {
      const response = await answer(new Request(`${BASE}${r.path}`, { method: r.method, headers: r.headers, body: r.method === "POST" ? r.body : undefined }));
      seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
      const problem = await check(response);
      if (problem) throw new Error(`${r.method} ${r.path.slice(0, 200)} ${r.body?.slice(0, 200) ?? ""}: ${problem}`);
    }),
    { numRuns: 1500, seed: 19 },
  );
  // The run reached both sides: answers and refusals.
  expect([...seen.keys()].some((s) => s === 200)).toBe(true);
  expect([...seen.keys()].filter((s) => s >= 400).length).toBeGreaterThanOrEqual(3);
}, 600_000);

test("MCP messages: no 5xx, no hang, never charged", async () => {
  await fc.assert(
    fc.asyncProperty(mcpMessages(OPERATIONS.map((op) => op.name)), async (body) => {
      const response = await answer(new Request(`${BASE}/mcp`, { method: "POST", headers: MCP_HEADERS, body }));
      const problem = await check(response, true);
      if (problem) throw new Error(`${body.slice(0, 300)}: ${problem}`);
    }),
    { numRuns: 400, seed: 19 },
  );
}, 600_000);
