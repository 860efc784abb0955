/**
 * @module mcp/directory
 * What MCP directories read about this server before connecting, made from the server itself so
 * they cannot drift from it: the Server Card (the MCP Server Card extension, SEP-2127, schema v1),
 * served free at /.well-known/mcp/server-card.json and at the location the extension reserves,
 * `<endpoint>/server-card`; and the MCP Registry's `server.json` (schema 2025-12-11), which
 * scripts/server-json.ts writes for an operator to publish with the registry's publisher. Both
 * name the server by its public host in reverse-DNS form (the namespace a registry verifies
 * against that domain), carry the version the MCP handshake reports, and point at the one remote:
 * Streamable HTTP at `<base>/mcp`, needing no header (payment travels in the protocol, x402).
 * test/mcp/directory.test.ts validates both against schemas written from the published specs.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { VERSION } from "../version.ts";

const SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
const SERVER_JSON_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
/** The Server Card's media type (a client asks for it in Accept; the card answers with it then). */
const SERVER_CARD_TYPE = "application/mcp-server-card+json";

/** The title the MCP handshake gives (mcp/server's serverInfo.title). */
export const SERVER_TITLE = "ckg: crypto knowledge graph";
/** At most 100 characters: both schemas cap a description there. */
const SERVER_DESCRIPTION = "Crypto knowledge graph: SPARQL, entity search, SQL time-series, risk signals; paid per call by x402";

/**
 * The 2026-07-28 revision, served beside the 2025-era ones (mcp/server). The SDK exports only the
 * 2025-era list; test/mcp/directory.test.ts connects at every version the card lists.
 */
const MODERN_REVISION = "2026-07-28";

/** The server's name in a directory: its public host in reverse-DNS form, then `/ckg` (ckg.example.com: com.example.ckg/ckg). */
function directoryName(baseUrl: string): string {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, "");
  const reversed = host.includes(":") ? host : host.split(".").reverse().join(".");
  // A name holds letters, digits, dots and hyphens before its slash (an IPv6 address has colons).
  return `${reversed.replace(/[^a-zA-Z0-9.-]/g, "-")}/ckg`;
}

/** A base URL without its trailing slash: paths are appended to it. */
const trimmed = (baseUrl: string) => baseUrl.replace(/\/+$/, "");

/** What both documents say of the server: who it is and where to connect. */
function identity(baseUrl: string) {
  return {
    name: directoryName(baseUrl),
    title: SERVER_TITLE,
    description: SERVER_DESCRIPTION,
    version: VERSION,
    websiteUrl: `${baseUrl}/docs`,
  };
}

/** The Server Card of a server at this public base URL. */
function serverCard(publicUrl: string) {
  const baseUrl = trimmed(publicUrl);
  return {
    $schema: SERVER_CARD_SCHEMA,
    ...identity(baseUrl),
    remotes: [{ type: "streamable-http" as const, url: `${baseUrl}/mcp`, supportedProtocolVersions: [MODERN_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS] }],
  };
}

/**
 * The MCP Registry's server.json for a server at this public base URL. The registry keeps its own
 * metadata under `io.modelcontextprotocol.registry/publisher-provided`: where the prices and the
 * API are described.
 */
export function serverJson(publicUrl: string) {
  const baseUrl = trimmed(publicUrl);
  return {
    $schema: SERVER_JSON_SCHEMA,
    ...identity(baseUrl),
    remotes: [{ type: "streamable-http" as const, url: `${baseUrl}/mcp` }],
    _meta: {
      "io.modelcontextprotocol.registry/publisher-provided": {
        payments: "x402 v2: paid tools are paid per call in USDC; `prices` lists them, no payment needed",
        prices: `${baseUrl}/.well-known/x402.json`,
        openapi: `${baseUrl}/openapi.json`,
        serverCard: `${baseUrl}/.well-known/mcp/server-card.json`,
      },
    },
  };
}

/** The Server Card as an HTTP answer: readable from any origin (it is public), cacheable for an hour, in the media type asked for. */
export function serverCardResponse(request: Request, baseUrl: string): Response {
  const asked = (request.headers.get("accept") ?? "").includes(SERVER_CARD_TYPE);
  return new Response(JSON.stringify(serverCard(baseUrl)), {
    headers: {
      "content-type": asked ? SERVER_CARD_TYPE : "application/json",
      "access-control-allow-origin": "*",
      "cache-control": "public, max-age=3600",
      vary: "accept",
    },
  });
}
