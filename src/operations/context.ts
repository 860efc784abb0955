/**
 * @module operations/context
 * What an operation may use: the services a running server holds (supervisor/supervisor.ts implements
 * them) and the live snapshot, pinned once per request so a snapshot switch mid-request cannot run
 * a precheck and its handler on different data. Declared here, below both transports, so HTTP and
 * MCP hand operations the same thing and neither imports the server.
 */
import type { AnalyticSparql, SparqlEngineTally } from "../graph/analytic/analytic-sparql.ts";
import type { Config } from "../config/config.ts";
import type { NameIndex } from "../entities/name-index.ts";
import type { Namespaces } from "../entities/vocabulary.ts";
import type { FactIndex } from "../graph/fact-index.ts";
import type { GraphStore } from "../graph/graph-store.ts";
import type { Ontology } from "../graph/ontology.ts";
import type { Logger } from "../log.ts";
import type { Phase, ServerReadiness } from "./readiness.ts";
import type { EventFeed } from "../push/feed.ts";
import type { SearchEngine } from "../search/engine.ts";
import type { SchemaDocument } from "../snapshot/describe.ts";
import type { SnapshotManifest } from "../store/manifest.ts";
import type { StateStore } from "../store/state.ts";
import type { EntitySeries } from "../timeseries/figures.ts";
import type { TimeseriesStore } from "../timeseries/store.ts";

/** One published snapshot made live: its manifest and everything loaded from it. */
export interface LiveSnapshot {
  id: string;
  dir: string;
  manifest: SnapshotManifest;
  ns: Namespaces;
  ontology: Ontology;
  names: NameIndex;
  /** The facts by subject and by object: explore's neighbourhoods, in this process. */
  facts: FactIndex;
  search: SearchEngine;
  schema: SchemaDocument;
  timeseries: TimeseriesStore;
  /** Analytic SPARQL on DuckDB over this snapshot's graph tables. */
  analytic: AnalyticSparql;
  /** Each entity's series tables and latest figures, read at load. */
  series: EntitySeries;
}

/**
 * The services of a running server, as HTTP, MCP and the operations see them: one interface, which
 * the supervisor (supervisor/supervisor.ts) implements.
 */
export interface Services {
  readonly config: Config;
  readonly log: Logger;
  readonly state: StateStore;
  readonly graph: GraphStore;
  /** Whether a signal scan is running now (signal routes answer 503 before the first scan ends). */
  readonly scheduler: { readonly scanning: boolean };
  /** The events committed to the outbox (signals found, graph changes), live: the event stream and MCP listen here. */
  readonly events: EventFeed;
  /** SPARQL queries answered by each engine (/metrics). */
  readonly sparqlEngines: SparqlEngineTally;
  /** The live snapshot, or 503 not_ready while there is none yet. */
  snapshot(): LiveSnapshot;
  /** Where the server stands (health, readiness, metrics). */
  readonly phase: Phase;
  readonly startedAt: number;
  /** /readyz: ready or not, and a body saying why (phase, snapshot, graph, scans). */
  readiness(): Promise<{ ready: boolean; body: ServerReadiness }>;
}

export interface OperationContext {
  services: Services;
  /** The live snapshot when the request began (503 not_ready when there is none); the same object for the whole request. */
  readonly live: LiveSnapshot;
  requestId: string;
  log: Logger;
}

/**
 * A request's context: the snapshot is pinned on first use (invoke touches it first for operations
 * that need one) and the logger is made on first use (a child logger costs more than most handlers log).
 */
export function operationContext(services: Services, requestId: string, bindings: Record<string, string> = {}): OperationContext {
  let live: LiveSnapshot | undefined;
  let log: Logger | undefined;
  return {
    services,
    requestId,
    get live() {
      return (live ??= services.snapshot());
    },
    get log() {
      return (log ??= services.log.child({ req_id: requestId, ...bindings }));
    },
  };
}
