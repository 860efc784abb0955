/**
 * @module api/routes
 * The HTTP routes as one list: each entry's method, path, handler and what /openapi.json says of
 * it. The app registers exactly this list, tells 404 from 405 by it and documents from it, so a
 * route cannot be served without being known to all three (a route left off a second list used to
 * answer a wrong method with 404 instead of 405).
 */
import { CkgError } from "../errors.ts";
import type { JsonSchema } from "../operations/json-schema.ts";
import type { AnyOperation } from "../operations/operation.ts";

export type Method = "GET" | "POST" | "DELETE";

/** What a handler may set on its answer (Elysia's `set`). */
export interface ResponseSet {
  status?: number | string;
  headers: Record<string, string | number>;
}

export interface RouteContext {
  request: Request;
  /** Path parameters, by name. */
  params: Record<string, string>;
  set: ResponseSet;
}

/** An OpenAPI operation object of a route that is not an operation of the table. */
export interface OpenApiEntry {
  operationId: string;
  summary: string;
  description: string;
  parameters?: JsonSchema[];
  requestBody?: JsonSchema;
  responses: Record<string, JsonSchema>;
}

/**
 * What /openapi.json says of a route: an operation of the table (documented from its schemas and
 * price), its own entry (health, readiness, the console's session), or nothing: Prometheus text,
 * pages (the console, /docs, the document itself), and the routes that speak a protocol of their
 * own (the SPARQL 1.1 Protocol, MCP, x402 discovery).
 */
export type RouteDoc = { operation: AnyOperation } | { entry: OpenApiEntry } | undefined;

export interface Route {
  method: Method;
  /** Elysia syntax: `/api/insights/entity/:entity_name`. */
  path: string;
  /** Reads the body itself (Elysia parses none): throws CkgError for a refusal. */
  handle(context: RouteContext): unknown;
  doc: RouteDoc;
  /** What a route without an OpenAPI entry serves, in a line: docs/api.md (scripts/docs) says it, and fails without it. */
  about?: string;
}

/** Fails when two entries share a method and path: Elysia would serve one and hide the other. */
export function assertUniqueRoutes(routes: readonly Route[]): void {
  const seen = new Set<string>();
  const twice = routes.map((r) => `${r.method} ${r.path}`).filter((key) => seen.size === seen.add(key).size);
  if (twice.length > 0) throw new Error(`Routes must be unique: ${[...new Set(twice)].join(", ")} listed more than once`);
}

/** The methods the list serves on a concrete path (none: no route has it). */
function allowedMethods(routes: readonly Route[], path: string): Method[] {
  return [...new Set(routes.filter((r) => patternOf(r.path).test(path)).map((r) => r.method))];
}

/** What a request no route answers gets: 405 naming the methods the path has, or 404. */
export function unrouted(routes: readonly Route[], method: string, path: string): CkgError {
  const allowed = allowedMethods(routes, path);
  if (allowed.length === 0) return new CkgError("not_found", `No route ${method} ${path}. See /docs or /openapi.json for the routes.`);
  return new CkgError("method_not_allowed", `${method} is not allowed on ${path}; use ${allowed.join(" or ")}.`, { details: { allowed } });
}

/** A route's path as a regular expression over request paths (a parameter is one segment). */
function patternOf(path: string): RegExp {
  return new RegExp(`^${path.replace(/:[a-z_]+/g, "[^/]+")}/?$`);
}
