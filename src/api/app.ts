/**
 * @module api/app
 * The Elysia application: the one list of routes (api/routes): one per operation of the table,
 * the SPARQL 1.1 Protocol, health, readiness, metrics, OpenAPI, docs, x402 discovery, the web
 * console with its operator session, and the endpoints mounted by whoever assembles the server
 * (/mcp). Every request gets an id, a rate-limit check, a version header, a JSON log line and a
 * metrics sample; every failure leaves in the documented error shape.
 */
import { Elysia } from "elysia";
import { CkgError } from "../errors.ts";
import { operationContext } from "../operations/context.ts";
import { Metrics } from "./metrics.ts";
import { invoke } from "../operations/invoke.ts";
import { resourceDiscovery } from "../operations/discovery.ts";
import type { PriceList } from "../payments/prices.ts";
import { serverRoutes } from "./server-routes.ts";
import { VERSION } from "../version.ts";
import { type AnyOperation, assertUniqueOperations } from "../operations/operation.ts";
import { assertEffectsFitMethods } from "../operations/effects.ts";
import { RateLimiter } from "./rate-limit.ts";
import type { PaymentGate } from "../payments/gate.ts";
import type { Services } from "../operations/context.ts";
import { ConsoleSessions } from "./console-session.ts";
import { consoleRoutes } from "./console-routes.ts";
import { OpenStreams, eventsRoute } from "./events-route.ts";
import { type Run, operationRoutes } from "./operation-routes.ts";
import { failure, httpOutcome } from "./outcome.ts";
import { sparqlProtocolRoutes } from "./sparql-protocol.ts";
import { snapshotGraphs } from "../operations/sparql-answers.ts";
import { type Route, assertUniqueRoutes, unrouted } from "./routes.ts";

/** An endpoint served beside the operations (the MCP endpoint), answering whole requests itself. */
export interface Mount {
  path: string;
  methods: readonly ("GET" | "POST" | "DELETE")[];
  /** What it serves, in a line (a route's `about`: docs/api.md). */
  about?: string;
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

export function createApp(services: Services, options: AppOptions) {
  const { operations, payments, prices, baseUrl, mounts = [] } = options;
  assertUniqueOperations(operations);
  assertEffectsFitMethods(operations);
  const { log, config } = services;
  const limiter = new RateLimiter(config.rate_limit_per_minute);
  const metrics = new Metrics(services);
  const sessions = new ConsoleSessions(config.console_token);
  const streams = new OpenStreams();
  const states = new WeakMap<Request, RequestState>();

  /** Runs an operation for a request: the payment header in, its outcome out (api/outcome.ts). */
  const run: Run = async (op, raw, request, set) => {
    const requestId = states.get(request)!.id;
    const ctx = operationContext(services, requestId);
    const offer = {
      resourceUrl: request.url,
      header: request.headers.get("payment-signature"),
      signIn: request.headers.get("sign-in-with-x"),
      operator: sessions.isOperator(request.headers.get("cookie")),
      describe: () => resourceDiscovery(op, "http", new URL(request.url).pathname),
    };
    return httpOutcome(await invoke(op, raw, ctx, payments, offer), set, { log, requestId });
  };

  const routes: Route[] = [
    ...operationRoutes(operations, run),
    ...sparqlProtocolRoutes(operations, run, () => snapshotGraphs(services.snapshot().manifest)),
    ...serverRoutes({ services, operations, payments, prices, baseUrl, metrics, routes: () => routes }),
    eventsRoute(services, streams),
    ...consoleRoutes({ sessions, payments, secure: () => baseUrl().startsWith("https:") }),
    ...mounts.flatMap((mount) => mount.methods.map((method): Route => ({ method, path: mount.path, doc: undefined, about: mount.about, handle: ({ request }) => mount.handle(request) }))),
  ];
  assertUniqueRoutes(routes);

  const app = new Elysia()
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
      let failed: unknown = error;
      if (code === "NOT_FOUND") failed = unrouted(routes, request.method, path);
      else if (code === "PARSE") failed = new CkgError("invalid_request", "The request body could not be parsed.");
      return failure(failed, set, { log, requestId: states.get(request)?.id });
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
    });
  // Every handler reads its own body (JSON with the 64 KiB limit, SPARQL text, MCP messages): Elysia parses none.
  for (const route of routes) app.route(route.method, route.path, (context) => route.handle(context), { parse: "none" });
  /** Ends the open event streams (/api/events): a stopping server calls it before `stop()`, which waits for them. */
  return Object.assign(app, {
    endEventStreams: (reason: string) => streams.closeAll(reason),
    /** The routes as listed above (with their docs): what the generated API reference (scripts/docs) reads. */
    routeList: routes as readonly Route[],
  });
}

