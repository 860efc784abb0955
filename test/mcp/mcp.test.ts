/**
 * MCP with the official SDK clients: over Streamable HTTP on a real port (the same server as the
 * REST routes), once per protocol era (a 2025-11-25 client through version negotiation's
 * fallback, a 2026-07-28 client through server/discover), and over stdio (`ckg mcp`). Tools from
 * the operations table, tool errors with clear messages, resources, and answers cut to fit an
 * agent's context. subscriptions/listen: listen.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioClientTransportV2 } from "@modelcontextprotocol/client/stdio";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { OPERATIONS } from "../../src/operations/table/index.ts";
import { allowedHosts } from "../../src/mcp/origin.ts";
import { createServer } from "../../src/supervisor/assemble.ts";
import { selfCommand } from "../../src/runtime.ts";
import { type Running, copyOfFixture, startServices } from "../support/fixture.ts";
import { scan, snapshotOf } from "../signals/support.ts";
import { type Agent, ERAS, type ToolResult } from "./clients.ts";

let running: Running;
let server: { stop(): Promise<void>; port: number };

beforeAll(async () => {
  running = await startServices({ port: 0 });
  await scan(running.dir, running.services.state, snapshotOf(running.dir).manifest.as_of.slice(0, 10));
  // As `ckg serve` does: listen on port 0 and take the base URL from the port the OS gave; /mcp
  // answers only its own Host (mcp/origin), this server's address with that port.
  let baseUrl: string | undefined;
  const app = createServer(running.services, { baseUrl: () => baseUrl! });
  const listening = app.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listening.server!.port!;
  baseUrl = `http://127.0.0.1:${port}`;
  server = { port, stop: async () => void (await listening.stop()) };
});

afterAll(async () => {
  await server?.stop();
  await running.close();
});

for (const era of ERAS) {
describe(`MCP over Streamable HTTP, protocol ${era.revision} (${era.client})`, () => {
  let client: Agent;
  beforeAll(async () => {
    client = await era.connect(`http://127.0.0.1:${server.port}/mcp`);
  });
  afterAll(async () => {
    await client?.close();
  });
  const call = (name: string, args: Record<string, unknown>) => client.callTool(name, args);

  test("the client and the server agree on the protocol revision", () => {
    expect(client.protocolVersion()).toBe(era.revision);
  });

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

  test("each tool's annotations say its operation's declared effects, every hint stated", async () => {
    const { tools } = await client.listTools();
    for (const op of OPERATIONS) {
      const { annotations } = tools.find((t) => t.name === op.name)!;
      const reads = op.effects.state === "reads";
      expect(annotations, op.name).toEqual({
        title: op.summary,
        readOnlyHint: reads,
        destructiveHint: op.effects.state === "destroys",
        idempotentHint: reads || (op.effects.state !== "reads" && op.effects.idempotent),
        openWorldHint: op.effects.openWorld,
      });
    }
    // What the issue found wrong: subscribe reaches a URL the caller gives and writes; unsubscribe deletes.
    const hints = (name: string) => tools.find((t) => t.name === name)!.annotations;
    expect(hints("subscribe")).toMatchObject({ readOnlyHint: false, openWorldHint: true, destructiveHint: false });
    expect(hints("unsubscribe")).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(hints("rotate_subscription_secret")).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  test("calls every tool with its example and gets structured answers", async () => {
    // The subscription the subscribe tool makes: the tools after it act on it with its secret.
    let made: { subscription_id: string; secret: string } | undefined;
    for (const op of OPERATIONS) {
      const args = { ...(op.example as Record<string, unknown>), ...(op.bearer && made ? { subscription_id: made.subscription_id, secret: made.secret } : {}) };
      const result = await call(op.name, args);
      if (op.name === "subscribe") made = result.structuredContent as typeof made;
      expect(result.isError, `${op.name}: ${result.content[0]?.text}`).toBeFalsy();
      expect(result.structuredContent).toBeDefined();
      expect(JSON.parse(result.content[0]!.text!)).toEqual(result.structuredContent!);
    }
    const insights = await call("signals", { signal_type: "power-concentration", qualification: "all" });
    expect(insights.structuredContent!.signals.length).toBeGreaterThan(0);
  });

  test("every tool declares an output schema, in the table's order; every answer and tool error fits it", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(OPERATIONS.map((op) => op.name));
    const validator = new AjvJsonSchemaValidator();
    const fits = (name: string, content: unknown) => {
      const tool = tools.find((t) => t.name === name)!;
      expect(tool.outputSchema?.type).toBe("object");
      const result = validator.getValidator(tool.outputSchema!)(content);
      expect(result.valid, `${name}: ${result.errorMessage}`).toBe(true);
    };
    for (const op of OPERATIONS) fits(op.name, (await call(op.name, op.example as Record<string, unknown>)).structuredContent);
    // Tool errors carry the documented error body, which the schema names too (the client checks it).
    fits("sparql", (await call("sparql", {})).structuredContent);
    // And an answer cut for an agent, with its two extra fields.
    fits("timeseries", { ...((await call("timeseries", { sql_query: "SELECT 1 AS x" })).structuredContent as object), truncated: true, note: "cut" });
    // What does not fit is refused: the schema says something.
    expect(validator.getValidator(tools.find((t) => t.name === "search")!.outputSchema!)({ results: "nope" }).valid).toBe(false);
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
    expect(client.protocolError(noTool)?.code).toBe(-32602); // JSON-RPC invalid params
    expect(client.protocolError(noTool)?.message).toContain("No tool launch_rockets");
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

  test("the schema, the signal catalog and the changes are resources", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(["ckg://changes", "ckg://schema", "ckg://signals/catalog"]);
    expect(resources.find((r) => r.uri === "ckg://changes")!.description).toContain("subscriptions/listen");
    const catalog = await client.readResource("ckg://signals/catalog");
    expect(JSON.parse(String((catalog.contents[0] as { text: string }).text)).count).toBe(28);
    const schema = await client.readResource("ckg://schema");
    expect(JSON.parse(String((schema.contents[0] as { text: string }).text))).toHaveProperty("timeseries_tables");
  });

  test("entities and signal types are resource templates", async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["ckg://entity/{id}", "ckg://signals/{signal_type}"]);
    const read = async (uri: string) => JSON.parse(String(((await client.readResource(uri)).contents[0] as { text: string }).text));
    expect(await read("ckg://entity/chain/ethereum")).toMatchObject({ uri: "https://ckg.example/id/chain/ethereum", name: "Ethereum", type: "Chain" });
    // By name as well: the canonical entity, and the others of that name.
    const aave = await read(`ckg://entity/${encodeURIComponent("Aave")}`);
    expect(aave.type).toBe("Protocol");
    expect(aave.other_entities_named_alike.map((o: { type: string }) => o.type)).toContain("Token");
    expect(await read("ckg://signals/stablecoin-depeg")).toMatchObject({ slug: "stablecoin-depeg" });
    await expect(client.readResource("ckg://signals/moon-signal")).rejects.toThrow("No resource");
    await expect(client.readResource("ckg://entity/nothing-named-so")).rejects.toThrow("No entity is named");
  });

  test("a call with a progress token gets progress notifications, in increasing order, ending done", async () => {
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const result = await client.callTool("timeseries", { sql_query: "SELECT count(*) AS n FROM ts_catalog" }, { onprogress: (p) => seen.push(p) });
    expect(result.isError).toBeFalsy();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]!.message).toBe("started");
    expect(seen.at(-1)).toMatchObject({ message: "done", progress: seen.length, total: seen.length });
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
  });
});
}

describe("ckg mcp serves the same tools over stdio", () => {
  /** `ckg mcp` on its own copy of the fixture, as a client spawns it. */
  const stdio = async () => {
    const path = await copyOfFixture();
    const [command, ...args] = selfCommand("mcp", "--data-dir", path);
    return { path, params: { command: command!, args, env: { ...(process.env as Record<string, string>), CKG_LOG_LEVEL: "silent", CKG_FIRST_SCAN: "false" } } };
  };

  test("to a 2025-11-25 client (SDK v1)", async () => {
    const { path, params } = await stdio();
    const local = new Client({ name: "ckg-test-stdio", version: "1.0.0" });
    try {
      await local.connect(new StdioClientTransport(params));
      const { tools } = await local.listTools();
      expect(tools.length).toBe(OPERATIONS.length);
      const answer = (await local.callTool({ name: "search", arguments: { query: "Ethereum", limit: 3 } })) as ToolResult;
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent!.results.length).toBeGreaterThan(0);
    } finally {
      await local.close();
      rmSync(path, { recursive: true, force: true });
    }
  });

  test("to a 2026-07-28 client (SDK v2, pinned)", async () => {
    const { path, params } = await stdio();
    const local = new ClientV2({ name: "ckg-test-stdio-v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    try {
      await local.connect(new StdioClientTransportV2(params));
      expect(local.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      const { tools } = await local.listTools();
      expect(tools.length).toBe(OPERATIONS.length);
      const answer = (await local.callTool({ name: "search", arguments: { query: "Ethereum", limit: 3 } })) as ToolResult;
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent!.results.length).toBeGreaterThan(0);
      // No scans run in `ckg mcp`: it offers no resource subscriptions (listen is /mcp's).
      expect(local.getServerCapabilities()?.resources?.subscribe).toBeFalsy();
    } finally {
      await local.close();
      rmSync(path, { recursive: true, force: true });
    }
  });
});

describe("/mcp against DNS rebinding", () => {
  const post = (headers: Record<string, string>) =>
    fetch(`http://127.0.0.1:${server.port}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });

  test("a Host that is not this server's, or a foreign Origin, is 403 forbidden_origin; its own names and pages are answered", async () => {
    const rebound = await post({ host: `attacker.example:${server.port}` });
    expect(rebound.status).toBe(403);
    type ErrorBody = { error: { code: string; message: string } };
    expect(((await rebound.json()) as ErrorBody).error.code).toBe("forbidden_origin");
    const foreign = await post({ origin: "https://attacker.example" });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as ErrorBody).error.message).toContain("https://attacker.example");
    const own: Record<string, string>[] = [{}, { host: `localhost:${server.port}` }, { origin: `http://127.0.0.1:${server.port}` }];
    for (const headers of own) {
      const ok = await post(headers);
      expect(ok.status, JSON.stringify(headers)).toBe(200);
    }
  });

  test("the names a server answers to follow its listen address and base URL", () => {
    expect(allowedHosts({ host: "127.0.0.1", baseUrl: "http://127.0.0.1:8402", configured: false, port: 8402 })).toEqual(
      new Set(["127.0.0.1:8402", "localhost:8402", "[::1]:8402"]),
    );
    expect(allowedHosts({ host: "0.0.0.0", baseUrl: "https://ckg.example.com", configured: true, port: 8402 })).toEqual(new Set(["ckg.example.com"]));
    expect(allowedHosts({ host: "0.0.0.0", baseUrl: "http://0.0.0.0:8402", configured: false, port: 8402 })).toBeUndefined();
  });
});

