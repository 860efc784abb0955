/**
 * @module signals/store
 * Signals, their moves and the scans in the state database (bun:sqlite, store/state-db.ts), and
 * the queries the routes make. One scan's writes are one transaction: readers see a scan whole or
 * not at all.
 */
import type { StateDb } from "../store/state-db.ts";
import type { Severity } from "./bands.ts";

export const QUALIFICATIONS = ["pending", "screened", "qualified", "rejected"] as const;
export type Qualification = (typeof QUALIFICATIONS)[number];

export interface SignalRow {
  signal_id: string;
  signal_type: string;
  key: string;
  entities: string;
  score: number;
  severity: Severity;
  evidence: string;
  qualification: Qualification;
  created_at: string;
  updated_at: string;
  seen_at: string;
  episode_start: string;
  data_as_of: string;
  ended_at: string | null;
}

export interface Signal {
  signal_id: string;
  signal_type: string;
  /** Any source is generated demo data (the evidence says the same; here a reader sees it first). */
  synthetic: boolean;
  entities: string[];
  score: number;
  severity: Severity;
  evidence: Record<string, unknown>;
  created_at: string;
  seen_at: string;
  qualification: Qualification;
  active: boolean;
}

export interface Move {
  at: string;
  from: Qualification | null;
  to: Qualification;
  reason: string;
  scan_id: string;
}

export function toSignal(row: SignalRow): Signal {
  const evidence = JSON.parse(row.evidence) as Record<string, unknown>;
  return {
    signal_id: row.signal_id,
    signal_type: row.signal_type,
    synthetic: evidence.synthetic === true,
    entities: JSON.parse(row.entities) as string[],
    score: row.score,
    severity: row.severity,
    evidence,
    created_at: row.created_at,
    seen_at: row.seen_at,
    qualification: row.qualification,
    active: row.ended_at === null,
  };
}

export interface SignalQuery {
  types?: string[];
  qualification: Qualification | "all";
  /** Seen by a scan at or after this time (ISO). */
  since: string;
  limit: number;
  /** Signals concerning any of these entity URIs (or outside ids). */
  entities?: string[];
  /** Only signals whose episode has not ended, and not rejected. */
  activeOnly?: boolean;
}

/** The WHERE clause and parameters of a query's filters (limit aside). */
function filtersOf(query: Omit<SignalQuery, "limit">): { clause: string; params: Record<string, string> } {
  const where = ["s.seen_at >= $since"];
  const params: Record<string, string> = { since: query.since };
  if (query.types) {
    where.push(`s.signal_type IN (${query.types.map((_, i) => `$t${i}`).join(", ")})`);
    query.types.forEach((t, i) => (params[`t${i}`] = t));
  }
  if (query.qualification !== "all") {
    where.push("s.qualification = $qualification");
    params.qualification = query.qualification;
  }
  if (query.activeOnly) where.push("s.ended_at IS NULL AND s.qualification <> 'rejected'");
  if (query.entities) {
    where.push(`s.signal_id IN (SELECT signal_id FROM signal_entities WHERE entity_uri IN (${query.entities.map((_, i) => `$e${i}`).join(", ")}))`);
    query.entities.forEach((e, i) => (params[`e${i}`] = e));
  }
  return { clause: where.join(" AND "), params };
}

/**
 * The listing's SQL: strongest first, then most recently seen. With no type or entity filter it
 * walks the signals_by_score index to the limit (SQLite would rather take signals_by_seen and sort
 * every signal); a type or an entity narrows the signals to sort to few, found by their own index.
 */
export function listingSql(query: SignalQuery): { sql: string; params: Record<string, string> } {
  const { clause, params } = filtersOf(query);
  const source = query.types || query.entities ? "signals s" : "signals s INDEXED BY signals_by_score";
  return { sql: `SELECT s.* FROM ${source} WHERE ${clause} ORDER BY s.score DESC, s.seen_at DESC, s.signal_id LIMIT ${query.limit}`, params };
}

/** Strongest first, then most recently seen, up to the query's limit. */
export function listSignals(db: StateDb, query: SignalQuery): Signal[] {
  const listing = listingSql(query);
  return db.query<SignalRow, Record<string, string>>(listing.sql).all(listing.params).map(toSignal);
}

/** The listing and how many signals match in all. */
export function querySignals(db: StateDb, query: SignalQuery): { signals: Signal[]; total: number } {
  const { clause, params } = filtersOf(query);
  const total = db.query<{ n: number }, typeof params>(`SELECT count(*) AS n FROM signals s WHERE ${clause}`).get(params)!.n;
  return { signals: listSignals(db, query), total };
}

/** The counting's SQL: every column of its filters is in signals_by_type, so it reads that index alone. */
export function countingSql(query: Omit<SignalQuery, "limit">): { sql: string; params: Record<string, string> } {
  const { clause, params } = filtersOf(query);
  return { sql: `SELECT s.signal_type AS t, count(*) AS n FROM signals s WHERE ${clause} GROUP BY s.signal_type ORDER BY s.signal_type`, params };
}

/** How many signals of each type match the filters. */
export function countByType(db: StateDb, query: Omit<SignalQuery, "limit">): Record<string, number> {
  const counting = countingSql(query);
  const rows = db.query<{ t: string; n: number }, Record<string, string>>(counting.sql).all(counting.params);
  return Object.fromEntries(rows.map((r) => [r.t, r.n]));
}

export function movesOf(db: StateDb, signalId: string): Move[] {
  return db
    .query<{ at: string; from_state: Qualification | null; to_state: Qualification; reason: string; scan_id: string }, [string]>(
      "SELECT at, from_state, to_state, reason, scan_id FROM signal_moves WHERE signal_id = ? ORDER BY id",
    )
    .all(signalId)
    .map((m) => ({ at: m.at, from: m.from_state, to: m.to_state, reason: m.reason, scan_id: m.scan_id }));
}

export interface ScanRecord {
  scan_id: string;
  started_at: string;
  finished_at: string | null;
  snapshot_id: string;
  as_of: string;
  trigger: string;
  status: "running" | "ok" | "partial" | "failed" | "interrupted";
  report: Record<string, unknown> | null;
  /** The process that ran it (null for scans recorded before processes were). */
  pid: number | null;
}

export function recentScans(db: StateDb, limit: number): ScanRecord[] {
  return db
    .query<Omit<ScanRecord, "report"> & { report: string | null }, [number]>("SELECT * FROM scans ORDER BY started_at DESC, scan_id DESC LIMIT ?")
    .all(limit)
    .map((row) => ({ ...row, report: row.report ? (JSON.parse(row.report) as Record<string, unknown>) : null }));
}

/** The newest finished scan (ok or partial) by as-of date: where catching up starts. */
export function lastFinishedScan(db: StateDb): { as_of: string; started_at: string } | null {
  return db
    .query<{ as_of: string; started_at: string }, []>("SELECT as_of, started_at FROM scans WHERE status IN ('ok', 'partial') ORDER BY as_of DESC, started_at DESC LIMIT 1")
    .get();
}

/** Whether any scan has finished (signal routes answer 503 until the first one has). */
export function hasFinishedScan(db: StateDb): boolean {
  return db.query("SELECT 1 FROM scans WHERE status IN ('ok', 'partial') LIMIT 1").get() !== null;
}
