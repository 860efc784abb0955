/**
 * MCP with the official SDK client: over Streamable HTTP on a real port (the same server as the
 * REST routes), and over stdio (`ckg mcp`). Tools from the operations table, tool errors with
 * clear messages, resources, and answers cut to fit an agent's context.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { OPERATIONS } from "../../src/api/operations/index.ts";
import { selfCommand } from "../../src/runtime.ts";
import { type Running, copyOfFixture, startServices } from "../support/fixture.ts";
import { scan, snapshotOf } from "../signals/support.ts";

let running: Running;
let client: Client;
let server: { stop(): void; port: number };

beforeAll(async () => {
  running = await startServices();
  await scan(running.dir, running.services.state, snapshotOf(running.dir).manifest.as_of.slice(0, 10));
  const listening = running.app.listen({ hostname: "127.0.0.1", port: 0 });
  server = { port: listening.server!.port!, stop: () => void listening.stop() };
  client = new Client({ name: "ckg-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`)));
});

afterAll(async () => {
  await client?.close();
  server?.stop();
  await running.close();
});

type ToolResult = { isError?: boolean; structuredContent?: Record<string, any>; content: { type: string; text?: string }[] };
const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<ToolResult>;

describe("MCP over Streamable HTTP", () => {
  test("lists one tool per operation, with input schemas and the cost in the description", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(OPERATIONS.map((op) => op.name).sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.description).toMatch(/Free\.|Costs/);
    }
    const signals = tools.find((t) => t.name === "signals")!;
    expect(Object.keys(signals.inputSchema.properties ?? {})).toContain("signal_type");
    // Payments are off in this server: no tool costs anything.
    for (const tool of tools) expect(tool.description).toContain("Free.");
  });

  test("calls every tool with its example and gets structured answers", async () => {
    for (const op of OPERATIONS) {
      const result = await call(op.name, op.example as Record<string, unknown>);
      expect(result.isError, `${op.name}: ${result.content[0]?.text}`).toBeFalsy();
      expect(result.structuredContent).toBeDefined();
      expect(JSON.parse(result.content[0]!.text!)).toEqual(result.structuredContent!);
    }
    const insights = await call("signals", { signal_type: "power-concentration", qualification: "all" });
    expect(insights.structuredContent!.signals.length).toBeGreaterThan(0);
  });

  test("bad arguments are tool errors with clear messages in the documented shape", async () => {
    const missing = await call("sparql", {});
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent!.error.code).toBe("invalid_request");
    expect(missing.content[0]!.text).toContain("query");
    const unknownType = await call("signals", { signal_type: "moon-signal" });
    expect(unknownType.structuredContent!.error.code).toBe("unknown_signal_type");
    const notFound = await call("entity_insights", { entity_name: "Aavee" });
    expect(notFound.structuredContent!.error.code).toBe("entity_not_found");
    const tooMany = await call("insights_batch", { entities: Array.from({ length: 11 }, (_, i) => `e${i}`) });
    expect(tooMany.structuredContent!.error.code).toBe("too_many_entities");
    const write = await call("timeseries", { sql_query: "DELETE FROM ts_synthetic_token" });
    expect(write.structuredContent!.error.code).toBe("read_only");
    // An unknown tool is a protocol error (JSON-RPC invalid params), not a tool result.
    const noTool = await call("launch_rockets", {}).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(noTool).toBeInstanceOf(McpError);
    expect((noTool as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((noTool as McpError).message).toContain("No tool launch_rockets");
  });

  test("a large answer is cut to fit an agent's context, and says how to get the rest", async () => {
    const result = await call("timeseries", { sql_query: "SELECT * FROM ts_synthetic_token LIMIT 10000" });
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent!;
    expect(answer.truncated).toBe(true);
    expect(answer.data.length).toBeLessThan(10000);
    expect(answer.count).toBe(answer.data.length);
    expect(answer.note).toContain("LIMIT/OFFSET");
    expect(result.content[0]!.text!.length).toBeLessThanOrEqual(100_000);
  });

  test("the schema and the signal catalog are resources", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(["ckg://schema", "ckg://signals/catalog"]);
    const catalog = await client.readResource({ uri: "ckg://signals/catalog" });
    expect(JSON.parse(String((catalog.contents[0] as { text: string }).text)).count).toBe(28);
    const schema = await client.readResource({ uri: "ckg://schema" });
    expect(JSON.parse(String((schema.contents[0] as { text: string }).text))).toHaveProperty("timeseries_tables");
  });
});

test("ckg mcp serves the same tools over stdio", async () => {
  const dir = await copyOfFixture();
  const [command, ...args] = selfCommand("mcp", "--data-dir", dir);
  const local = new Client({ name: "ckg-test-stdio", version: "1.0.0" });
  try {
    await local.connect(new StdioClientTransport({ command: command!, args, env: { ...(process.env as Record<string, string>), CKG_LOG_LEVEL: "silent", CKG_FIRST_SCAN: "false" } }));
    const { tools } = await local.listTools();
    expect(tools.length).toBe(OPERATIONS.length);
    const answer = (await local.callTool({ name: "search", arguments: { query: "Ethereum", limit: 3 } })) as ToolResult;
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent!.results.length).toBeGreaterThan(0);
  } finally {
    await local.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
