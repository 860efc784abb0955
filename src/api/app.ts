/**
 * @module api/app
 * The Elysia application: one route per operation of the table, plus health, readiness, metrics,
 * OpenAPI, docs, the web console at / with its operator session, and the endpoints mounted by
 * whoever assembles the server (/mcp). Every request
 * gets an id, a rate-limit check, a version header, a JSON log line and a metrics sample; every
 * failure leaves in the documented error shape.
 */
import { Elysia } from "elysia";
import { CkgError, isCkgError } from "../errors.ts";
import { VERSION } from "../version.ts";
import { readJsonBody } from "./body.ts";
import { renderDocsPage } from "./docs-page.ts";
import { toHttpError } from "../operations/error-status.ts";
import { operationContext } from "../operations/context.ts";
import { Metrics } from "./metrics.ts";
import { buildOpenApi } from "./openapi.ts";
import { toJsonSchema } from "../operations/json-schema.ts";
import { invoke } from "../operations/invoke.ts";
import { discoveryManifest, resourceDiscovery } from "../operations/discovery.ts";
import { type AnyOperation, assertUniqueOperations, pathParams } from "../operations/operation.ts";
import { RateLimiter } from "./rate-limit.ts";
import { SPARQL_PROTOCOL_PATH, protocolQuery, protocolResponse } from "./sparql-protocol.ts";
import type { SparqlAnswer } from "../graph/sparql.ts";
import { encodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentGate } from "../payments/gate.ts";
import { PaymentRequiredError } from "../payments/payment-required.ts";
import type { PriceList } from "../payments/prices.ts";
import type { ApiServices } from "./services.ts";
import { ConsoleSessions } from "./console-session.ts";
// The web console: Bun bundles the page's script and styles (and embeds them in the executable).
import consolePage from "../console/index.html";

/** An endpoint served beside the operations (the MCP endpoint), answering whole requests itself. */
export interface Mount {
  path: string;
  methods: readonly ("GET" | "POST" | "DELETE")[];
  /** Throws CkgError for a refusal: it leaves in the documented error shape. */
  handle(request: Request): Response | Promise<Response>;
}

export interface AppOptions {
  operations: readonly AnyOperation[];
  /** Public base URL, for OpenAPI `servers` and the docs page (read when first needed: the port may be picked at listen). */
  baseUrl: () => string;
  payments: PaymentGate;
  /** The server's one price list: what OpenAPI and the docs page show is what the gate charges. */
  prices: PriceList;
  mounts?: readonly Mount[];
}

interface RequestState {
  id: string;
  started: number;
  client: string;
}

export function createApp(services: ApiServices, options: AppOptions) {
  const { operations, payments, prices, baseUrl, mounts = [] } = options;
  assertUniqueOperations(operations);
  const { log, config } = services;
  const limiter = new RateLimiter(config.rate_limit_per_minute);
  const metrics = new Metrics(services);
  const sessions = new ConsoleSessions(config.console_token);
  let openapi: ReturnType<typeof buildOpenApi> | undefined;
  let docs: string | undefined;
  const routes = [
    ...operations.map((op) => ({ method: op.method, pattern: routePattern(op.path) })),
    ...["/", "/healthz", "/readyz", "/metrics", "/openapi.json", "/docs", "/.well-known/x402.json"].map((path) => ({ method: "GET", pattern: routePattern(path) })),
    ...["GET", "POST", "DELETE"].map((method) => ({ method, pattern: routePattern("/console/session") })),
    ...mounts.flatMap((mount) => mount.methods.map((method) => ({ method, pattern: routePattern(mount.path) }))),
    ...["GET", "POST"].map((method) => ({ method, pattern: routePattern(SPARQL_PROTOCOL_PATH) })),
  ];
  const states = new WeakMap<Request, RequestState>();

  // The console's page goes to Bun's own router (it bundles and serves the page and its chunks):
  // Elysia hands a page to Bun only from here, since the app has request hooks.
  const app = new Elysia({ serve: { routes: { "/": consolePage } } })
    .onRequest(({ request, set, server }) => {
      const id = request.headers.get("x-request-id")?.slice(0, 128) || crypto.randomUUID();
      const forwarded = config.trust_proxy ? request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() : undefined;
      const client = forwarded || server?.requestIP(request)?.address || "local";
      states.set(request, { id, started: performance.now(), client });
      set.headers["x-ckg-version"] = VERSION;
      set.headers["x-request-id"] = id;
      limiter.take(client);
    })
    .onError(({ error, code, request, set, path }) => {
      if (error instanceof PaymentRequiredError) return paymentRequired(set, error);
      let failure = error;
      if (code === "NOT_FOUND") {
        const allowed = routes.filter((r) => r.pattern.test(path)).map((r) => r.method);
        failure =
          allowed.length > 0
            ? new CkgError("method_not_allowed", `${request.method} is not allowed on ${path}; use ${[...new Set(allowed)].join(" or ")}.`, {
                details: { allowed },
              })
            : new CkgError("not_found", `No route ${request.method} ${path}. See /docs or /openapi.json for the routes.`);
        if (allowed.length > 0) set.headers.allow = [...new Set(allowed)].join(", ");
      } else if (code === "PARSE") {
        failure = new CkgError("invalid_request", "The request body could not be parsed.");
      }
      const http = toHttpError(failure);
      if (http.error.code === "internal") {
        log.error({ req_id: states.get(request)?.id, err: describeError(error) }, "unhandled error");
      }
      set.status = http.status;
      Object.assign(set.headers, http.headers);
      return http.body;
    })
    .onAfterResponse(({ request, set, route }) => {
      const state = states.get(request);
      if (!state) return;
      const seconds = (performance.now() - state.started) / 1000;
      const status = typeof set.status === "number" ? set.status : 200;
      const label = route || "unmatched";
      metrics.observe(request.method, label, status, seconds);
      log.info(
        { req_id: state.id, method: request.method, route: label, path: new URL(request.url).pathname, status, ms: Math.round(seconds * 1e4) / 10, client: state.client },
        "request",
      );
    })
    .get("/healthz", () => ({ status: "ok", version: VERSION, uptime_s: Math.round((Date.now() - services.startedAt) / 1000) }))
    .get("/readyz", async ({ set }) => {
      const { ready, body } = await services.readiness();
      if (!ready) set.status = 503;
      return { ...body, payments: await payments.status() };
    })
    .get("/metrics", async ({ set }) => {
      const { contentType, text } = await metrics.render();
      set.headers["content-type"] = contentType;
      return text;
    })
    .get("/openapi.json", () => (openapi ??= buildOpenApi(operations, prices, baseUrl())))
    // x402 discovery from the origin (operations/discovery.ts): every paid resource, no payment needed.
    .get("/.well-known/x402.json", async () => {
      const { since, paid } = await payments.acceptedBy(operations);
      return discoveryManifest(paid, baseUrl(), since);
    })
    .get("/docs", ({ set }) => {
      set.headers["content-type"] = "text/html; charset=utf-8";
      return (docs ??= renderDocsPage(operations, prices, baseUrl()));
    })
    .get("/console/session", ({ request }) => ({ signed_in: sessions.isOperator(request.headers.get("cookie")), sign_in: sessions.enabled, payments: payments.mode }))
    .post(
      "/console/session",
      async ({ request, set }) => {
        const body = await bodyInput(request);
        set.headers["set-cookie"] = sessions.signIn(body.token, baseUrl().startsWith("https:"));
        set.headers["cache-control"] = "no-store";
        set.status = 204;
        return "";
      },
      { parse: "none" },
    )
    .delete("/console/session", ({ set }) => {
      set.headers["set-cookie"] = sessions.signOut(baseUrl().startsWith("https:"));
      set.status = 204;
      return "";
    });
  for (const mount of mounts) {
    for (const method of mount.methods) app.route(method, mount.path, ({ request }) => mount.handle(request), { parse: "none" });
  }

  /** Runs an operation for a request: the payment header in, the settlement header out. */
  const run = async (op: AnyOperation, raw: Record<string, unknown>, request: Request, set: { headers: Record<string, string | number> }) => {
    const ctx = operationContext(services, states.get(request)!.id);
    const offer = {
      resourceUrl: request.url,
      header: request.headers.get("payment-signature"),
      signIn: request.headers.get("sign-in-with-x"),
      operator: sessions.isOperator(request.headers.get("cookie")),
      describe: () => resourceDiscovery(op, "http", new URL(request.url).pathname),
    };
    const { answer, settlement } = await invoke(op, raw, ctx, payments, offer);
    if (settlement) set.headers["payment-response"] = encodePaymentResponseHeader(settlement);
    return answer;
  };

  // The SPARQL 1.1 Protocol: the sparql operation (price, payment, limits) with the standard request and result formats.
  const sparql = operations.find((op) => op.name === "sparql");
  if (sparql) {
    const protocol = async ({ request, set }: { request: Request; set: { headers: Record<string, string | number> } }) => {
      const answer = (await run(sparql, { query: await protocolQuery(request), typed: true }, request, set)) as SparqlAnswer;
      const { contentType, body } = protocolResponse(answer, request.headers.get("accept"));
      set.headers["content-type"] = contentType;
      set.headers.vary = "Accept";
      // The standard formats have no field for it: a cut answer says so in a header.
      if (answer.truncated) set.headers["x-ckg-truncated"] = "true";
      return body;
    };
    app.get(SPARQL_PROTOCOL_PATH, protocol, { parse: "none" }).post(SPARQL_PROTOCOL_PATH, protocol, { parse: "none" });
  }

  for (const op of operations) {
    const queryTypes = op.method === "GET" ? propertyTypes(op) : new Map<string, string>();
    const params = pathParams(op.path);
    app.route(
      op.method,
      op.path,
      async ({ request, params: given, set }) => {
        const raw = op.method === "GET" ? queryInput(request, queryTypes) : await bodyInput(request);
        for (const name of params) raw[name] = (given as Record<string, string>)[name];
        try {
          return await run(op, raw, request, set);
        } catch (error) {
          // The challenge is the hot path of a paid API: answered here, not through the error pipeline.
          if (error instanceof PaymentRequiredError) return paymentRequired(set, error);
          throw error;
        }
      },
      { parse: "none" },
    );
  }
  return app;
}

export type App = ReturnType<typeof createApp>;

/** 402: the x402 PaymentRequired object in the PAYMENT-REQUIRED header and as the JSON body. */
function paymentRequired(set: { status?: number | string; headers: Record<string, string | number> }, error: PaymentRequiredError): string {
  set.status = 402;
  set.headers["payment-required"] = error.header;
  set.headers["cache-control"] = "no-store";
  set.headers["content-type"] = "application/json";
  return error.body;
}

/** A route's path as a regular expression, for telling 404 from 405. */
function routePattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/:[a-z_]+/g, "[^/]+")}/?$`);
}

async function bodyInput(request: Request): Promise<Record<string, unknown>> {
  const body = await readJsonBody(request);
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new CkgError("invalid_request", "The request body must be a JSON object.", { details: { body: Array.isArray(body) ? "array" : typeof body } });
  }
  return body as Record<string, unknown>;
}

/** JSON Schema type of each input property: query strings are converted to them before validation. */
function propertyTypes(op: AnyOperation): Map<string, string> {
  const schema = toJsonSchema(op.input, "input") as { properties?: Record<string, { type?: string }> };
  return new Map(Object.entries(schema.properties ?? {}).map(([name, p]) => [name, p.type ?? "string"]));
}

function queryInput(request: Request, types: Map<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const search = new URL(request.url).searchParams;
  for (const name of new Set(search.keys())) {
    const values = search.getAll(name);
    if (values.length > 1) {
      throw new CkgError("invalid_request", `Parameter ${name} is given ${values.length} times; give it once.`, { details: { field: name } });
    }
    out[name] = convert(values[0]!, types.get(name));
  }
  return out;
}

/** "72" -> 72 for numbers, "true" -> true for booleans; anything else stays a string for the schema to judge. */
function convert(value: string, type: string | undefined): unknown {
  if ((type === "number" || type === "integer") && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  if (type === "boolean") {
    if (value === "true" || value === "1") return true;
    if (value === "false" || value === "0") return false;
  }
  return value;
}

function describeError(error: unknown): Record<string, unknown> {
  if (isCkgError(error)) return { code: error.code, message: error.message, cause: String(error.cause) };
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { value: String(error) };
}

