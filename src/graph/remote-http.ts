/**
 * @module graph/remote-http
 * One query to an external SPARQL 1.1 store (remote-store.ts) over the Protocol: a form POST with
 * the query, the dataset, and the answer format in Accept; the store's refusals and failures mapped
 * to ckg's error codes (400 invalid_sparql, 504 query_timeout, 503 not_ready, 502).
 */
import { CkgError } from "../errors.ts";
import type { Dataset } from "./protocol.ts";

/**
 * A graph no store holds: named so that an empty part of a dataset stays empty (a request without
 * `default-graph-uri` would leave the store's own default graph in its place).
 */
const EMPTY_GRAPH = "urn:ckg:no-graph";

export interface RemoteCall {
  endpoint: string;
  headers: Record<string, string>;
  query: string;
  accept: string;
  timeoutMs: number;
  /** The dataset sent with the query; none leaves the store's own (or the query's FROM). */
  dataset?: Dataset;
}

/** The store's 200 answer: its text and media type. Throws the mapped CkgError otherwise. */
export async function postQuery(call: RemoteCall): Promise<{ text: string; contentType: string }> {
  const { response, contentType, signal } = await sendQuery(call);
  try {
    return { text: await response.text(), contentType };
  } catch (error) {
    throw failed(call, signal, error);
  }
}

/**
 * The store's 200 answer unread, for a caller that reads it as it comes (`failed` maps what reading
 * it throws), with a controller to stop reading it early.
 */
export async function sendQuery(call: RemoteCall): Promise<{ response: Response; contentType: string; signal: AbortSignal; stop: AbortController }> {
  const { endpoint, timeoutMs } = call;
  const stop = new AbortController();
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), stop.signal]);
  const body = new URLSearchParams({ query: call.query });
  if (call.dataset) {
    for (const graph of call.dataset.defaultGraphs.length ? call.dataset.defaultGraphs : [EMPTY_GRAPH]) body.append("default-graph-uri", graph);
    for (const graph of call.dataset.namedGraphs.length ? call.dataset.namedGraphs : [EMPTY_GRAPH]) body.append("named-graph-uri", graph);
  }
  let response: Response;
  let text = "";
  try {
    response = await fetch(endpoint, { method: "POST", headers: { ...call.headers, accept: call.accept }, body, signal });
    if (response.status === 200) {
      const contentType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      return { response, contentType, signal, stop };
    }
    text = await response.text();
  } catch (error) {
    throw failed(call, signal, error);
  }
  const status = response.status;
  // Virtuoso refuses a query it estimates would run past its own limit (MaxQueryCostEstimationTime,
  // minutes): past ours too, so it is the time-limit answer, whether the estimate or the clock says it.
  if (status !== 200 && /estimated execution time .* exceeds the limit/i.test(text)) {
    throw new CkgError("query_timeout", `The graph store estimates this query would run past the ${timeoutMs} ms limit; narrow it (LIMIT, more specific patterns) and try again.`, {
      details: { timeout_ms: timeoutMs, engine: firstLines(text) },
    });
  }
  if (status === 400) throw new CkgError("invalid_sparql", `The graph store refused the query: ${firstLines(text)}`, { details: { engine: firstLines(text) } });
  // A store's own failure on this query (Virtuoso answers 500 for a refused plan), or its auth: 502 with what it said.
  throw new CkgError("upstream_unavailable", `The graph store at ${endpoint} answered HTTP ${status}: ${firstLines(text)}`, {
    details: { endpoint, status },
  });
}

/** A request or answer cut short: by the time limit (504), or the store going away (503). */
export function failed(call: Pick<RemoteCall, "endpoint" | "timeoutMs">, signal: AbortSignal, error: unknown): CkgError {
  if (signal.aborted) {
    return new CkgError("query_timeout", `The query ran longer than the ${call.timeoutMs} ms limit on the graph store; narrow it (LIMIT, more specific patterns) and try again.`, {
      details: { timeout_ms: call.timeoutMs },
    });
  }
  return new CkgError("not_ready", `The graph store at ${call.endpoint} did not answer: ${(error as Error).message}`, { retryAfterSeconds: 5, details: { endpoint: call.endpoint } });
}

/** An answer the store sent that is not what was asked for: 502 with its first lines. */
export function unreadable(endpoint: string, what: string, text: string): CkgError {
  return new CkgError("upstream_unavailable", `The graph store at ${endpoint} answered something other than ${what}: ${firstLines(text)}`, { details: { endpoint } });
}

/** An engine's error text (or HTML page), cut to what fits in a message. */
function firstLines(text: string): string {
  const plain = /^\s*<(!doctype|html)/i.test(text) ? text.replace(/<[^>]+>/g, " ") : text;
  return plain.replace(/\s+/g, " ").trim().slice(0, 500);
}
