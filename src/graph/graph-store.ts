/**
 * @module graph/graph-store
 * Where the server's SPARQL goes: its own graph processes holding the snapshot (graph-pool.ts, the
 * embedded default) or an external SPARQL 1.1 store the operator loaded with `ckg export`
 * (remote-store.ts, `CKG_SPARQL_URL`). Queries reach either already guarded (sparql.ts: read-only,
 * row cap); both answer in the same shape and with the same error codes. Explore, search and the
 * signal scans read the snapshot's Parquet files, never this.
 */
import type { ConstructOptions, GraphResult, QueryScope, SelectResult } from "./protocol.ts";

export interface SnapshotGraph {
  id: string;
  file: string;
  quads: number;
  /** Its named graphs (one per source, and ckg's own): an external store is asked for these alone. */
  graphs: string[];
}

export const GRAPH_PHASES = ["empty", "loading", "ready", "failed"] as const;
export type GraphPhase = (typeof GRAPH_PHASES)[number];

export interface GraphStatus {
  phase: GraphPhase;
  snapshot?: string;
  quads?: number;
  /** The embedded store's processes (none for an external store). */
  replicas: { pid: number; state: string; load_ms?: number }[];
  queued: number;
  /** Queries being answered now (a gauge for operators; tests wait on it to act mid-query). */
  running: number;
  /** Queries stopped at their time limit since start. */
  timeouts: number;
  error?: string;
  /** An external store: its endpoint (without credentials) and which snapshot it says it holds. */
  endpoint?: string;
  store_snapshot?: string | null;
}

/**
 * A snapshot's graph goes live in two steps, so a snapshot rejected after its graph loaded never
 * reaches SPARQL: load() readies it beside the live one, activate() makes it live once the rest of
 * the snapshot is (discard() drops it instead).
 */
export interface GraphStore {
  /** Readies a snapshot's graph beside the live one; resolves when it can answer. */
  load(snapshot: SnapshotGraph): Promise<void>;
  /** Makes a loaded (or still loading) snapshot's graph the one unpinned queries and the status see. */
  activate(id: string): void;
  /** Drops a snapshot's graph that will not go live. */
  discard(id: string): void;
  /**
   * Runs a guarded SELECT or ASK within `timeoutMs` (504 query_timeout past it), on the graph of
   * `snapshotId` when given (a request pinned to its snapshot: 503 once that graph is gone, never
   * another snapshot's answer), else on the live one; on the dataset `scope` names (the union of
   * every graph by default).
   */
  select(query: string, timeoutMs: number, snapshotId?: string, scope?: QueryScope): Promise<SelectResult>;
  /** Runs a guarded CONSTRUCT likewise: its distinct triples, at most `options.maxTriples`, written in `options.format`. */
  construct(query: string, options: ConstructOptions, timeoutMs: number, snapshotId?: string): Promise<GraphResult>;
  status(): GraphStatus;
  readonly ready: boolean;
  /** Throws 503 not_ready (with a Retry-After estimate) unless queries can be answered. */
  assertReady(): void;
  close(): Promise<void>;
}
