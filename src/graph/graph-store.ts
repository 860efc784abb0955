/**
 * @module graph/graph-store
 * Where the server's SPARQL goes: its own graph processes holding the snapshot (graph-pool.ts, the
 * embedded default) or an external SPARQL 1.1 store the operator loaded with `ckg export`
 * (remote-store.ts, `CKG_SPARQL_URL`). Queries reach either already guarded (sparql.ts: read-only,
 * row cap); both answer in the same shape and with the same error codes. Explore, search and the
 * signal scans read the snapshot's Parquet files, never this.
 */
import type { SelectResult } from "./protocol.ts";

export interface SnapshotGraph {
  id: string;
  file: string;
  quads: number;
  /** Its named graphs (one per source, and ckg's own): an external store is asked for these alone. */
  graphs: string[];
}

export type GraphPhase = "empty" | "loading" | "ready" | "failed";

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

export interface GraphStore {
  /** Makes a snapshot's graph the one queries see; resolves when queries can be answered. */
  load(snapshot: SnapshotGraph): Promise<void>;
  /** Runs a guarded SELECT or ASK within `timeoutMs` (504 query_timeout past it). */
  select(query: string, timeoutMs: number): Promise<SelectResult>;
  status(): GraphStatus;
  readonly ready: boolean;
  /** Throws 503 not_ready (with a Retry-After estimate) unless queries can be answered. */
  assertReady(): void;
  close(): Promise<void>;
}
