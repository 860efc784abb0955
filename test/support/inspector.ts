/**
 * The MCP Inspector's CLI, the real one from npm: its strict tools/list lists a server's tools and
 * checks every input and output schema for portability (a `type` array, a schema with no validation
 * keyword, a bare boolean where a schema object belongs, a remote `$ref`). And an MCP endpoint that
 * lists made-up tools, so the same check can read schemas that are not ckg's tools (the OpenAPI
 * document's).
 */
import { join } from "node:path";
import { Server, type Tool, createMcpHandler } from "@modelcontextprotocol/server";
import { tempDir } from "./temp-dirs.ts";

const LAUNCHER = join(import.meta.dir, "../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");

/**
 * `legacy` (the Inspector's default for a URL) speaks 2025-11-25, initialize first, as a 2025 client
 * does; `modern` pins 2026-07-28 (server/discover, the per-request envelope) with no fallback.
 */
export type ProtocolEra = "legacy" | "modern";

export interface Finding {
  rule: string;
  severity: "error" | "warning";
  /** inputSchema or outputSchema */
  schema: string;
  path: string;
  issue: string;
}

export interface StrictListing {
  exitCode: number;
  /** The tools it listed (empty when it failed). */
  tools: Tool[];
  /** Per tool with any, what the check found (`schemaFindings` of its JSON output). */
  findings: { toolName: string; findings: Finding[] }[];
  stderr: string;
}

/** `mcp-inspector --cli <url> --method tools/list --strict --format json`, over Streamable HTTP. */
export async function strictToolsList(url: string, era: ProtocolEra): Promise<StrictListing> {
  // --connect-timeout 0: no clock of its own; a slow machine waits, and the test's timeout bounds it.
  const args = ["--cli", url, "--method", "tools/list", "--strict", "--format", "json", "--protocol-era", era, "--connect-timeout", "0"];
  // A home of its own: it keeps a catalog and a storage folder in ~/.mcp-inspector.
  const env = { ...process.env, HOME: tempDir("ckg-inspector-home-") };
  const proc = Bun.spawn(["node", LAUNCHER, ...args], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const envelope = (stdout.trim() ? JSON.parse(stdout) : {}) as { result?: { tools: Tool[] }; schemaFindings?: StrictListing["findings"] };
  return { exitCode, tools: envelope.result?.tools ?? [], findings: envelope.schemaFindings ?? [], stderr };
}

/** The findings as lines for an assertion's message: tool, where, which rule. */
export function describeFindings(findings: StrictListing["findings"]): string {
  return findings.flatMap(({ toolName, findings }) => findings.map((f) => `${toolName} ${f.schema}.${f.path}: ${f.rule} (${f.severity})`)).join("\n");
}

/**
 * An MCP endpoint on a free loopback port whose tools/list answers these tools and nothing else:
 * the SDK's own handler, both protocol eras, stateless.
 */
export function serveTools(tools: Tool[]): { url: string; stop(): Promise<void> } {
  const handler = createMcpHandler(() => {
    const server = new Server({ name: "schemas-as-tools", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", async () => ({ tools }));
    return server;
  });
  const http = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => handler.fetch(request) });
  return {
    url: `http://127.0.0.1:${http.port}/mcp`,
    async stop() {
      await handler.close();
      await http.stop(true);
    },
  };
}
