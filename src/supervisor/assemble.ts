/**
 * @module supervisor/assemble
 * Where the server is assembled: the operations table, the one price list (operations' defaults
 * and CKG_PRICES), the payment gate, the HTTP API and, mounted on it, the MCP endpoint behind its
 * Host/Origin check and its Server Card. HTTP (api/) and MCP (mcp/) sit side by side below this and never import each
 * other.
 */
import { createApp } from "../api/app.ts";
import { serverCardResponse } from "../mcp/directory.ts";
import { allowedHosts, checkOrigin } from "../mcp/origin.ts";
import { McpEndpoint } from "../mcp/server.ts";
import { type AnyOperation, assertUniqueOperations } from "../operations/operation.ts";
import { OPERATIONS } from "../operations/table/index.ts";
import { PaymentGate } from "../payments/gate.ts";
import { PriceList } from "../payments/prices.ts";
import type { Supervisor } from "./supervisor.ts";

export interface ServerOptions {
  /** Public base URL, for OpenAPI `servers`, the docs page and MCP payments (a function: the port may be picked at listen). */
  baseUrl: string | (() => string);
  /** The operations served (default: the table). */
  operations?: readonly AnyOperation[];
}

/** The payment side of a server: the price list, and the gate that charges from it. */
export function createPayments(services: Pick<Supervisor, "config" | "state" | "log">, operations: readonly AnyOperation[]): { prices: PriceList; payments: PaymentGate } {
  assertUniqueOperations(operations);
  const prices = PriceList.forConfig(operations, services.config);
  return { prices, payments: new PaymentGate(services.config, prices, services.state, services.log) };
}

/** `ckg mcp`'s endpoint: the table's tools for a local agent over stdio, with the gate of `services`' settings (`ckg mcp` gives it no pay-to: off). */
export function createStdioMcp(services: Supervisor): McpEndpoint {
  const { prices, payments } = createPayments(services, OPERATIONS);
  return new McpEndpoint({ services, operations: OPERATIONS, payments, prices, endpoint: () => "stdio://ckg/mcp" });
}

export function createServer(services: Supervisor, options: ServerOptions) {
  const operations = options.operations ?? OPERATIONS;
  const { config } = services;
  const { prices, payments } = createPayments(services, operations);
  payments.start().catch(() => undefined); // logged by the gate; paid routes retry and answer 503 meanwhile
  const baseUrl = typeof options.baseUrl === "string" ? () => options.baseUrl as string : options.baseUrl;
  const mcp = new McpEndpoint({ services, operations, payments, prices, endpoint: () => `${baseUrl()}/mcp` });
  /** The names /mcp answers to (mcp/origin), known once the server listens (port 0 picks one). */
  let mcpHosts: { hosts: Set<string> | undefined } | undefined;
  const app = createApp(services, {
    operations,
    baseUrl,
    payments,
    prices,
    mounts: [
      {
        path: "/mcp",
        methods: ["GET", "POST", "DELETE"],
        about: "MCP over Streamable HTTP (stateless): every operation as a tool of the same name, priced as its route; requests from another Host or Origin are refused (403 forbidden_origin).",
        // Stateless Streamable HTTP: nothing is kept between calls.
        handle(request) {
          mcpHosts ??= {
            hosts: allowedHosts({ host: config.host, baseUrl: baseUrl(), configured: config.base_url !== undefined, port: config.port || Number(new URL(baseUrl()).port) }),
          };
          checkOrigin(request, mcpHosts.hosts);
          return mcp.handle(request);
        },
      },
      // The Server Card (mcp/directory), free and public: where MCP directories look, and where the extension reserves.
      ...["/.well-known/mcp/server-card.json", "/mcp/server-card"].map((path) => ({
        path,
        methods: ["GET" as const],
        about: "The MCP Server Card: name, version and where to connect, for MCP directories (free).",
        handle: (request: Request) => serverCardResponse(request, baseUrl()),
      })),
    ],
  });
  app.onStop(() => payments.close());
  return Object.assign(app, {
    /**
     * Ends the streams that never end by themselves (MCP subscriptions/listen, /api/events), each
     * gracefully: call it before `stop()`, which waits for open requests.
     */
    endStreams: async () => {
      app.endEventStreams("the server is stopping: reconnect with Last-Event-ID to resume");
      await mcp.close();
    },
  });
}
