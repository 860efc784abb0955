/**
 * @module mcp/server
 * The MCP server: the operations as tools, the schema and signal catalog as resources, payments
 * as the x402 MCP transport specifies (an unpaid call to a paid tool returns the PaymentRequired
 * object as an error result; the retry carries `_meta["x402/payment"]`; the answer carries
 * `_meta["x402/payment-response"]`). Calls go through the same invoke path as HTTP, so the
 * validation, no-charge-on-error, replay and settlement rules are the same.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListResourcesRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type OperationServices, operationContext } from "../operations/context.ts";
import { invoke } from "../operations/invoke.ts";
import type { AnyOperation } from "../operations/operation.ts";
import { toHttpError } from "../operations/error-status.ts";
import type { PaymentGate } from "../payments/gate.ts";
import { PaymentRequiredError } from "../payments/payment-required.ts";
import type { PriceList } from "../payments/prices.ts";
import { signalCatalog } from "../signals/catalog.ts";
import { VERSION } from "../version.ts";
import { fitForAgent, toolFor } from "./tools.ts";

export const PAYMENT_META = "x402/payment";
export const PAYMENT_RESPONSE_META = "x402/payment-response";

const RESOURCES = [
  { uri: "ckg://schema", name: "schema", title: "Graph and time-series schema", description: "Ontology classes and predicates, ts_* tables and columns, data sources and provenance (GET /api/schema).", mimeType: "application/json" },
  { uri: "ckg://signals/catalog", name: "signals-catalog", title: "Signal catalog", description: "The 28 signal types: descriptions, scoring criteria, evidence schemas (GET /api/signals/catalog).", mimeType: "application/json" },
];

export interface McpDeps {
  services: OperationServices;
  operations: readonly AnyOperation[];
  payments: PaymentGate;
  /** The server's one price list: tool descriptions state what the gate charges. */
  prices: PriceList;
  /** Where tools live, for the resource a payment is for: `<base>/mcp`. */
  endpoint: () => string;
}

/**
 * The MCP endpoint of one app: the tool list is built once (schemas and prices do not change while
 * the server runs); `server()` makes a protocol server over it, one per HTTP request (stateless) or
 * one for stdio; `handle` answers a Streamable HTTP request.
 */
export class McpEndpoint {
  private tools: ReturnType<typeof toolFor>[] | undefined;

  constructor(private readonly deps: McpDeps) {}

  async handle(request: Request): Promise<Response> {
    const server = this.server();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      void server.close();
    }
  }

  server(): Server {
    this.tools ??= this.deps.operations.map((op) => toolFor(op, this.deps.prices.of(op.name)));
    return createMcpServer(this.deps, this.tools);
  }
}

function createMcpServer(deps: McpDeps, tools: ReturnType<typeof toolFor>[]): Server {
  const server = new Server(
    { name: "ckg", title: "ckg: crypto knowledge graph", version: VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        "Crypto knowledge graph: find entities with `search`, read them with `explore`, query the graph with `sparql` and daily " +
        "series with `timeseries` (read `ckg://schema` first), and read risk/opportunity signals (`signals_catalog`, " +
        "`signals_overview`, `signals`, `entity_insights`). Paid tools return x402 payment requirements until paid.",
    },
  );
  const byName = new Map(deps.operations.map((op) => [op.name, op]));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const op = byName.get(request.params.name);
    // A tool that does not exist is the caller's protocol mistake, not a tool's failure.
    if (!op) throw new McpError(ErrorCode.InvalidParams, `No tool ${request.params.name}; list the tools to see them.`);
    const ctx = operationContext(deps.services, crypto.randomUUID(), { tool: op.name });
    try {
      const { answer, settlement } = await invoke(op, request.params.arguments ?? {}, ctx, deps.payments, {
        resourceUrl: `${deps.endpoint()}#${op.name}`,
        payload: request.params._meta?.[PAYMENT_META],
      });
      const fitted = fitForAgent(answer) as Record<string, unknown>;
      return {
        content: [{ type: "text", text: JSON.stringify(fitted) }],
        structuredContent: fitted,
        ...(settlement ? { _meta: { [PAYMENT_RESPONSE_META]: settlement } } : {}),
      };
    } catch (error) {
      if (error instanceof PaymentRequiredError) {
        return { isError: true, structuredContent: error.paymentRequired as unknown as Record<string, unknown>, content: [{ type: "text", text: error.body }] };
      }
      const http = toHttpError(error);
      if (http.error.code === "internal") ctx.log.error({ err: (error as Error).message }, "tool failed");
      return errorResult(http.body);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const body = uri === "ckg://schema" ? deps.services.snapshot().schema : uri === "ckg://signals/catalog" ? signalCatalog() : undefined;
    if (body === undefined) throw new McpError(ErrorCode.InvalidParams, `No resource ${uri}; list the resources to see them.`);
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(body) }] };
  });
  return server;
}

/** A tool error in the documented error shape, as text an agent reads and as structured content. */
function errorResult(body: { error: { code: string; message: string; details: Record<string, unknown> } }): CallToolResult {
  return { isError: true, content: [{ type: "text", text: `${body.error.code}: ${body.error.message}\n${JSON.stringify(body)}` }], structuredContent: body };
}
