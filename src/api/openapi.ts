/**
 * @module api/openapi
 * The OpenAPI 3.1 document, generated from the app's list of routes: an operation of the table is
 * documented from its schemas (paths, parameters, bodies and answers), its price and its effects
 * (`x-effects`, operations/effects); another JSON route (health, readiness, the console's session)
 * by its own entry. Descriptions quote this server's settings (the query time limit). Choices docs/spec.md leaves open (docs/decisions/: error shape, limits, value formats) are written
 * here and in the operations' descriptions.
 */
import { ERROR_CODES, errorBodySchema } from "../errors.ts";
import { INTERFACE_VERSION } from "../version.ts";
import { HTTP_STATUS } from "./error-status.ts";
import { describeEffects } from "../operations/effects.ts";
import { type JsonSchema, toJsonSchema } from "../operations/json-schema.ts";
import { type AnyOperation, type DescriptionSettings, describeOperation, inQuery, pathParams, seconds } from "../operations/operation.ts";
import { capNote } from "../payments/client-cap.ts";
import type { PriceList } from "../payments/prices.ts";
import { MAX_BODY_BYTES } from "./body.ts";
import type { OpenApiEntry, Route } from "./routes.ts";

export function errorResponse(description: string, retryAfter = false): JsonSchema {
  return {
    description,
    ...(retryAfter ? { headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds to wait before retrying." } } } : {}),
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  };
}

/**
 * The document for this server: its documented routes, the operations at the prices it charges
 * (none advertised as paid when payments are off).
 */
export function buildOpenApi(routes: readonly Route[], prices: PriceList, baseUrl: string, settings: DescriptionSettings): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const { method, path, doc } of routes) {
    if (!doc) continue;
    const price = "operation" in doc ? prices.of(doc.operation.name) : 0;
    const entry = "operation" in doc ? operationEntry(doc.operation, settings) : doc.entry;
    const responses: Record<string, JsonSchema> = { ...entry.responses, "429": errorResponse("Per-client rate limit exceeded.", true) };
    if (price > 0) {
      const cap = capNote(price);
      responses["402"] = {
        description:
          "Payment required (x402 v2): the PAYMENT-REQUIRED header (base64 JSON) lists accepted payments; repeat the request " +
          "with a PAYMENT-SIGNATURE header. Asked whatever the input; extensions[\"ckg/input\"] says whether the input would be answered " +
          `(valid, or the error a paid request would get: it is refused with its 4xx and never charged).${cap ? ` ${price.toFixed(2)} USD: ${cap}.` : ""}`,
      };
    }
    (paths[path.replace(/:([a-z_]+)/g, "{$1}")] ??= {})[method.toLowerCase()] = {
      ...entry,
      responses,
      // A paid route takes the x402 payment header; a free one needs nothing.
      security: price > 0 ? [{ x402: [] }] : [],
      "x-price-usd": price,
      // What calling it does (operations/effects): the MCP tool's annotations say the same.
      ...("operation" in doc ? { "x-effects": doc.operation.effects } : {}),
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "ckg: crypto knowledge graph",
      version: INTERFACE_VERSION,
      license: { name: "MIT", identifier: "MIT" },
      description:
        "Knowledge graph of crypto entities over SPARQL, search and explore; daily time-series over SQL; typed signals. " +
        "Paid routes are charged per request with x402 v2 (USDC on Base, or on Solana where the server accepts it); free routes need no payment. " +
        "Each operation's x-effects says what calling it does: state reads (changes nothing), adds, or destroys (overwrites or deletes); " +
        "idempotent (a repeat changes nothing more); openWorld (reaches addresses outside this server). " +
        `Errors use one shape: {"error": {code, message, details}}; codes and statuses: ${ERROR_CODES.map((c) => `${c} ${HTTP_STATUS[c]}`).join(", ")}. ` +
        "The server's build version is in the x-ckg-version response header.",
    },
    servers: [{ url: baseUrl }],
    paths,
    components: {
      schemas: { Error: toJsonSchema(errorBodySchema, "output") },
      // Declared only where some route is paid: with payments off no operation names it.
      securitySchemes: prices.charging ? { x402: X402_SCHEME } : {},
    },
  };
}

/** How a paid route is paid: the x402 payment header. */
const X402_SCHEME = {
  type: "apiKey",
  in: "header",
  name: "PAYMENT-SIGNATURE",
  description:
    "An x402 v2 payment (base64 JSON PaymentPayload), per request. Call without it to get 402 with the PAYMENT-REQUIRED header " +
    "(the accepted payments, one per chain: scheme, network, asset, amount, pay-to; USDC on Base and/or Solana); each operation's " +
    "x-price-usd is its price in USD. With sign-in-with-x on, a wallet that paid for a resource may send a signed CAIP-122 message " +
    "in the SIGN-IN-WITH-X header instead, for the time the 402 declares.",
};

/** An operation's entry, from its schemas: parameters or body, its answer, the errors it can give. */
function operationEntry(op: AnyOperation, settings: DescriptionSettings): OpenApiEntry {
  const input = toJsonSchema(op.input, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
  const inPath = pathParams(op.path);
  const parameters: JsonSchema[] = [];
  for (const [name, schema] of Object.entries(input.properties ?? {})) {
    const where = inPath.includes(name) ? "path" : inQuery(op) ? "query" : undefined;
    if (!where) continue;
    const { description, ...rest } = schema;
    parameters.push({ name, in: where, required: where === "path" || (input.required ?? []).includes(name), schema: rest, description });
  }
  let requestBody: JsonSchema | undefined;
  if (!inQuery(op)) {
    const body = structuredClone(input) as { properties?: Record<string, JsonSchema>; required?: string[] };
    // Path parameters are in the path, not the body: neither a property nor required there, nor in the example.
    for (const name of inPath) delete body.properties?.[name];
    if (body.required) body.required = body.required.filter((name) => !inPath.includes(name));
    const example = Object.fromEntries(Object.entries(op.example as Record<string, unknown>).filter(([name]) => !inPath.includes(name)));
    // An operation with no fields of its own (all in the path or Authorization) reads no body as `{}` (api/operation-routes.ts).
    const required = Object.keys(body.properties ?? {}).some((name) => name !== op.bearer);
    requestBody = { required, content: { "application/json": { schema: body, example } } };
  }
  const responses: Record<string, JsonSchema> = {
    "200": { description: "Success.", content: { "application/json": { schema: toJsonSchema(op.output, "output") } } },
    "400": errorResponse("Invalid input: malformed JSON, a field of the wrong type or out of range, a syntax error."),
    "404": errorResponse("Unknown entity, signal type or route."),
    "413": errorResponse(`Request body over ${MAX_BODY_BYTES / 1024} KiB.`),
    "503": errorResponse("The dataset or graph is still loading.", true),
  };
  // A bearer field is the caller's secret (a subscription's): missing or wrong, the answer is 401.
  if (op.bearer) responses["401"] = errorResponse(`No ${op.bearer}, or not this resource's: send it as Authorization: Bearer <${op.bearer}>.`);
  if (op.needs.includes("graph")) {
    responses["403"] = errorResponse("The query would change data or reach outside the published data.");
    responses["504"] = errorResponse(`The query ran past its time limit (${seconds(settings.query_timeout_ms)} on this server).`);
  }
  return {
    operationId: op.name,
    summary: op.summary,
    description: `${describeOperation(op, settings)} ${describeEffects(op.effects)}`,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}
