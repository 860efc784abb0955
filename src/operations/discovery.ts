/**
 * @module operations/discovery
 * What a paying agent can learn before it pays, from the operations table: the x402 `bazaar`
 * discovery extension of each paid operation (its method, query parameters or JSON body with their
 * JSON Schema, path parameters and route template, an output example and schema; for MCP tools the
 * tool's name and input schema), built with @x402/extensions, so a Bazaar-enabled facilitator lists
 * ckg after a settled payment; and the origin's own list of paid resources at /.well-known/x402.json
 * in the shape of proposal x402-foundation/x402#2582 (a facilitator's `GET /discovery/resources`
 * answer, `DiscoveryResourcesResponse`, served by the origin itself, no payment needed).
 */
import { type DiscoveryResource, type DiscoveryResourcesResponse, bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import type { PaymentRequirements } from "@x402/core/types";
import { LRUCache } from "lru-cache";
import { generateSync } from "json-schema-faker";
import type { ResourceDiscovery } from "../payments/offer.ts";
import { type JsonSchema, toJsonSchema } from "../operations/json-schema.ts";
import { type AnyOperation, pathParams } from "../operations/operation.ts";

const SERVICE_NAME = "ckg";

/** Topical tags of an operation, for discovery search. */
function tagsOf(op: AnyOperation): string[] {
  const tags = ["crypto", "knowledge-graph"];
  if (op.path.includes("sparql")) tags.push("sparql", "rdf");
  if (op.path.includes("timeseries")) tags.push("sql", "time-series", "defi");
  if (op.path.includes("insights") || op.path.includes("signals")) tags.push("signals", "risk");
  if (op.path.includes("search")) tags.push("search", "entities");
  if (op.path.includes("explore")) tags.push("entities", "relationships");
  if (op.path.includes("changes")) tags.push("changes", "feed");
  return [...new Set(tags)];
}

/**
 * The bazaar extension of an operation, for one transport: HTTP (enriched with the method and, for
 * a path with parameters, the route template) or MCP (`type: "mcp"`, the tool).
 */
function bazaarExtension(op: AnyOperation, transport: "http" | "mcp", requestPath = op.path): Record<string, unknown> {
  const input = toJsonSchema(op.input, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
  const example = { ...(op.example as Record<string, unknown>) };
  const output = { example: outputExample(op), schema: toJsonSchema(op.output, "output") };
  if (transport === "mcp") {
    return declareDiscoveryExtension({ toolName: op.name, description: op.summary, transport: "streamable-http", inputSchema: { ...input, type: "object" }, example, output });
  }
  const inPath = pathParams(op.path);
  const pick = <T>(from: Record<string, T> | undefined, keep: (name: string) => boolean) => Object.fromEntries(Object.entries(from ?? {}).filter(([name]) => keep(name)));
  const ownSchema = { type: "object", properties: pick(input.properties, (n) => !inPath.includes(n)), required: (input.required ?? []).filter((n) => !inPath.includes(n)) };
  const path = inPath.length > 0 ? { pathParams: pick(example, (n) => inPath.includes(n)), pathParamsSchema: { type: "object", properties: pick(input.properties, (n) => inPath.includes(n)), required: inPath } } : {};
  const own = pick(example, (n) => !inPath.includes(n));
  const declared =
    op.method === "GET"
      ? declareDiscoveryExtension({ input: own, inputSchema: ownSchema, output, ...path })
      : declareDiscoveryExtension({ input: own, inputSchema: ownSchema, bodyType: "json", output, ...path });
  // The library adds the method and route template from the request (its server extension's hook).
  const context = { method: op.method, routePattern: op.path, adapter: { getPath: () => requestPath } };
  return Object.fromEntries(Object.entries(declared).map(([key, value]) => [key, bazaarResourceServerExtension.enrichDeclaration!(value, context)]));
}

/** Made once per operation, transport and path (a path holds the entity or signal type asked for). */
const described = new LRUCache<string, ResourceDiscovery>({ max: 2000 });

/** What a 402 of this operation says beyond its price (payments/gate.ts asks only when it makes one). */
export function resourceDiscovery(op: AnyOperation, transport: "http" | "mcp", path = op.path): ResourceDiscovery {
  const key = `${op.name} ${transport} ${path}`;
  let found = described.get(key);
  if (!found) {
    found = { serviceName: SERVICE_NAME, tags: tagsOf(op), extensions: bazaarExtension(op, transport, path) };
    described.set(key, found);
  }
  return found;
}

/**
 * An answer of the operation's shape, generated from its output schema (json-schema-faker, a fixed
 * seed): valid against the schema a facilitator checks it with, but made-up values, not data.
 */
function outputExample(op: AnyOperation): unknown {
  // maxDepth past the deepest answer (a batch's signals' evidence): below it the faker leaves objects empty, which the schema refuses.
  return generateSync(toJsonSchema(op.output, "output") as never, { seed: 402, maxItems: 2, optionalsProbability: 0, maxDepth: 16 });
}

/** The operation's path with its example's values in the parameters (what a request would ask for). */
function examplePath(op: AnyOperation): string {
  const example = op.example as Record<string, unknown>;
  return op.path.replace(/:([a-z_]+)/g, (_, name: string) => encodeURIComponent(String(example[name] ?? name)));
}

/** The origin's manifest: every paid resource, over HTTP and as an MCP tool, with what it accepts. */
export function discoveryManifest(
  paid: { op: AnyOperation; accepts: PaymentRequirements[] }[],
  baseUrl: string,
  lastUpdated: string,
): DiscoveryResourcesResponse {
  const items: DiscoveryResource[] = paid.flatMap(({ op, accepts }) => {
    const common = { x402Version: 2, accepts, lastUpdated, mimeType: "application/json", serviceName: SERVICE_NAME, tags: tagsOf(op) };
    return [
      { ...common, resource: `${baseUrl}${op.path.replace(/:([a-z_]+)/g, "{$1}")}`, type: "http", description: op.summary, extensions: bazaarExtension(op, "http", examplePath(op)) },
      { ...common, resource: `${baseUrl}/mcp#${op.name}`, type: "mcp", description: op.summary, extensions: bazaarExtension(op, "mcp") },
    ];
  });
  return { x402Version: 2, items, pagination: { limit: items.length, offset: 0, total: items.length } };
}
