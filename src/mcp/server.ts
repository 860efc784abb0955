/**
 * @module mcp/server
 * The MCP server: the operations as tools, the schema, signal catalog and changes as resources,
 * payments as the x402 MCP transport specifies (an unpaid call to a paid tool returns the
 * PaymentRequired object as an error result; the retry carries `_meta["x402/payment"]`; the answer
 * carries `_meta["x402/payment-response"]`). Calls go through the same invoke path as HTTP, so the
 * rules are the same: the offer first (an unpaid call gets the requirements whatever its
 * arguments, saying in `extensions["ckg/input"]` whether they would be answered), no charge on an
 * error, replays refused, settlement before the answer.
 *
 * Two protocol eras on one endpoint (official SDK v2): 2026-07-28, stateless by design, with
 * `subscriptions/listen` (mcp/listen), served by the SDK's entry; and 2025-era clients (up to
 * 2025-11-25), which open with `initialize` and carry no per-request envelope, served here
 * statelessly as before. The SDK's own test decides which era a request belongs to
 * (`isLegacyRequest`), and one server factory serves both.
 */
import {
  type CallToolResult,
  type McpHttpHandler,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
} from "@modelcontextprotocol/server";
import { CkgError, asCkgError } from "../errors.ts";
import { type Services, operationContext } from "../operations/context.ts";
import { type Invoked, invoke } from "../operations/invoke.ts";
import { resourceDiscovery } from "../operations/discovery.ts";
import type { AnyOperation } from "../operations/operation.ts";
import type { PaymentGate } from "../payments/gate.ts";
import type { PriceList } from "../payments/prices.ts";
import { VERSION } from "../version.ts";
import { PAYMENT_META, callResult } from "./call-result.ts";
import { SERVER_TITLE } from "./directory.ts";
import { FeedBus } from "./listen.ts";
import { RESOURCES, TEMPLATES, readResource } from "./resources.ts";
import { toolFor } from "./tools.ts";

/** How often a long tool call tells a client that asked for progress that it is still running. */
const PROGRESS_EVERY_MS = 1000;

/** Which protocol era a server instance serves (the SDK's factory context names the same two). */
export type Era = "legacy" | "modern";

export interface McpDeps {
  services: Services;
  operations: readonly AnyOperation[];
  payments: PaymentGate;
  /** The server's one price list: tool descriptions state what the gate charges. */
  prices: PriceList;
  /** Where tools live, for the resource a payment is for: `<base>/mcp`. */
  endpoint: () => string;
}

/**
 * The MCP endpoint of one app: the tool list is built once (schemas and prices do not change while
 * the server runs); `server(era)` makes a protocol server over it, one per HTTP request (stateless)
 * or one per stdio connection; `handle` answers a Streamable HTTP request of either era.
 */
export class McpEndpoint {
  private tools: ReturnType<typeof toolFor>[] | undefined;
  private modern: McpHttpHandler | undefined;
  private closed = false;

  constructor(private readonly deps: McpDeps) {}

  async handle(request: Request): Promise<Response> {
    if (await isLegacyRequest(request)) return this.legacy(request);
    if (this.closed) throw new CkgError("not_ready", "The server is shutting down.", { retryAfterSeconds: 5 });
    this.modern ??= createMcpHandler(({ era }) => this.server(era), {
      // 2025-era requests never reach it (routed above), so its own fallback is not needed.
      legacy: "reject",
      bus: new FeedBus(this.deps.services.events, this.deps.services.log),
      onerror: (error) => this.deps.services.log.debug({ err: error.message }, "mcp: request refused or failed"),
    });
    return this.modern.fetch(request);
  }

  /**
   * Ends the open listen streams, each with the graceful end the revision defines (the empty
   * subscriptions/listen result), and refuses new 2026-07-28 requests: a stopping server waits for
   * open requests, and a listen stream never ends by itself.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.modern?.close();
  }

  /**
   * A 2025-era request: a fresh server on a stateless transport, answered as plain JSON unless
   * the call asked for progress (notifications need the event stream), as ckg always answered.
   * There is no session, so no GET stream and nothing to DELETE.
   */
  private async legacy(request: Request): Promise<Response> {
    if (request.method !== "POST") {
      return Response.json({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this endpoint is stateless (POST only)." }, id: null }, { status: 405, headers: { allow: "POST" } });
    }
    const server = this.server("legacy");
    const progress = (await request.clone().text()).includes('"progressToken"');
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

  /** A server for one era; `listen` says whether it offers subscriptions/listen (2026-07-28 over HTTP only, see cli/mcp). */
  server(era: Era, listen = era === "modern"): Server {
    this.tools ??= this.deps.operations.map((op) => toolFor(op, this.deps.prices.of(op.name), this.deps.services.config));
    return createMcpServer(this.deps, this.tools, era, listen);
  }
}

function createMcpServer(deps: McpDeps, tools: ReturnType<typeof toolFor>[], era: Era, listen: boolean): Server {
  const server = new Server(
    // The same title and version as the Server Card and server.json (mcp/directory).
    { name: "ckg", title: SERVER_TITLE, version: VERSION },
    {
      // Resource updates are heard on subscriptions/listen, which only 2026-07-28 has: a stateless
      // 2025-era server has no session to keep a resources/subscribe in, so it offers none.
      capabilities: { tools: {}, resources: listen ? { subscribe: true } : {} },
      instructions:
        "Crypto knowledge graph: find entities with `search`, read them with `explore`, query the graph with `sparql` and daily " +
        "series with `timeseries` (read `ckg://schema` first), and read risk/opportunity signals (`signals_catalog`, " +
        "`signals_overview`, `signals`, `entity_insights`). Paid tools return x402 payment requirements until paid." +
        (listen ? " To hear new signals of a type without polling, subscriptions/listen to `ckg://signals/<signal_type>` (or `ckg://changes` for graph changes)." : ""),
    },
  );
  const byName = new Map(deps.operations.map((op) => [op.name, op]));
  const schemaOf = new Map(tools.map((tool) => [tool.name, tool.outputSchema]));

  server.setRequestHandler("tools/list", async () => ({ tools }));

  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
    const op = byName.get(request.params.name);
    // A tool that does not exist is the caller's protocol mistake, not a tool's failure.
    if (!op) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No tool ${request.params.name}; list the tools to see them.`);
    const meta = { ...request.params._meta, ...ctx.mcpReq._meta };
    const context = operationContext(deps.services, crypto.randomUUID(), { tool: op.name });
    const progress = progressReporter(meta.progressToken, (params) => ctx.mcpReq.notify({ method: "notifications/progress", params }));
    let outcome: Invoked;
    try {
      outcome = await invoke(op, request.params.arguments ?? {}, context, deps.payments, {
        resourceUrl: `${deps.endpoint()}#${op.name}`,
        describe: () => resourceDiscovery(op, "mcp"),
        payload: meta[PAYMENT_META],
      });
    } catch (error) {
      // What no one meant is a bare `internal` error result, as every other failure is a result.
      outcome = { type: "refused", error: asCkgError(error) };
    } finally {
      await progress.done();
    }
    if (outcome.type === "refused" && outcome.error.code === "internal") {
      context.log.error({ err: (outcome.error.cause as Error | undefined)?.message ?? outcome.error.message }, "tool failed");
    }
    return callResult(outcome, (result) => server.projectCallToolResult(result, schemaOf.get(op.name)));
  });

  server.setRequestHandler("resources/list", async () => ({ resources: RESOURCES }));
  server.setRequestHandler("resources/templates/list", async () => ({ resourceTemplates: TEMPLATES }));
  server.setRequestHandler("resources/read", async (request) => {
    const uri = request.params.uri;
    const body = await readResource(deps.services, uri);
    if (body === undefined) throw new ResourceNotFoundError(uri, `No resource ${uri}; list the resources and resource templates to see them.`);
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(body) }] };
  });
  return server;
}

/**
 * Progress of one tool call, for a client that sent a progressToken: "started" at once, then every
 * second how long it has run, then "done" (each with a higher `progress`, as the protocol asks).
 */
function progressReporter(token: unknown, send: (params: { progressToken: string | number; progress: number; total?: number; message: string }) => Promise<void>) {
  if (typeof token !== "string" && typeof token !== "number") return { done: async () => undefined };
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
