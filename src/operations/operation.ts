/**
 * @module operations/operation
 * An operation is one capability: name, route, input schema, output schema, price and handler.
 * The operations table (operations/table) is the single place each capability is described;
 * the HTTP routes, OpenAPI document, docs page, MCP tools (their annotations from its effects) and
 * payment prices are all derived from it.
 */
import type { z } from "zod";
import type { Config } from "../config/config.ts";
import { CkgError } from "../errors.ts";
import type { OperationContext } from "./context.ts";
import type { Effects } from "./effects.ts";

/**
 * The server's settings a description may quote: OpenAPI, the docs page and MCP tools are made
 * per server, so they state its own limits rather than the defaults.
 */
export type DescriptionSettings = Pick<Config, "query_timeout_ms" | "narrative_url" | "narrative_timeout_ms" | "narrative_budget_ms">;

/** What a handler may need before it can run; unmet needs answer 503 not_ready before payment. */
export type Need = "snapshot" | "graph";

/**
 * I: input schema, O: output schema, P: what `prepare` hands the handler (the input itself when an
 * operation has no `prepare`).
 */
export interface Operation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType, P = z.output<I>> {
  /** Stable id: operationId in OpenAPI, MCP tool name, price key. */
  name: string;
  /** GET and DELETE take their input from the query string, POST from a JSON body (`inQuery`). */
  method: "GET" | "POST" | "DELETE";
  /** Route in Elysia syntax (`/api/insights/entity/:entity_name`). */
  path: string;
  summary: string;
  /** Written for people and agents: what it returns, when to use it; a function when it quotes a setting. */
  description: string | ((settings: DescriptionSettings) => string);
  /** Default price in USD (docs/spec.md §5.3, prose column); 0 means free. */
  priceUsd: number;
  /** What running it does to the server and beyond (operations/effects): MCP's tool annotations, OpenAPI's x-effects and the docs page say it. */
  effects: Effects;
  /** Body fields (POST) or query parameters (GET), plus path parameters, in one object. */
  input: I;
  output: O;
  needs: Need[];
  /**
   * The work that can fail on the caller's input (an entity exists, a query parses, a batch's
   * size), done before payment is taken so a request that would fail is answered 4xx and never
   * charged (an unpaid one hears it in the 402: operations/invoke); what it finds (the parsed
   * query, the resolved entity) is handed to the handler, so nothing is done twice. Without it the
   * handler gets the validated input.
   */
  prepare?(input: z.output<I>, ctx: OperationContext): Promise<P> | P;
  handler(prepared: P, ctx: OperationContext): Promise<z.input<O>> | z.input<O>;
  /** A valid example input, for the docs page and OpenAPI. */
  example: z.input<I>;
  /** The input field an `Authorization: Bearer` token fills over HTTP (a subscription's secret); MCP passes it as that argument. */
  bearer?: string;
}

/** Whether an operation's input comes from the query string (GET, DELETE) rather than a JSON body. */
export function inQuery(op: Pick<AnyOperation, "method">): boolean {
  return op.method !== "POST";
}

export function defineOperation<I extends z.ZodType, O extends z.ZodType, P = z.output<I>>(operation: Operation<I, O, P>): Operation<I, O, P> {
  return operation;
}

/** Any operation: the table holds operations of different input and output shapes. */
export type AnyOperation = Operation<any, any, any>;

/**
 * Fails when two operations share a name (one MCP tool, one price key would silently win) or a
 * method and path (one route would shadow the other), listing every offender.
 */
export function assertUniqueOperations(operations: readonly AnyOperation[]): void {
  const clashes = (keyOf: (op: AnyOperation) => string, what: string) => {
    const seen = new Map<string, number>();
    for (const op of operations) seen.set(keyOf(op), (seen.get(keyOf(op)) ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([k, n]) => `${what} ${k} (${n} operations)`);
  };
  const offenders = [...clashes((op) => op.name, "name"), ...clashes((op) => `${op.method} ${op.path}`, "route")];
  if (offenders.length > 0) throw new Error(`Operations must be unique: ${offenders.join("; ")}`);
}

/** An operation's description on a server with these settings. */
export function describeOperation(op: AnyOperation, settings: DescriptionSettings): string {
  return typeof op.description === "function" ? op.description(settings) : op.description;
}

/** A time limit as people read it: 10000 -> "10 s". */
export function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

/** Path parameter names of a route: `/a/:x/b/:y` gives [x, y]. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
}

/** Validates raw input against an operation's schema; errors become 400 invalid_request naming each field. */
export function validateInput<I extends z.ZodType>(operation: Operation<I>, raw: unknown): z.output<I> {
  const parsed = operation.input.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({
    field: issue.path.join(".") || (issue.code === "unrecognized_keys" ? (issue.keys ?? []).join(", ") : "(body)"),
    message: issue.message,
  }));
  const summary = issues
    .slice(0, 3)
    .map((i) => `${i.field}: ${i.message}`)
    .join("; ");
  throw new CkgError("invalid_request", `Invalid ${inQuery(operation) ? "parameters" : "request body"}: ${summary}.`, {
    details: { issues },
  });
}
