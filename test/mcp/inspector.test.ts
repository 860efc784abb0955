/**
 * Portable tool and API schemas: the MCP Inspector's strict schema check, the real CLI
 * from npm, finds nothing in ckg's tools, listed from a real `ckg serve` over Streamable HTTP by a
 * 2025-11-25 client (the Inspector's default) and by a 2026-07-28 one; and nothing in the OpenAPI
 * document's schemas, which the same check reads as tools of a stand-in endpoint. A control tool
 * there, an operation's answer as zod writes it before operations/portable-schema, shows the check
 * is live: it finds the type arrays and the untyped schema the pass removes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import { OPERATIONS } from "../../src/operations/table/index.ts";
import { selfCommand } from "../../src/runtime.ts";
import { type OpenApiDocument, openApiDocument } from "../../scripts/openapi-types.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { type ProtocolEra, describeFindings, serveTools, strictToolsList } from "../support/inspector.ts";
import { type ServerProcess, startServer } from "../support/server.ts";

const ERAS: readonly ProtocolEra[] = ["legacy", "modern"];

describe("ckg's MCP tools under the Inspector's strict check", () => {
  let dir: string;
  let server: ServerProcess;
  beforeAll(async () => {
    dir = await copyOfFixture();
    server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), { CKG_FIRST_SCAN: "false", CKG_SCAN_CRON: "off", CKG_RATE_LIMIT_PER_MINUTE: "0" });
    await server.waitReady(60_000);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const era of ERAS) {
    test(`${era} era: every tool listed, no warning or error in any input or output schema`, async () => {
      const listing = await strictToolsList(`${server.url}/mcp`, era);
      expect(listing.exitCode, listing.stderr).toBe(0);
      expect(listing.tools.map((t) => t.name)).toEqual(OPERATIONS.map((op) => op.name));
      for (const tool of listing.tools) expect(tool.outputSchema, tool.name).toBeDefined();
      expect(describeFindings(listing.findings)).toBe("");
      // Without findings the strict report writes nothing at all.
      expect(listing.stderr).not.toMatch(/Warning:|Error:/);
    }, 120_000);
  }
});

describe("the OpenAPI document's schemas under the Inspector's strict check", () => {
  let endpoint: ReturnType<typeof serveTools>;
  let tools: Tool[];
  beforeAll(async () => {
    tools = [...documentAsTools(await openApiDocument()), control()];
    endpoint = serveTools(tools);
  });
  afterAll(async () => {
    await endpoint?.stop();
  });

  test("every route's parameters, body and answers, and the components: nothing found but in the control", async () => {
    const listing = await strictToolsList(endpoint.url, "legacy");
    expect(listing.exitCode, listing.stderr).toBe(0);
    expect(listing.tools.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    const [control, ...others] = [...listing.findings].sort((a, b) => (a.toolName === "control" ? -1 : b.toolName === "control" ? 1 : 0));
    expect(describeFindings(others)).toBe("");
    expect(control?.toolName).toBe("control");
    expect(new Set(control!.findings.map((f) => f.rule))).toEqual(new Set(["type-union", "untyped-schema"]));
  }, 120_000);
});

/**
 * One tool per documented route: its parameters (and response headers) and JSON body as the input
 * schema, its answers as the output schema; and one for the shared components. References to the
 * components are inlined, so each tool's schemas stand alone.
 */
function documentAsTools(document: OpenApiDocument): Tool[] {
  const components = (document.components as { schemas: Record<string, unknown> }).schemas;
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (node === null || typeof node !== "object") return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) return inline(components[ref.slice("#/components/schemas/".length)]);
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value)]));
  };
  const tools: Tool[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const input: Record<string, unknown> = Object.fromEntries((op.parameters ?? []).map((p) => [p.name, p.schema]));
      const body = op.requestBody?.content["application/json"]?.schema;
      if (body) input.body = body;
      const output: Record<string, unknown> = {};
      for (const [status, response] of Object.entries(op.responses as Record<string, { content?: Record<string, { schema?: unknown }>; headers?: Record<string, { schema?: unknown }> }>)) {
        for (const [type, { schema }] of Object.entries(response.content ?? {})) if (schema) output[`${status} ${type}`] = schema;
        for (const [name, { schema }] of Object.entries(response.headers ?? {})) if (schema) output[`${status} ${name}`] = schema;
      }
      const name = `${method}${path}`.replace(/[^A-Za-z0-9_.-]+/g, "_");
      tools.push({ name, inputSchema: inline({ type: "object", properties: input }) as Tool["inputSchema"], outputSchema: inline({ type: "object", properties: output }) as Tool["outputSchema"] });
    }
  }
  tools.push({ name: "components", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: components } });
  return tools;
}

/** entity_insights' answer as zod writes it: nullable fields as type arrays, the evidence's own fields untyped. */
function control(): Tool {
  const op = OPERATIONS.find((o) => o.name === "entity_insights")!;
  const raw = z.toJSONSchema(op.output, { io: "output", unrepresentable: "any" }) as Record<string, unknown>;
  delete raw.$schema;
  return { name: "control", inputSchema: { type: "object" }, outputSchema: { ...raw, type: "object" } as Tool["outputSchema"] };
}
