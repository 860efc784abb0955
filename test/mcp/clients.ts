/**
 * The official MCP clients of both protocol eras behind one face, so one suite runs against each:
 * the SDK v1 client, which speaks 2025-11-25 (initialize, then stateless calls), and the SDK v2
 * client negotiating with `server/discover`, which lands on 2026-07-28 (a per-request envelope).
 * Only argument order and error classes differ between them; the calls are the clients' own.
 */
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpTransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { Client, ProtocolError, StreamableHTTPClientTransport, type VersionNegotiationMode } from "@modelcontextprotocol/client";

export type ToolResult = { isError?: boolean; structuredContent?: Record<string, any>; _meta?: Record<string, any>; content: { type: string; text?: string }[] };
export type ToolInfo = {
  name: string;
  description?: string;
  inputSchema: { type: string; properties?: Record<string, unknown> };
  outputSchema?: Record<string, unknown> & { type: string };
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
};
type Progress = { progress: number; total?: number; message?: string };

export interface Agent {
  /** The protocol revision the connection negotiated. */
  protocolVersion(): string | undefined;
  listTools(): Promise<{ tools: ToolInfo[] }>;
  callTool(name: string, args: Record<string, unknown>, options?: { meta?: Record<string, unknown>; onprogress?: (p: Progress) => void }): Promise<ToolResult>;
  listResources(): Promise<{ resources: { uri: string; description?: string }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
  readResource(uri: string): Promise<{ contents: unknown[] }>;
  /** A JSON-RPC error the client raised (not a tool error result), with its code. */
  protocolError(error: unknown): { code: number; message: string } | undefined;
  close(): Promise<void>;
}

export interface Era {
  revision: "2025-11-25" | "2026-07-28";
  client: string;
  connect(url: string, fetch?: typeof globalThis.fetch): Promise<Agent>;
}

export const ERAS: readonly Era[] = [
  {
    revision: "2025-11-25",
    client: "SDK v1 client",
    async connect(url, fetch) {
      const client = new ClientV1({ name: "ckg-test-v1", version: "1.0.0" });
      const transport = new HttpTransportV1(new URL(url), fetch ? { fetch } : {});
      await client.connect(transport);
      return {
        protocolVersion: () => transport.protocolVersion,
        listTools: () => client.listTools() as Promise<{ tools: ToolInfo[] }>,
        callTool: (name, args, options = {}) =>
          client.callTool({ name, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) }, undefined, options.onprogress ? { onprogress: options.onprogress } : {}) as Promise<ToolResult>,
        listResources: () => client.listResources(),
        listResourceTemplates: () => client.listResourceTemplates(),
        readResource: (uri) => client.readResource({ uri }),
        protocolError: (error) => (error instanceof McpError ? error : undefined),
        close: () => client.close(),
      };
    },
  },
  {
    revision: "2026-07-28",
    client: "SDK v2 client",
    connect: (url, fetch) => connectV2(url, { fetch, mode: "auto" }).then(({ agent }) => agent),
  },
];

/** The v2 client (`auto`: discover, then 2026-07-28 if offered; or pinned), and the agent face over it. */
export async function connectV2(url: string, options: { fetch?: typeof globalThis.fetch; mode?: VersionNegotiationMode } = {}): Promise<{ client: Client; agent: Agent }> {
  const client = new Client({ name: "ckg-test-v2", version: "1.0.0" }, { versionNegotiation: { mode: options.mode ?? { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), options.fetch ? { fetch: options.fetch } : {}));
  const agent: Agent = {
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    listTools: () => client.listTools() as Promise<{ tools: ToolInfo[] }>,
    callTool: (name, args, options = {}) =>
      client.callTool({ name, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) }, options.onprogress ? { onprogress: options.onprogress } : {}) as Promise<ToolResult>,
    listResources: () => client.listResources(),
    listResourceTemplates: () => client.listResourceTemplates(),
    readResource: (uri) => client.readResource({ uri }),
    protocolError: (error) => (error instanceof ProtocolError ? error : undefined),
    close: () => client.close(),
  };
  return { client, agent };
}
