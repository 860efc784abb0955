/**
 * @module graph/remote-store
 * The graph on an external SPARQL 1.1 store (`CKG_SPARQL_URL`): Virtuoso, QLever, Oxigraph server,
 * GraphDB, Fuseki or any endpoint of the SPARQL 1.1 Protocol, loaded by the operator from
 * `ckg export` (docs/operations.md: each store's load commands). Queries arrive guarded (read-only, row and
 * solution caps) and go out as a form POST (remote-http.ts) within the same time limit: SELECT and
 * ASK asking for SPARQL JSON results, mapped to the embedded store's terms; CONSTRUCT (and DESCRIBE,
 * rewritten as one) asking for N-Triples, capped and written as the embedded store writes them.
 * Nothing is loaded into this process, so a graph past the embedded WebAssembly store's 4 GiB heap
 * is served as well as a small one.
 *
 * The export carries one marker quad naming its snapshot (SNAPSHOT_MARKER); the store is checked for
 * it at load and every CHECK_EVERY_MS, and /readyz shows whether it holds the live snapshot. A store
 * that is down or out of date does not stop the server: SPARQL answers 503 (down) or the store's data
 * (stale, with a warning in the log and /readyz) while every other route serves from the snapshot.
 */
import { CkgError, isCkgError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { parseResults } from "./graph-results.ts";
import type { GraphStatus, GraphStore, SnapshotGraph } from "./graph-store.ts";
import type { ConstructOptions, Dataset, GraphResult, QueryScope, SelectResult, Term } from "./protocol.ts";
import { failed, postQuery, sendQuery, unreadable } from "./remote-http.ts";

/** The quad `ckg export` adds so a store says which snapshot it holds (in a graph of its own). */
const SNAPSHOT_MARKER = { graph: "urn:ckg:snapshot", subject: "urn:ckg:snapshot", predicate: "urn:ckg:snapshot-id" } as const;

export function snapshotMarkerQuad(id: string): string {
  return `<${SNAPSHOT_MARKER.subject}> <${SNAPSHOT_MARKER.predicate}> ${JSON.stringify(id)} <${SNAPSHOT_MARKER.graph}> .\n`;
}

const CHECK_EVERY_MS = 30_000;
const CHECK_TIMEOUT_MS = 10_000;
const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";
/** What graph answers are asked for in: N-Triples (a line per triple, the cheapest to parse), Turtle else. */
const GRAPH_ACCEPT = "application/n-triples, text/plain;q=0.9, text/turtle;q=0.8";
const READABLE = new Set(["application/n-triples", "text/turtle", "application/rdf+xml", "application/ld+json"]);

export interface RemoteStoreOptions {
  /** The query endpoint; user:password in it is sent as HTTP Basic auth. */
  url: string;
  /** An Authorization header value (`Bearer ...`), instead of credentials in the URL. */
  auth?: string;
  /**
   * `snapshot`: each query names the snapshot's graphs (the embedded store's answers); `store`: the
   * store's own default graph (Virtuoso: a class count over 4 M quads in 17 ms instead of 115).
   */
  dataset?: "snapshot" | "store";
  log: Logger;
}

export class RemoteSparqlStore implements GraphStore {
  private readonly endpoint: string;
  private readonly headers: Record<string, string>;
  /** The live snapshot (unpinned queries, the marker check). */
  private snapshot: SnapshotGraph | undefined;
  /** Snapshots loaded and not dropped, by id: the live one, the one before it, one being readied. */
  private readonly known = new Map<string, SnapshotGraph>();
  private previous: string | undefined;
  /** Snapshot ids the store's marker quads name; undefined until it answered once. */
  private held: string[] | undefined;
  private error: string | undefined;
  private timeouts = 0;
  private running = 0;
  private checker: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: RemoteStoreOptions) {
    const url = new URL(options.url);
    this.headers = { "content-type": "application/x-www-form-urlencoded" };
    if (url.username) {
      this.headers.authorization = `Basic ${btoa(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`)}`;
      url.username = "";
      url.password = "";
    }
    if (options.auth) this.headers.authorization = options.auth;
    this.endpoint = url.href;
  }

  /** Checks the store now (never throws: a store down or stale is reported, and checked again). */
  async load(snapshot: SnapshotGraph): Promise<void> {
    this.known.set(snapshot.id, snapshot);
    this.snapshot ??= snapshot;
    await this.check();
    this.checker ??= setInterval(() => void this.check(), CHECK_EVERY_MS);
    this.checker.unref();
  }

  activate(id: string): void {
    const snapshot = this.known.get(id);
    if (!snapshot) throw new Error(`activate: snapshot ${id} was never loaded`);
    this.snapshot = snapshot;
    // The live one and the one before it (requests pinned to it may still arrive) are kept.
    for (const other of this.known.keys()) if (other !== id && other !== this.previous) this.known.delete(other);
    this.previous = id;
  }

  discard(id: string): void {
    if (id !== this.snapshot?.id) this.known.delete(id);
  }

  /** A pinned query names its own snapshot's graphs: the store's data, never another snapshot's graph list. */
  select(query: string, timeoutMs: number, snapshotId?: string, scope: QueryScope = {}): Promise<SelectResult> {
    return this.run(snapshotId, (snapshot) => this.post(query, timeoutMs, snapshot, scope));
  }

  /**
   * A CONSTRUCT (DESCRIBE arrives rewritten as one) asked for as N-Triples, parsed as it arrives,
   * capped and written here (rdf-graph.ts, loaded on first use: it brings Oxigraph into the
   * server), so the answer is the embedded store's document whatever the store writes; the rest of
   * an answer past the cap is not read.
   */
  construct(query: string, options: ConstructOptions, timeoutMs: number, snapshotId?: string): Promise<GraphResult> {
    return this.run(snapshotId, async (snapshot) => {
      const call = { endpoint: this.endpoint, headers: this.headers, query, timeoutMs, dataset: this.datasetFor(snapshot, options), accept: GRAPH_ACCEPT };
      const [{ graphResultOfStream }, { response, contentType, signal, stop }] = await Promise.all([import("./rdf-graph.ts"), sendQuery(call)]);
      try {
        return await graphResultOfStream(response.body!, READABLE.has(contentType) ? contentType : "application/n-triples", options);
      } catch (error) {
        if (signal.aborted) throw failed(call, signal, error);
        throw unreadable(this.endpoint, "N-Triples or Turtle", (error as Error).message);
      } finally {
        stop.abort(); // past the cap, or done: nothing more is read
      }
    });
  }

  status(): GraphStatus {
    const live = this.snapshot?.id;
    return {
      phase: this.ready ? "ready" : this.error ? "failed" : this.snapshot ? "loading" : "empty",
      snapshot: live,
      replicas: [],
      queued: 0, // nothing waits here: the store queues its own work
      running: this.running,
      timeouts: this.timeouts,
      error: this.error,
      endpoint: this.endpoint,
      store_snapshot: this.held === undefined ? undefined : (this.held.join(", ") || null),
    };
  }

  get ready(): boolean {
    return this.held !== undefined && this.error === undefined;
  }

  assertReady(): void {
    if (this.ready) return;
    throw new CkgError("not_ready", `The graph store at ${this.endpoint} is not reachable${this.error ? `: ${this.error}` : " yet"}.`, {
      retryAfterSeconds: CHECK_EVERY_MS / 1000,
      details: { endpoint: this.endpoint },
    });
  }

  async close(): Promise<void> {
    clearInterval(this.checker);
  }

  /** Asks the store which snapshot it holds; logs when that is not the live one. */
  private async check(): Promise<void> {
    const query = `SELECT ?id WHERE { GRAPH <${SNAPSHOT_MARKER.graph}> { <${SNAPSHOT_MARKER.subject}> <${SNAPSHOT_MARKER.predicate}> ?id } }`;
    try {
      const result = await this.post(query, CHECK_TIMEOUT_MS);
      const held = result.rows.map((r) => r.id?.value).filter((v): v is string => v !== undefined).sort();
      const changed = held.join() !== this.held?.join() || this.error !== undefined;
      this.held = held;
      this.error = undefined;
      if (changed && this.snapshot && !(held.length === 1 && held[0] === this.snapshot.id)) {
        this.options.log.warn(
          { endpoint: this.endpoint, live: this.snapshot.id, store: held },
          "the graph store does not hold the live snapshot alone: SPARQL answers from what it holds; load `ckg export`'s files into it",
        );
      } else if (changed) {
        this.options.log.info({ endpoint: this.endpoint, snapshot: held[0] }, "graph store reachable and holding the live snapshot");
      }
    } catch (error) {
      const message = (error as Error).message;
      if (message !== this.error) this.options.log.error({ endpoint: this.endpoint, err: message }, "graph store not reachable");
      this.error = message;
    }
  }

  /** The snapshot a query reads (503 once a pinned one is gone), counting it as running. */
  private async run<T>(snapshotId: string | undefined, work: (snapshot: SnapshotGraph) => Promise<T>): Promise<T> {
    this.assertReady();
    const snapshot = snapshotId === undefined ? this.snapshot : this.known.get(snapshotId);
    if (!snapshot) throw new CkgError("not_ready", "The snapshot this request began on has been replaced; try again.", { retryAfterSeconds: 1 });
    this.running++;
    try {
      return await work(snapshot);
    } catch (error) {
      if (isCkgError(error) && error.code === "query_timeout") this.timeouts++;
      throw error;
    } finally {
      this.running--;
    }
  }

  /**
   * The dataset sent with a query: the request's own; none for a query naming its own (FROM) or
   * with CKG_SPARQL_DATASET=store; else the snapshot's graphs alone, whose merge is the default
   * graph as in the embedded store, so a store's own graphs (Virtuoso's system graphs, the marker)
   * stay out.
   */
  private datasetFor(snapshot: SnapshotGraph | undefined, scope: QueryScope): Dataset | undefined {
    if (scope.dataset) return scope.dataset;
    if (scope.fromQuery || this.options.dataset === "store" || !snapshot) return undefined;
    return { defaultGraphs: snapshot.graphs, namedGraphs: snapshot.graphs };
  }

  private async post(query: string, timeoutMs: number, snapshot?: SnapshotGraph, scope: QueryScope = {}): Promise<SelectResult> {
    const call = { endpoint: this.endpoint, headers: this.headers, query, timeoutMs, dataset: this.datasetFor(snapshot, scope) };
    const { text } = await postQuery({ ...call, accept: "application/sparql-results+json" });
    let result: SelectResult;
    try {
      result = parseResults(text);
    } catch {
      throw unreadable(this.endpoint, "SPARQL JSON results", text);
    }
    for (const row of result.rows) for (const [variable, term] of Object.entries(row)) row[variable] = standardTerm(term);
    return result;
  }
}

/**
 * A term as the embedded store writes it: the SPARQL 1.0 `typed-literal` type some stores still
 * send (Virtuoso) is a literal with a datatype, and xsd:string is a plain literal (RDF 1.1).
 */
function standardTerm(term: Term | { type: "typed-literal"; value: string; datatype: string }): Term {
  if (term.type === "typed-literal") return term.datatype === XSD_STRING ? { type: "literal", value: term.value } : { type: "literal", value: term.value, datatype: term.datatype };
  if (term.type === "literal" && term.datatype === XSD_STRING) return { type: "literal", value: term.value };
  return term;
}
