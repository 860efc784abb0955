/**
 * The app's one list of routes (api/routes): what the server registers, what it documents and
 * how it tells 404 from 405 all come from it. And the web console's page and files go through the
 * same pipeline as every route: request id, version header, log line, rate limit.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { createApp } from "../../src/api/app.ts";
import { OPERATIONS } from "../../src/operations/table/index.ts";
import { createPayments } from "../../src/supervisor/assemble.ts";
import { VERSION } from "../../src/version.ts";
import { type Running, startServices } from "../support/fixture.ts";
import { until } from "../support/until.ts";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

let run: Running;
const lines: Record<string, unknown>[] = [];
beforeAll(async () => {
  // A real logger whose lines land here: the request log is part of what is checked.
  const log = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  run = await startServices({}, log);
});
afterAll(() => run.close());

/** A request path for a route path: each parameter filled with "x". */
const concrete = (path: string) => path.replace(/:[a-z_]+|\{[a-z_]+\}/g, "x");

async function expect405(method: string, path: string, allowed: string[]): Promise<void> {
  const response = await run.request(method, path);
  const body = (await response.json()) as { error: { code: string; details: { allowed?: string[] } } };
  expect(response.status, `${method} ${path}`).toBe(405);
  expect(body.error.code).toBe("method_not_allowed");
  expect(body.error.details.allowed?.toSorted(), `${method} ${path}`).toEqual(allowed.toSorted());
  expect(response.headers.get("allow")?.split(", ").toSorted(), `${method} ${path}`).toEqual(allowed.toSorted());
}

describe("the route list", () => {
  test("every route the server registered is in the list: a wrong method on its path is 405 naming the methods registered there", async () => {
    // What Elysia actually serves, whoever registered it; a route added outside the list would
    // answer 404 here, or leave its method out of Allow.
    const registered = new Map<string, Set<string>>();
    for (const route of run.app.routes) {
      const methods = registered.get(concrete(route.path)) ?? new Set<string>();
      registered.set(concrete(route.path), methods.add(route.method));
    }
    expect([...registered.keys()]).toEqual(expect.arrayContaining(["/api/sparql", "/sparql", "/healthz", "/", "/console/assets/x", "/console/session", "/mcp"]));
    for (const [path, methods] of registered) {
      for (const method of METHODS.filter((m) => !methods.has(m))) await expect405(method, path, [...methods]);
    }
  });

  test("every path of /openapi.json answers its documented methods, and 405 naming them to the others", async () => {
    const openapi = (await (await run.request("GET", "/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(["/api/sparql", "/api/insights/entity/{entity_name}", "/console/session"]));
    for (const [template, entries] of Object.entries(openapi.paths)) {
      const path = concrete(template);
      const documented = Object.keys(entries).map((m) => m.toUpperCase());
      for (const method of documented) {
        // Served: whatever it answers to an empty request, it is not "no such route".
        const response = await run.request(method, path);
        const code = response.status >= 400 ? ((await response.json()) as { error: { code: string } }).error.code : "none";
        expect(["not_found", "method_not_allowed"], `${method} ${path}`).not.toContain(code);
      }
      for (const method of METHODS.filter((m) => !documented.includes(m))) await expect405(method, path, documented);
    }
  });

  test("a route listed twice (a mount on a path the app serves) fails at start, naming it", () => {
    const { payments, prices } = createPayments(run.services, OPERATIONS);
    const mount = { path: "/healthz", methods: ["GET", "POST"] as const, handle: () => new Response() };
    expect(() => createApp(run.services, { operations: OPERATIONS, baseUrl: () => "http://127.0.0.1:8402", payments, prices, mounts: [mount] })).toThrow(
      "Routes must be unique: GET /healthz listed more than once",
    );
  });

  test("an unknown path is 404 not_found in the error shape, whatever the method", async () => {
    for (const [method, path] of [
      ["GET", "/nope"],
      ["POST", "/api/nothing-here"],
      ["DELETE", "/console/nope"],
      ["GET", "/console/assets/x/y"],
    ]) {
      const response = await run.request(method!, path!);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(await response.json()).toEqual({ error: { code: "not_found", message: expect.any(String), details: {} } });
    }
  });
});

describe("the web console's page and files", () => {
  test("answer through the pipeline: request id, version header, a request log line; cached by their ETag", async () => {
    const page = await run.request("GET", "/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    const html = await page.text();
    const script = /<script[^>]+src="([^"]+)"/.exec(html)?.[1];
    const styles = /<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/.exec(html)?.[1];
    expect(script).toStartWith("/console/assets/");
    expect(styles).toStartWith("/console/assets/");
    const answers: [string, Response][] = [["/", page]];
    for (const [path, type] of [
      [script!, "text/javascript"],
      [styles!, "text/css"],
    ] as const) {
      const file = await run.request("GET", path);
      expect(file.status, path).toBe(200);
      expect(file.headers.get("content-type")).toStartWith(type);
      expect(file.headers.get("cache-control")).toContain("immutable");
      expect((await file.text()).length).toBeGreaterThan(1000);
      answers.push([path, file]);
      const again = await run.request("GET", path, undefined, { "if-none-match": file.headers.get("etag")! });
      expect(again.status).toBe(304);
    }
    expect(await (await run.request("GET", "/console/assets/chunk-none.js")).json()).toMatchObject({ error: { code: "not_found" } });
    // The log line is written after the answer is sent.
    const ids = answers.map(([, answer]) => answer.headers.get("x-request-id"));
    await until("a request line for each answer", 10_000, () => ids.every((id) => lines.some((l) => l.msg === "request" && l.req_id === id)));
    for (const [path, answer] of answers) {
      const id = answer.headers.get("x-request-id");
      expect(answer.headers.get("x-ckg-version"), path).toBe(VERSION);
      expect(id?.length, path).toBeGreaterThan(0);
      const line = lines.find((l) => l.msg === "request" && l.req_id === id);
      expect(line, path).toMatchObject({ method: "GET", path, status: 200, route: path === "/" ? "/" : "/console/assets/:file" });
    }
  });

  test("count against the per-client rate limit like every route", async () => {
    const limited = await startServices({ rate_limit_per_minute: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await limited.request("GET", "/")).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await limited.close();
    }
  });
});
