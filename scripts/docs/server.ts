/**
 * @module scripts/docs/server
 * What the API reference is generated from, taken from the server itself: the app's one list of
 * routes (api/routes: every route it registers, the operations of the table among them, each with
 * its OpenAPI entry or its `about` line) and the OpenAPI document built from that list, at the
 * default prices with payments on, so each paid route shows its price and its 402. The app is
 * assembled in-process on an empty, throwaway data directory (as scripts/openapi-types.ts does):
 * no server listens, no dataset is built, and nothing of the machine reaches the page.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildOpenApi } from "../../src/api/openapi.ts";
import type { Route } from "../../src/api/routes.ts";
import { type Config, loadConfig } from "../../src/config/config.ts";
import { SETTINGS } from "../../src/config/settings.ts";
import { silentLogger } from "../../src/log.ts";
import { OPERATIONS } from "../../src/operations/table/index.ts";
import { PriceList } from "../../src/payments/prices.ts";
import { createServer } from "../../src/supervisor/assemble.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import type { Schema } from "./schema-fields.ts";

/** Where a server started with the default settings answers: the curl examples' base. */
export const DEFAULT_BASE_URL = `http://${SETTINGS.host.default}:${SETTINGS.port.default}`;

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  parameters?: { name: string; in: string; required: boolean; schema: Schema; description?: string }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema?: Schema }> }>;
  "x-price-usd": number;
}

export interface ApiSource {
  routes: readonly Route[];
  /** The OpenAPI document's operations by `METHOD /path/{param}`. */
  documented: ReadonlyMap<string, OpenApiOperation>;
  /** The configuration of a server started with no settings: what descriptions quote (time limits). */
  defaults: Config;
  /** The default price list with payments on (a pay-to address set, no CKG_PRICES). */
  prices: PriceList;
}

/** `GET /api/insights/entity/{entity_name}`: a route as OpenAPI keys it, and people write it. */
export function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${templated(path)}`;
}

/** A path's parameters as OpenAPI writes them: `/a/:x` is `/a/{x}`. */
export function templated(path: string): string {
  return path.replace(/:([a-z_]+)/g, "{$1}");
}

/** The route list and OpenAPI document of a server with the default settings, assembled in this process. */
export async function apiSource(): Promise<ApiSource> {
  const defaults = loadConfig({ env: {}, flags: {} });
  const prices = PriceList.from(OPERATIONS, undefined, true);
  const dir = mkdtempSync(join(tmpdir(), "ckg-docs-"));
  try {
    const config = loadConfig({ env: {}, flags: { data_dir: dir, log_level: "silent", scan_cron: "off", first_scan: "false" } });
    const services = await Supervisor.open(config, silentLogger);
    try {
      const app = createServer(services, { baseUrl: DEFAULT_BASE_URL });
      const routes = app.routeList;
      const document = buildOpenApi(routes, prices, DEFAULT_BASE_URL, defaults) as { paths: Record<string, Record<string, OpenApiOperation>> };
      const documented = new Map<string, OpenApiOperation>();
      for (const [path, methods] of Object.entries(document.paths)) {
        for (const [method, entry] of Object.entries(methods)) documented.set(routeKey(method, path), entry);
      }
      return { routes, documented, defaults, prices };
    } finally {
      await services.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
