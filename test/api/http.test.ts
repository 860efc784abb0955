import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod";
import { createServer } from "../../src/supervisor/assemble.ts";
import { defineOperation, inQuery, pathParams } from "../../src/operations/operation.ts";
import { READS } from "../../src/operations/effects.ts";
import { OPERATIONS } from "../../src/operations/table/index.ts";
import { CkgError, ERROR_CODES, type ErrorCode, errorMeaning } from "../../src/errors.ts";
import { VERSION } from "../../src/version.ts";
import { type Running, json, startServices } from "../support/fixture.ts";
import { until } from "../support/until.ts";

let run: Running;
beforeAll(async () => {
  run = await startServices();
});
afterAll(() => run.close());

describe("the operations table", () => {
  test("two operations with one name or one route fail at start, naming every offender", () => {
    const [sparql, search] = OPERATIONS;
    const table = [sparql, search, { ...sparql, path: "/api/sparql2" }, { ...search, name: "search_again" }];
    expect(() => createServer(run.services, { baseUrl: "http://127.0.0.1:8402", operations: table })).toThrow(
      `Operations must be unique: name ${sparql.name} (2 operations); route ${search.method} ${search.path} (2 operations)`,
    );
  });
});

describe("every route", () => {
  test("answers with the build version and a request id", async () => {
    for (const path of ["/healthz", "/api/schema", "/nope"]) {
      const response = await run.request("GET", path);
      expect(response.headers.get("x-ckg-version")).toBe(VERSION);
      expect(response.headers.get("x-request-id")?.length).toBeGreaterThan(0);
    }
    const echoed = await run.request("GET", "/healthz", undefined, { "x-request-id": "abc-123" });
    expect(echoed.headers.get("x-request-id")).toBe("abc-123");
  });

  test("an unknown route is 404 not_found in the error shape", async () => {
    const { status, body } = await json(await run.request("GET", "/api/nothing-here"));
    expect(status).toBe(404);
    expect(body).toEqual({ error: { code: "not_found", message: expect.any(String), details: {} } });
  });

  test("a known route with the wrong method is 405 with Allow", async () => {
    const response = await run.request("DELETE", "/api/explore");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(((await response.json()) as any).error.code).toBe("method_not_allowed");
  });

  test("malformed JSON, a non-object body and an empty body are 400", async () => {
    for (const body of ["{not json", "[1,2]", "\"text\"", ""]) {
      const { status, body: answer } = await json(await run.request("POST", "/api/explore", body));
      expect(status).toBe(400);
      expect(answer.error.code).toBe("invalid_request");
    }
  });

  test("a body over 64 KiB is 413, with or without Content-Length", async () => {
    const big = JSON.stringify({ query: `SELECT * WHERE { ?s ?p ?o } # ${"x".repeat(70_000)}` });
    const declared = await run.request("POST", "/api/sparql", big);
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as any).error.code).toBe("payload_too_large");
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode(big.slice(i * 7100, (i + 1) * 7100)));
        controller.close();
      },
    });
    const chunked = await run.app.handle(new Request("http://127.0.0.1/api/sparql", { method: "POST", body: stream, duplex: "half" } as RequestInit));
    expect(chunked.status).toBe(413);
  });

  test("health, readiness and metrics", async () => {
    expect((await json(await run.request("GET", "/healthz"))).body.status).toBe("ok");
    const ready = await json(await run.request("GET", "/readyz"));
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe("ready");
    expect(ready.body.snapshot.synthetic).toBe(true);
    expect(ready.body.snapshot.notice).toContain("SYNTHETIC");
    expect(ready.body.graph.phase).toBe("ready");
    await run.request("GET", "/api/schema");
    // A request is counted once its response is sent, a moment after the caller has it.
    const counted = 'ckg_http_requests_total{method="GET",route="/api/schema",status="200"}';
    const metrics = await until("the request counted in /metrics", 10_000, async () => {
      const text = await (await run.request("GET", "/metrics")).text();
      return text.includes(counted) ? text : undefined;
    });
    expect(metrics).toContain("ckg_http_request_duration_seconds_bucket");
    expect(metrics).toMatch(/ckg_graph_quads \d+/);
    expect(metrics).toContain("ckg_ready 1");
  });
});

describe("OpenAPI and docs", () => {
  test("the OpenAPI document is generated from the operations table", async () => {
    const { body } = await json(await run.request("GET", "/openapi.json"));
    expect(body.openapi).toBe("3.1.0");
    expect(body.info.version).toBe("1.0.0");
    for (const op of OPERATIONS) {
      const entry = body.paths[op.path.replace(/:([a-z_]+)/g, "{$1}")][op.method.toLowerCase()];
      expect(entry.operationId).toBe(op.name);
      // Payments are off here (no pay-to address): nothing is advertised as paid (test/payments for prices on).
      expect(entry["x-price-usd"]).toBe(0);
      expect(entry.responses["402"]).toBeUndefined();
    }
    expect(body.paths["/api/changes"].get.parameters.map((p: any) => p.name).sort()).toEqual(
      ["cursor", "entity_uri", "limit", "operation", "since_hours", "summary"].sort(),
    );
    // Where the answers say a value is synthetic demo data, the document says so too.
    const schema = (path: string, method = "get") => body.paths[path][method].responses["200"].content["application/json"].schema;
    const signal = schema("/api/insights/signals").properties.signals.items;
    expect(signal.required).toContain("synthetic");
    expect(signal.properties.synthetic.type).toBe("boolean");
    const insights = schema("/api/insights/entity/{entity_name}");
    expect(insights.properties.summary.required).toEqual(expect.arrayContaining(["synthetic", "time_series_tables"]));
    expect(insights.properties.narratives.items.required).toContain("synthetic");
    const block = schema("/api/explore", "post").properties.relationships.additionalProperties;
    expect(block.required).toContain("synthetic");
    expect(block.properties.figures_note.type).toBe("string");
  });

  test("the docs page lists every operation", async () => {
    const html = await (await run.request("GET", "/docs")).text();
    for (const op of OPERATIONS) expect(html).toContain(`${op.method} ${op.path}`);
    expect(html).not.toContain("per request (x402)");
  });

  // Written out from the README's "Errors and limits", not read from the table under test.
  const documented: Record<string, number> = {
    invalid_request: 400, invalid_sparql: 400, invalid_sql: 400, unauthorized: 401, read_only: 403, forbidden_origin: 403,
    entity_not_found: 404, unknown_signal_type: 404, not_found: 404, method_not_allowed: 405, payload_too_large: 413,
    too_many_entities: 422, query_too_expensive: 422, rate_limited: 429, internal: 500, upstream_unavailable: 502,
    not_ready: 503, query_timeout: 504, settlement_unknown: 504,
  };

  test("an error of each code reaches the client as its documented status, in the one error shape; a stray error as 500 internal", async () => {
    expect(Object.keys(documented).sort()).toEqual([...ERROR_CODES].sort());
    // An operation that fails as asked, served beside the table by the real app.
    const failing = defineOperation({
      name: "fail_as_asked",
      method: "POST",
      path: "/api/fail-as-asked",
      summary: "Fails with the error code it is given (test only)",
      description: "Test only.",
      priceUsd: 0,
      effects: READS,
      input: z.strictObject({ code: z.string() }),
      output: z.strictObject({}),
      needs: [],
      example: { code: "internal" },
      handler({ code }): Record<string, never> {
        if (code === "stray") throw new Error("a detail of ours that must not leak");
        throw new CkgError(code as ErrorCode, `failed as ${code}`, { details: { asked: code }, retryAfterSeconds: code === "rate_limited" ? 7 : undefined });
      },
    });
    const app = createServer(run.services, { baseUrl: "http://127.0.0.1:8402", operations: [...OPERATIONS, failing] });
    const fail = (code: string) => app.handle(new Request("http://127.0.0.1:8402/api/fail-as-asked", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code }) }));
    for (const code of ERROR_CODES) {
      const response = await fail(code);
      expect(response.status, code).toBe(documented[code]!);
      expect(await response.json()).toEqual({ error: { code, message: `failed as ${code}`, details: { asked: code } } });
      expect(response.headers.get("retry-after"), code).toBe(code === "rate_limited" ? "7" : null);
    }
    const stray = await fail("stray");
    expect(stray.status).toBe(500);
    const text = await stray.text();
    expect(JSON.parse(text).error.code).toBe("internal");
    expect(text).not.toContain("must not leak");
  });

  test("each code's fault agrees with its documented status: the request's is a 4xx, the server's a 5xx", () => {
    // operations/judge reads the fault, not the status: a server failure taken for the request's would be offered a payment.
    for (const code of ERROR_CODES) expect(errorMeaning(code).fault, code).toBe(documented[code]! >= 500 ? "server" : "request");
  });

  test("every operation's example is valid input and its answer matches its output schema, and the one OpenAPI documents", async () => {
    const documented = (await json(await run.request("GET", "/openapi.json"))).body.paths;
    const validator = new AjvJsonSchemaValidator();
    // The subscription the table's first subscription operation makes: the later ones act on it with its secret.
    let made: { subscription_id: string; secret: string } | undefined;
    for (const op of OPERATIONS) {
      expect(op.input.safeParse(op.example).success).toBe(true);
      const example: Record<string, unknown> = { ...op.example, ...(op.bearer && made ? { subscription_id: made.subscription_id } : {}) };
      const headers: Record<string, string> = op.bearer && made ? { authorization: `Bearer ${made.secret}` } : {};
      // Path parameters go into the path; the rest into the query string or body.
      const params = pathParams(op.path);
      const path = op.path.replace(/:([a-z_]+)/g, (_, name: string) => encodeURIComponent(String(example[name])));
      const rest = Object.entries(example).filter(([k]) => !params.includes(k));
      const response = inQuery(op)
        ? await run.request(op.method, `${path}?${new URLSearchParams(rest.map(([k, v]): [string, string] => [k, String(v)]))}`, undefined, headers)
        : await run.request("POST", path, Object.fromEntries(rest), headers);
      expect(response.status, op.name).toBe(200);
      const answer = await response.json();
      if (op.name === "subscribe") made = answer as typeof made;
      const parsed = op.output.safeParse(answer);
      if (!parsed.success) throw new Error(`${op.name}: ${parsed.error.message}`);
      const schema = documented[op.path.replace(/:([a-z_]+)/g, "{$1}")][op.method.toLowerCase()].responses["200"].content["application/json"].schema;
      const fits = validator.getValidator(schema)(answer);
      expect(fits.valid, `${op.name}: ${fits.errorMessage}`).toBe(true);
    }
  });
});

describe("rate limit", () => {
  test("past the per-client limit: 429 rate_limited with Retry-After", async () => {
    const limited = await startServices({ rate_limit_per_minute: 5 });
    try {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 7; i++) {
        last = await limited.request("GET", "/healthz");
        statuses.push(last.status);
      }
      expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      expect(statuses[6]).toBe(429);
      expect(Number(last!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(((await last!.json()) as any).error.code).toBe("rate_limited");
    } finally {
      await limited.close();
    }
  });
});
