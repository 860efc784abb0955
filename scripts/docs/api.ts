/**
 * @module scripts/docs/api
 * docs/api.md, the HTTP API reference, from the server's one list of routes (api/routes) and the
 * OpenAPI document built from it (scripts/docs/server): each operation of the table with its
 * method and path, summary and description (as a server with the default settings says them), its
 * price, its effects, its input and answer as field tables, the statuses and error codes it can
 * answer, and its example input as a curl command; then every other route (health, readiness,
 * metrics, OpenAPI, the SPARQL 1.1 Protocol, the event stream, discovery, MCP, the console).
 */
import { curl } from "../../src/api/docs-page.ts";
import type { Route } from "../../src/api/routes.ts";
import { HTTP_STATUS } from "../../src/api/error-status.ts";
import { ERROR_CODES, errorMeaning } from "../../src/errors.ts";
import { describeEffects } from "../../src/operations/effects.ts";
import { toJsonSchema } from "../../src/operations/json-schema.ts";
import { type AnyOperation, describeOperation, inQuery, pathParams } from "../../src/operations/operation.ts";
import { CLIENT_DEFAULT_CAP_USD, capNote } from "../../src/payments/client-cap.ts";
import { answersMarkdown, errorsMarkdown, fieldsMarkdown } from "./fields.ts";
import { cell, code, codeBlock, generatedBanner, linkTo, page, prose, table } from "./markdown.ts";
import { type ApiSource, DEFAULT_BASE_URL, type OpenApiOperation, routeKey, templated } from "./server.ts";

export const API_PAGE = "docs/api.md";

/** The text of docs/api.md. */
export function apiPage(source: ApiSource): string {
  const operations = source.routes.flatMap((route) => (route.doc && "operation" in route.doc ? [route.doc.operation] : []));
  const others = otherRoutes(source.routes);
  return page([
    generatedBanner("the operations table (src/operations/table) and the server's list of routes (src/api/app.ts)"),
    "# HTTP API reference",
    prose(
      `Every route a ckg server answers, generated from the code by \`npm run docs\`. Examples use ${DEFAULT_BASE_URL}, where \`ckg serve\` listens ` +
        "with the default settings; descriptions quote the default settings (a server states its own limits in /openapi.json, /docs and its MCP tools). " +
        "Each operation is also an MCP tool of the same name (`/mcp`, `ckg mcp`), with the same input, answer and price.",
    ),
    "## Contents",
    [
      "- [Errors](#errors) and [prices](#prices)",
      `- Operations: ${operations.map((op) => linkTo(op.name, code(op.name))).join(", ")}`,
      `- [Other routes](#other-routes): ${others.map((group) => linkTo(group.heading, code(`${group.methods.join(", ")} ${group.path}`))).join(", ")}`,
    ].join("\n"),
    "## Errors",
    prose(
      'Every refusal has one shape, `{"error": {"code", "message", "details"}}`; each code has one meaning (src/errors.ts) and one HTTP status (src/api/error-status.ts). ' +
        "A 429 or 503 carries Retry-After. Each operation below lists the statuses it can answer with; its last column names every code that has that status, " +
        "not only the ones that operation gives.",
    ),
    table(["Code", "HTTP status", "Meaning"], ERROR_CODES.map((c) => [code(c), String(HTTP_STATUS[c]), cell(errorMeaning(c).meaning)])),
    "## Prices",
    prose(
      "Payments are off until a pay-to address is set (`CKG_PAY_TO`, `CKG_PAY_TO_SOLANA`): then every route is free and none is advertised as paid. " +
        "With payments on, a paid route is charged per request with x402 v2 at the price below (the operation's default; `CKG_PRICES` overrides it, " +
        `e.g. \`sparql=0.05\`). An unpaid request is answered 402 whatever its input; a paid request that fails is not charged. x402 clients pay at most ${CLIENT_DEFAULT_CAP_USD} USD ` +
        "per payment unless their buyer raises the cap (see the price of the routes above it).",
    ),
    table(
      ["Operation", "Route", "Price with payments on"],
      operations.map((op) => [linkTo(op.name, code(op.name)), code(routeKey(op.method, op.path)), priceCell(source.prices.of(op.name))]),
    ),
    "## Operations",
    ...operations.map((op) => operationSection(op, source)),
    "## Other routes",
    prose("The routes that are not operations of the table: the server's own state, its documents, protocols of their own, and the web console."),
    ...others.map((group) => otherRouteSection(group, source)),
  ]);
}

function priceCell(usd: number): string {
  return usd > 0 ? `$${usd.toFixed(2)}` : "free";
}

function operationSection(op: AnyOperation, source: ApiSource): string {
  const entry = documentedEntry(source, op.method, op.path);
  const price = source.prices.of(op.name);
  const cap = capNote(price);
  const input = toJsonSchema(op.input, "input");
  const params = pathParams(op.path);
  const where = (name: string) => {
    const place = params.includes(name) ? "path" : inQuery(op) ? "query" : "body";
    return name === op.bearer ? `header Authorization: Bearer, or ${place}` : place;
  };
  return [
    `### ${op.name}`,
    code(routeKey(op.method, op.path)),
    `**${prose(op.summary)}.** ${prose(describeOperation(op, source.defaults))}`,
    [
      `- Price: ${price > 0 ? `$${price.toFixed(2)} per request with payments on (x402); free while payments are off.${cap ? ` ${prose(cap)}.` : ""}` : "free."}`,
      `- Effects: ${prose(describeEffects(op.effects))}`,
    ].join("\n"),
    `#### Input (${inQuery(op) ? "query string" : "JSON body"}${params.length > 0 ? " and path" : ""})`,
    fieldsMarkdown(input, where),
    "#### Answer",
    answersMarkdown(entry),
    "#### Errors",
    errorsMarkdown(entry),
    "#### Example",
    codeBlock("sh", curl(op, DEFAULT_BASE_URL)),
  ].join("\n\n");
}

/** Routes with the same path and the same words (GET and POST /sparql, /mcp's three methods) are one section. */
interface RouteGroup {
  heading: string;
  path: string;
  methods: string[];
  routes: Route[];
}

function otherRoutes(routes: readonly Route[]): RouteGroup[] {
  const groups: RouteGroup[] = [];
  for (const route of routes) {
    if (route.doc && "operation" in route.doc) continue;
    if (!route.doc && !route.about) throw new Error(`route ${route.method} ${route.path} has neither an OpenAPI entry nor an \`about\` line (src/api/routes.ts): say what it serves`);
    const path = templated(route.path);
    const same = route.doc ? undefined : groups.find((g) => g.path === path && !g.routes[0]!.doc && g.routes[0]!.about === route.about);
    if (same) same.methods.push(route.method);
    if (same) same.routes.push(route);
    else groups.push({ heading: "", path, methods: [route.method], routes: [route] });
  }
  for (const group of groups) group.heading = `${group.methods.join(", ")} ${group.path}`;
  return groups;
}

function otherRouteSection(group: RouteGroup, source: ApiSource): string {
  const [route] = group.routes;
  const title = `### ${group.heading}`;
  if (!route!.doc) return [title, prose(route!.about!)].join("\n\n");
  const entry = documentedEntry(source, route!.method, route!.path);
  const parameters = entry.parameters ?? [];
  const body = entry.requestBody?.content["application/json"]?.schema;
  return [
    title,
    `**${prose(entry.summary)}.** ${prose(entry.description)}`,
    ...(parameters.length > 0
      ? [
          "#### Parameters",
          table(
            ["Parameter", "In", "Type", "Required", "Description"],
            parameters.map((p) => [code(p.name), p.in, String(p.schema.type ?? "any"), p.required ? "yes" : "no", cell(p.description ?? "")]),
          ),
        ]
      : []),
    ...(body ? ["#### Body (JSON)", fieldsMarkdown(body)] : []),
    "#### Answer",
    answersMarkdown(entry),
    ...(errorsMarkdown(entry) ? ["#### Errors", errorsMarkdown(entry)] : []),
  ].join("\n\n");
}

function documentedEntry(source: ApiSource, method: string, path: string): OpenApiOperation {
  const entry = source.documented.get(routeKey(method, path));
  if (!entry) throw new Error(`${routeKey(method, path)} is documented in the route list but missing from /openapi.json`);
  return entry;
}
