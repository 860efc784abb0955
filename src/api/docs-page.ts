/**
 * @module api/docs-page
 * A plain HTML page documenting every operation (from the operations table): its price (and, over
 * the default cap of x402 clients, how a buyer raises it), its effects, and a curl example. No
 * scripts, no external assets: it works offline.
 */
import { VERSION } from "../version.ts";
import { describeEffects } from "../operations/effects.ts";
import { type AnyOperation, type DescriptionSettings, describeOperation, inQuery, pathParams } from "../operations/operation.ts";
import { capNote } from "../payments/client-cap.ts";
import type { PriceList } from "../payments/prices.ts";

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** An operation's example input as a curl command (this page, and docs/api.md from scripts/docs). */
export function curl(op: AnyOperation, baseUrl: string): string {
  const example = { ...(op.example as Record<string, unknown>) };
  // The secret a bearer field takes travels in Authorization over HTTP (operation-routes).
  const auth = op.bearer && example[op.bearer] === undefined ? ` -H 'authorization: Bearer <${op.bearer}>'` : "";
  let path = op.path;
  for (const name of pathParams(op.path)) {
    path = path.replace(`:${name}`, encodeURIComponent(String(example[name] ?? name)));
    delete example[name];
  }
  if (inQuery(op)) {
    const query = new URLSearchParams(Object.entries(example).map(([k, v]): [string, string] => [k, String(v)])).toString();
    return `curl${op.method === "GET" ? "" : ` -X ${op.method}`} '${baseUrl}${path}${query ? `?${query}` : ""}'${auth}`;
  }
  return `curl -X POST '${baseUrl}${path}'${auth} -H 'content-type: application/json' -d '${JSON.stringify(example).replaceAll("'", "'\\''")}'`;
}

function price(usd: number): string {
  if (usd === 0) return "free";
  const cap = capNote(usd);
  return `$${usd.toFixed(2)} per request (x402)${cap ? `. ${escape(cap)}.` : ""}`;
}

export function renderDocsPage(operations: readonly AnyOperation[], prices: PriceList, baseUrl: string, settings: DescriptionSettings): string {
  const sections = operations
    .map(
      (op) => `<section id="${op.name}">
  <h2><code>${op.method} ${escape(op.path)}</code></h2>
  <p class="price">${price(prices.of(op.name))}</p>
  <p class="effects">${escape(describeEffects(op.effects))}</p>
  <p><strong>${escape(op.summary)}.</strong> ${escape(describeOperation(op, settings))}</p>
  <pre>${escape(curl(op, baseUrl))}</pre>
</section>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ckg API</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:.6rem;overflow:auto}.price,.effects{color:#555}</style>
</head><body>
<h1>ckg: crypto knowledge graph API</h1>
<p>Server ${escape(VERSION)}. Machine-readable description: <a href="/openapi.json">/openapi.json</a>. Health: <a href="/healthz">/healthz</a>, readiness and data provenance: <a href="/readyz">/readyz</a>, metrics: <a href="/metrics">/metrics</a>.</p>
<p>Errors: <code>{"error": {"code", "message", "details"}}</code>. A paid route answers an unpaid request 402 whatever its input; the 402 says whether the input would be answered (<code>extensions["ckg/input"]</code>), and a paid request with bad input gets its error and is never charged.</p>
${sections}
</body></html>`;
}
