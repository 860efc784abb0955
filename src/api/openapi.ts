/**
 * @module api/openapi
 * The OpenAPI 3.1 document, generated from the operations table: paths, parameters, bodies and
 * answers come from each operation's schemas, prices from its price. Choices the spec leaves open
 * (error shape, limits, value formats) are written here and in the operations' descriptions.
 */
import { ERROR_CODES } from "../errors.ts";
import { INTERFACE_VERSION } from "../version.ts";
import { HTTP_STATUS } from "../operations/error-status.ts";
import { type JsonSchema, toJsonSchema } from "../operations/json-schema.ts";
import { type AnyOperation, pathParams } from "../operations/operation.ts";
import type { PriceList } from "../payments/prices.ts";

const errorSchema: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "details"],
      properties: {
        code: { type: "string", enum: [...ERROR_CODES] },
        message: { type: "string", description: "One sentence a person can act on." },
        details: { type: "object", additionalProperties: true },
      },
    },
  },
};

function errorResponse(description: string, retryAfter = false): JsonSchema {
  return {
    description,
    ...(retryAfter ? { headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds to wait before retrying." } } } : {}),
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  };
}

/** The document for this server: its operations at the prices it charges (none advertised as paid when payments are off). */
export function buildOpenApi(operations: readonly AnyOperation[], prices: PriceList, baseUrl: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const op of operations) {
    const path = op.path.replace(/:([a-z_]+)/g, "{$1}");
    const input = toJsonSchema(op.input, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
    const inPath = pathParams(op.path);
    const parameters: JsonSchema[] = [];
    for (const [name, schema] of Object.entries(input.properties ?? {})) {
      const where = inPath.includes(name) ? "path" : op.method === "GET" ? "query" : undefined;
      if (!where) continue;
      const { description, ...rest } = schema;
      parameters.push({ name, in: where, required: where === "path" || (input.required ?? []).includes(name), schema: rest, description });
    }
    let requestBody: JsonSchema | undefined;
    if (op.method === "POST") {
      const body = structuredClone(input) as { properties?: Record<string, JsonSchema>; required?: string[] };
      for (const name of inPath) delete body.properties?.[name];
      requestBody = { required: true, content: { "application/json": { schema: body, example: op.example } } };
    }
    const responses: Record<string, JsonSchema> = {
      "200": { description: "Success.", content: { "application/json": { schema: toJsonSchema(op.output, "output") } } },
      "400": errorResponse("Invalid input: malformed JSON, a field of the wrong type or out of range, a syntax error."),
      "404": errorResponse("Unknown entity, signal type or route."),
      "413": errorResponse("Request body over 64 KiB."),
      "429": errorResponse("Per-client rate limit exceeded.", true),
      "503": errorResponse("The dataset or graph is still loading.", true),
    };
    if (op.needs.includes("graph")) {
      responses["403"] = errorResponse("The query would change data or reach outside the published data.");
      responses["504"] = errorResponse("The query ran past its time limit (default 10 s).");
    }
    const price = prices.of(op.name);
    const paid = price > 0;
    if (paid) {
      responses["402"] = {
        description:
          "Payment required (x402 v2): the PAYMENT-REQUIRED header (base64 JSON) lists accepted payments; repeat the request " +
          "with a PAYMENT-SIGNATURE header. Invalid requests are answered with their 4xx before any payment is asked.",
      };
    }
    (paths[path] ??= {})[op.method.toLowerCase()] = {
      operationId: op.name,
      summary: op.summary,
      description: op.description,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses,
      // A paid route takes the x402 payment header; a free one needs nothing.
      security: paid ? [{ x402: [] }] : [],
      "x-price-usd": price,
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
        `Errors use one shape: {"error": {code, message, details}}; codes and statuses: ${ERROR_CODES.map((c) => `${c} ${HTTP_STATUS[c]}`).join(", ")}. ` +
        "The server's build version is in the x-ckg-version response header.",
    },
    servers: [{ url: baseUrl }],
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        x402: {
          type: "apiKey",
          in: "header",
          name: "PAYMENT-SIGNATURE",
          description:
            "An x402 v2 payment (base64 JSON PaymentPayload), per request. Call without it to get 402 with the PAYMENT-REQUIRED header " +
            "(the accepted payments, one per chain: scheme, network, asset, amount, pay-to; USDC on Base and/or Solana); each operation's " +
            "x-price-usd is its price in USD. With sign-in-with-x on, a wallet that paid for a resource may send a signed CAIP-122 message " +
            "in the SIGN-IN-WITH-X header instead, for the time the 402 declares.",
        },
      },
    },
  };
}
