/**
 * Requests generated from the server's own /openapi.json (fast-check): for each operation, inputs
 * near its schema (every type, bounds and one past them, enum values, unicode and control
 * characters) and far from it (wrong types, huge and negative numbers, deep nesting, oversize and
 * malformed bodies, repeated and unknown parameters, garbage payment headers), plus MCP messages.
 * `check` says what is wrong with an answer: a 5xx, a body outside the documented error shape, a
 * charge. Used by test/api/fuzz.test.ts (a bounded run) and scripts/bench/fuzz.ts (100,000).
 */
import fc from "fast-check";
import { ERROR_CODES } from "../../src/errors.ts";

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  anyOf?: Schema[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  default?: unknown;
};

export interface FuzzRequest {
  operation: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const nasty = fc.constantFrom(
  "",
  " ",
  "\u0000",
  "\u0007\u001b[31m",
  "\u202eevil",
  "\ud800",
  "😀".repeat(500),
  "' OR 1=1 --",
  "../../etc/passwd",
  "%00%ff",
  "<script>alert(1)</script>",
  "SELECT * FROM read_csv('/etc/passwd')",
  "LOAD <http://example.com/x>",
  "a".repeat(70_000),
);
const numbers = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, -0, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 1e21, -1e21, 1e308, -1e308, Number.MIN_VALUE),
);
/** JSON nested `depth` levels deep: arrays or objects. */
const nested = (depth: number, object: boolean) => (object ? '{"a":'.repeat(depth) + "1" + "}".repeat(depth) : "[".repeat(depth) + "]".repeat(depth));
const wild: fc.Arbitrary<unknown> = fc.oneof(fc.anything(), nasty, numbers, fc.constantFrom(null, true, [], {}, [[[[[]]]]]));

/** A value for `schema`, mostly near it (what a careless client sends), sometimes far from it. */
function valueFor(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return wild;
  const options: fc.Arbitrary<unknown>[] = [];
  if (schema.enum) options.push(fc.constantFrom(...schema.enum));
  if (schema.const !== undefined) options.push(fc.constant(schema.const));
  for (const alternative of schema.anyOf ?? []) options.push(valueFor(alternative, depth + 1));
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  for (const type of types) {
    if (type === "string") options.push(fc.oneof(fc.string({ unit: "grapheme", maxLength: 80 }), fc.string({ unit: "binary", maxLength: 40 }), nasty));
    if (type === "integer" || type === "number") {
      const edges = [schema.minimum, schema.maximum].filter((v): v is number => v !== undefined).flatMap((v) => [v, v - 1, v + 1]);
      options.push(fc.oneof(type === "integer" ? fc.integer({ min: -5, max: 20_000 }) : fc.double(), numbers, ...(edges.length ? [fc.constantFrom(...edges)] : [])));
    }
    if (type === "boolean") options.push(fc.boolean());
    if (type === "array") options.push(fc.array(valueFor(schema.items, depth + 1), { maxLength: 14 }));
    if (type === "object") options.push(objectFor(schema, depth));
  }
  if (options.length === 0) options.push(wild);
  return fc.oneof({ weight: 6, arbitrary: fc.oneof(...options) }, { weight: 1, arbitrary: wild });
}

function objectFor(schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries(schema.properties ?? {});
  const known = fc.record(Object.fromEntries(properties.map(([name, p]) => [name, valueFor(p, depth + 1)])), { requiredKeys: [] });
  return fc.oneof(
    { weight: 5, arbitrary: known },
    { weight: 1, arbitrary: fc.tuple(known, fc.dictionary(fc.string({ maxLength: 12 }), wild, { maxKeys: 3 })).map(([a, b]) => ({ ...b, ...a })) },
  );
}

/** Garbage in a payment-signature header (what a header may carry: visible ASCII). */
const garbagePayment = fc
  .oneof(fc.string({ maxLength: 200 }), nasty, fc.constant(Buffer.from('{"x402Version":2}').toString("base64")), fc.base64String({ maxLength: 300 }))
  .map((text) => text.replace(/[^\x20-\x7e]/g, "").slice(0, 4000));

/** Requests for every operation of an OpenAPI document. */
export function requestsFrom(openapi: { paths: Record<string, Record<string, any>> }): fc.Arbitrary<FuzzRequest> {
  const arbitraries: fc.Arbitrary<FuzzRequest>[] = [];
  for (const [template, methods] of Object.entries(openapi.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      // /readyz answers 503 by design while a graph process restarts (a fuzzed query past its time
      // limit restarts one): the server's state, not a failure of the request.
      if (op.operationId === "readiness") continue;
      const parameters = (op.parameters ?? []) as { name: string; in: string; schema: Schema }[];
      const body = op.requestBody?.content?.["application/json"]?.schema as Schema | undefined;
      const pathParams = parameters.filter((p) => p.in === "path");
      const query = parameters.filter((p) => p.in === "query");
      const request = fc
        .record({
          path: fc.tuple(...pathParams.map((p) => valueFor(p.schema))).map((values) =>
            pathParams.reduce((path, p, i) => path.replace(`{${p.name}}`, encodeURIComponent(String(values[i]).toWellFormed())), template),
          ),
          query: fc.record(Object.fromEntries(query.map((p) => [p.name, valueFor(p.schema)])), { requiredKeys: [] }),
          repeated: fc.boolean(),
          body: body ? bodyFor(body) : fc.constant(undefined),
          payment: fc.option(garbagePayment, { freq: 4 }),
        })
        .map(({ path, query: q, repeated, body: text, payment }) => {
          const search = new URLSearchParams();
          for (const [name, value] of Object.entries(q)) {
            search.append(name, typeof value === "string" ? value : JSON.stringify(value) ?? "");
            if (repeated && search.size === 1) search.append(name, "1");
          }
          const headers: Record<string, string> = { "content-type": "application/json" };
          if (payment !== null) headers["payment-signature"] = payment;
          return { operation: op.operationId as string, method: method.toUpperCase(), path: `${path}${search.size ? `?${search}` : ""}`, headers, body: text };
        });
      arbitraries.push(request);
    }
  }
  return fc.oneof(...arbitraries);
}

/** A body: JSON near the schema, or bytes no JSON object: malformed, deeply nested, oversize, not an object. */
function bodyFor(schema: Schema): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: valueFor(schema).map((v) => JSON.stringify(v) ?? "null") },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.string({ maxLength: 100 }),
        fc.constantFrom("{", '{"query": ', "{'a': 1}", "[]", "42", '"text"', "null", "\u0000"),
        fc.integer({ min: 100, max: 200_000 }).chain((depth) => fc.boolean().map((object) => nested(depth, object))),
        fc.constant(`{"query": "${"x".repeat(70_000)}"}`),
      ),
    },
  );
}

/** MCP messages: JSON-RPC calls near the protocol (tools/call with fuzzed arguments) and far from it. */
export function mcpMessages(toolNames: string[]): fc.Arbitrary<string> {
  const call = fc.record({
    jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant("2.0") }, { weight: 1, arbitrary: wild }),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null)),
    method: fc.oneof(fc.constantFrom("tools/call", "tools/list", "resources/read", "resources/list", "initialize", "ping"), fc.string({ maxLength: 20 })),
    params: fc.record(
      {
        name: fc.oneof(fc.constantFrom(...toolNames), fc.string({ maxLength: 20 }), wild),
        arguments: fc.oneof(fc.dictionary(fc.string({ maxLength: 12 }), wild, { maxKeys: 4 }), wild),
        uri: fc.oneof(fc.constantFrom("ckg://schema", "ckg://signals/catalog"), fc.string({ maxLength: 30 })),
        _meta: fc.option(fc.record({ "x402/payment": wild }), { freq: 3 }),
      },
      { requiredKeys: [] },
    ),
  });
  return fc.oneof(
    { weight: 8, arbitrary: call.map((c) => JSON.stringify(c)) },
    { weight: 1, arbitrary: fc.array(call, { maxLength: 3 }).map((batch) => JSON.stringify(batch)) },
    { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom("{", "[]", "null", nested(5000, false))) },
  );
}

export const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/**
 * Bun's HTTP parser answers a request line plus headers over 16 KiB with a bare 431 before ckg sees
 * the request (as nginx or Node would); README, "Errors".
 */
const MAX_REQUEST_HEAD_BYTES = 16 * 1024;

/** What is wrong with an answer, or undefined: a 5xx, an error outside the documented shape, a charge. `headBytes`: the request line's and headers' size. */
export async function check(response: Response, mcp = false, headBytes = 0): Promise<string | undefined> {
  const text = await response.text();
  if (response.status === 431 && headBytes > MAX_REQUEST_HEAD_BYTES) return undefined;
  if (response.status >= 500) return `status ${response.status}: ${text.slice(0, 300)}`;
  if (response.headers.get("payment-response")) return "charged";
  if (mcp && response.status < 400) return undefined; // a JSON-RPC answer: its errors are the protocol's
  if (response.status === 204) return text === "" ? undefined : "status 204 with a body";
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return `status ${response.status}: body is not JSON: ${text.slice(0, 200)}`;
  }
  // MCP refuses a malformed message with a JSON-RPC error (the protocol's shape), the rest in ours.
  if (mcp && body?.jsonrpc === "2.0" && Number.isInteger(body.error?.code) && typeof body.error?.message === "string") return undefined;
  if (response.status === 402 || response.status < 300) return body && typeof body === "object" ? undefined : `status ${response.status}: not a JSON object`;
  const error = body?.error;
  if (!error || !ERROR_CODES.includes(error.code) || typeof error.message !== "string" || typeof error.details !== "object" || error.details === null) {
    return `status ${response.status}: not the documented error shape: ${text.slice(0, 200)}`;
  }
  return undefined;
}
