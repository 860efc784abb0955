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
  ListResourceTemplatesRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type OperationServices, operationContext } from "../operations/context.ts";
import { invoke } from "../operations/invoke.ts";
import { resourceDiscovery } from "../operations/discovery.ts";
import type { AnyOperation } from "../operations/operation.ts";
import { toHttpError } from "../operations/error-status.ts";
import type { PaymentGate } from "../payments/gate.ts";
import { PaymentRequiredError } from "../payments/payment-required.ts";
import type { PriceList } from "../payments/prices.ts";
import { resolveEntity } from "../graph/explore.ts";
import { signalCatalog } from "../signals/catalog.ts";
import { DETECTORS } from "../signals/detectors/index.ts";
import { VERSION } from "../version.ts";
import { fitForAgent, toolFor } from "./tools.ts";

export const PAYMENT_META = "x402/payment";
export const PAYMENT_RESPONSE_META = "x402/payment-response";

const RESOURCES = [
  { uri: "ckg://schema", name: "schema", title: "Graph and time-series schema", description: "Ontology classes and predicates, ts_* tables and columns, data sources and provenance (GET /api/schema).", mimeType: "application/json" },
  { uri: "ckg://signals/catalog", name: "signals-catalog", title: "Signal catalog", description: `The ${DETECTORS.length} signal types: descriptions, scoring criteria, evidence schemas (GET /api/signals/catalog).`, mimeType: "application/json" },
];

const TEMPLATES = [
  { uriTemplate: "ckg://entity/{id}", name: "entity", title: "An entity", description: "One entity by its graph id (token/usd-coin), URI or name: its URI, type, labels and the other entities of the same name (free; its facts and figures: the explore tool).", mimeType: "application/json" },
  { uriTemplate: "ckg://signals/{signal_type}", name: "signal-type", title: "A signal type", description: `One of the ${DETECTORS.length} signal types (a slug of ckg://signals/catalog): its category, description, scoring criteria and evidence schema.`, mimeType: "application/json" },
];

/** How often a long tool call tells a client that asked for progress that it is still running. */
const PROGRESS_EVERY_MS = 1000;

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
    // A plain JSON answer, unless the call asked for progress: notifications need the event stream.
    const progress = request.method === "POST" && (await request.clone().text()).includes('"progressToken"');
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !progress });
    await server.connect(transport);
    let response: Response;
    try {
      response = await transport.handleRequest(request);
    } catch (error) {
      void server.close();
      throw error;
    }
    if (!progress || !response.body) {
      void server.close();
      return response;
    }
    // The event stream carries the notifications, then the answer: the server closes once it ends.
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    void response.body.pipeTo(writable).finally(() => void server.close());
    return new Response(readable, response);
  }

  server(): Server {
    this.tools ??= this.deps.operations.map((op) => toolFor(op, this.deps.prices.of(op.name), this.deps.services.config));
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

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const op = byName.get(request.params.name);
    // A tool that does not exist is the caller's protocol mistake, not a tool's failure.
    if (!op) throw new McpError(ErrorCode.InvalidParams, `No tool ${request.params.name}; list the tools to see them.`);
    const ctx = operationContext(deps.services, crypto.randomUUID(), { tool: op.name });
    const progress = progressReporter(request.params._meta?.progressToken, (params) => extra.sendNotification({ method: "notifications/progress", params }));
    try {
      const { answer, settlement } = await invoke(op, request.params.arguments ?? {}, ctx, deps.payments, {
        resourceUrl: `${deps.endpoint()}#${op.name}`,
        describe: () => resourceDiscovery(op, "mcp"),
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
    } finally {
      await progress.done();
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const body = readResource(deps, uri);
    if (body === undefined) throw new McpError(ErrorCode.InvalidParams, `No resource ${uri}; list the resources and resource templates to see them.`);
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(body) }] };
  });
  return server;
}

/** A resource's content, or undefined when the URI names none. */
function readResource(deps: McpDeps, uri: string): unknown {
  if (uri === "ckg://schema") return deps.services.snapshot().schema;
  if (uri === "ckg://signals/catalog") return signalCatalog();
  const signalType = /^ckg:\/\/signals\/([a-z0-9-]+)$/.exec(uri)?.[1];
  if (signalType) return signalCatalog().signal_types.find((t) => t.slug === signalType);
  const entity = /^ckg:\/\/entity\/(.+)$/.exec(uri)?.[1];
  if (!entity) return undefined;
  const names = deps.services.snapshot().names;
  const id = decodeURIComponent(entity);
  const node = names.get(id);
  const { node: found, others } = node ? { node, others: [] } : resolveEntity(names, id);
  return { uri: found.uri, id: found.id, name: found.name, type: found.type, labels: found.labels, other_entities_named_alike: others.map((o) => ({ uri: o.uri, name: o.name, type: o.type })) };
}

/**
 * Progress of one tool call, for a client that sent a progressToken: "started" at once, then every
 * second how long it has run, then "done" (each with a higher `progress`, as the protocol asks).
 */
function progressReporter(token: string | number | undefined, send: (params: { progressToken: string | number; progress: number; total?: number; message: string }) => Promise<void>) {
  if (token === undefined) return { done: async () => undefined };
  const started = performance.now();
  let step = 0;
  const report = (message: string, total?: number) => void send({ progressToken: token, progress: ++step, ...(total ? { total } : {}), message }).catch(() => undefined);
  report("started");
  const timer = setInterval(() => report(`running for ${Math.round((performance.now() - started) / 1000)} s`), PROGRESS_EVERY_MS);
  return {
    done: async () => {
      clearInterval(timer);
      report("done", step + 1);
    },
  };
}

/** A tool error in the documented error shape, as text an agent reads and as structured content. */
function errorResult(body: { error: { code: string; message: string; details: Record<string, unknown> } }): CallToolResult {
  return { isError: true, content: [{ type: "text", text: `${body.error.code}: ${body.error.message}\n${JSON.stringify(body)}` }], structuredContent: body };
}
