/**
 * @module api/server-routes
 * The routes about the server itself, beside the operations: health, readiness, metrics, the
 * OpenAPI document, x402 discovery and the docs page. None is charged.
 */
import type { z } from "zod";
import type { Services } from "../operations/context.ts";
import { discoveryManifest } from "../operations/discovery.ts";
import type { AnyOperation } from "../operations/operation.ts";
import type { healthSchema, readinessSchema } from "../operations/readiness.ts";
import type { PaymentGate } from "../payments/gate.ts";
import type { PriceList } from "../payments/prices.ts";
import { VERSION } from "../version.ts";
import { renderDocsPage } from "./docs-page.ts";
import type { Metrics } from "./metrics.ts";
import { buildOpenApi } from "./openapi.ts";
import { healthEntry, readinessEntry } from "./readiness.ts";
import type { Route } from "./routes.ts";

export interface ServerRoutesOptions {
  services: Services;
  operations: readonly AnyOperation[];
  payments: PaymentGate;
  prices: PriceList;
  baseUrl: () => string;
  metrics: Metrics;
  /** Every route of the app, for the OpenAPI document (read at its first request, once all are listed). */
  routes: () => readonly Route[];
}

export function serverRoutes({ services, operations, payments, prices, baseUrl, metrics, routes }: ServerRoutesOptions): Route[] {
  const { config } = services;
  let openapi: ReturnType<typeof buildOpenApi> | undefined;
  let docs: string | undefined;
  return [
    {
      method: "GET",
      path: "/healthz",
      doc: { entry: healthEntry },
      handle: (): z.input<typeof healthSchema> => ({ status: "ok", version: VERSION, uptime_s: Math.round((Date.now() - services.startedAt) / 1000) }),
    },
    {
      method: "GET",
      path: "/readyz",
      doc: { entry: readinessEntry },
      async handle({ set }): Promise<z.input<typeof readinessSchema>> {
        const { ready, body } = await services.readiness();
        if (!ready) set.status = 503;
        return { ...body, payments: await payments.status() };
      },
    },
    {
      method: "GET",
      path: "/metrics",
      doc: undefined,
      about: "Prometheus metrics (text exposition format): requests and their durations by route and status, readiness, the graph store and its processes, SPARQL queries by engine, webhook deliveries by state.",
      async handle({ set }) {
        const { contentType, text } = await metrics.render();
        set.headers["content-type"] = contentType;
        return text;
      },
    },
    { method: "GET", path: "/openapi.json", doc: undefined, about: "This server's OpenAPI 3.1 document: every documented route with its schemas, its price here (`x-price-usd`) and its effects (`x-effects`).", handle: () => (openapi ??= buildOpenApi(routes(), prices, baseUrl(), config)) },
    // x402 discovery from the origin (operations/discovery.ts): every paid resource, no payment needed.
    {
      method: "GET",
      path: "/.well-known/x402.json",
      doc: undefined,
      about: "x402 discovery: every paid resource with its price and payment requirements (empty while payments are off); free, no payment needed.",
      async handle() {
        const { since, paid } = await payments.acceptedBy(operations);
        return discoveryManifest(paid, baseUrl(), since);
      },
    },
    {
      method: "GET",
      path: "/docs",
      doc: undefined,
      about: "An HTML page documenting every operation: its price on this server, its effects and a curl example. No scripts, works offline.",
      handle({ set }) {
        set.headers["content-type"] = "text/html; charset=utf-8";
        return (docs ??= renderDocsPage(operations, prices, baseUrl(), config));
      },
    },
  ];
}
