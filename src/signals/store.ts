/**
 * @module signals/store
 * Signals, their moves and the scans in the state store (SQLite or PostgreSQL, store/state.ts),
 * and the queries the routes make. One scan's writes are one transaction: readers see a scan whole
 * or not at all.
 */
import { HOST } from "../store/runs.ts";
import type { SqlValue, StateStore } from "../store/state.ts";
import { isoSeconds } from "../time.ts";
import type { Severity } from "./bands.ts";
import type { Evidence } from "./evidence.ts";
import { type SignalQuality, signalQuality } from "./quality.ts";
import { type StoredScanReport, readStoredReport } from "./scan-report.ts";

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
  evidence: Evidence;
  created_at: string;
  seen_at: string;
  qualification: Qualification;
  active: boolean;
  /** The type's measured record (signals/quality.ts), so a reader can weigh the signal. */
  quality: SignalQuality;
}

export interface Move {
  at: string;
  from: Qualification | null;
  to: Qualification;
  reason: string;
  scan_id: string;
}

export function toSignal(row: SignalRow): Signal {
  // Written by a scan from the detector's evidence schema (signals/evidence.ts), the common fields included.
  const evidence = JSON.parse(row.evidence) as Evidence;
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
    quality: signalQuality(row.signal_type),
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
function filtersOf(query: Omit<SignalQuery, "limit">): { clause: string; params: SqlValue[] } {
  const where = ["s.seen_at >= ?"];
  const params: SqlValue[] = [query.since];
  if (query.types) {
    where.push(`s.signal_type IN (${query.types.map(() => "?").join(", ")})`);
    params.push(...query.types);
  }
  if (query.qualification !== "all") {
    where.push("s.qualification = ?");
    params.push(query.qualification);
  }
  if (query.activeOnly) where.push("s.ended_at IS NULL AND s.qualification <> 'rejected'");
  if (query.entities) {
    where.push(`s.signal_id IN (SELECT signal_id FROM signal_entities WHERE entity_uri IN (${query.entities.map(() => "?").join(", ")}))`);
    params.push(...query.entities);
  }
  return { clause: where.join(" AND "), params };
}

/**
 * The listing's SQL: strongest first, then most recently seen. With no type or entity filter it
 * walks the signals_by_score index to the limit (SQLite would rather take signals_by_seen and sort
 * every signal, so it is told; PostgreSQL's planner finds it); a type or an entity narrows the
 * signals to sort to few, found by their own index.
 */
export function listingSql(query: SignalQuery, engine: StateStore["engine"]): { sql: string; params: SqlValue[] } {
  const { clause, params } = filtersOf(query);
  const hinted = engine === "sqlite" && !query.types && !query.entities;
  const source = hinted ? "signals s INDEXED BY signals_by_score" : "signals s";
  return { sql: `SELECT s.* FROM ${source} WHERE ${clause} ORDER BY s.score DESC, s.seen_at DESC, s.signal_id LIMIT ${query.limit}`, params };
}

/** Strongest first, then most recently seen, up to the query's limit. */
export async function listSignals(state: StateStore, query: SignalQuery): Promise<Signal[]> {
  const listing = listingSql(query, state.engine);
  return (await state.all<SignalRow>(listing.sql, listing.params)).map(toSignal);
}

/** The listing and how many signals match in all. */
export async function querySignals(state: StateStore, query: SignalQuery): Promise<{ signals: Signal[]; total: number }> {
  const { clause, params } = filtersOf(query);
  const [count, signals] = await Promise.all([state.get<{ n: number }>(`SELECT CAST(count(*) AS INTEGER) AS n FROM signals s WHERE ${clause}`, params), listSignals(state, query)]);
  return { signals, total: count!.n };
}

/** The counting's SQL: every column of its filters is in signals_by_type, so it reads that index alone. */
export function countingSql(query: Omit<SignalQuery, "limit">): { sql: string; params: SqlValue[] } {
  const { clause, params } = filtersOf(query);
  return { sql: `SELECT s.signal_type AS t, CAST(count(*) AS INTEGER) AS n FROM signals s WHERE ${clause} GROUP BY s.signal_type ORDER BY s.signal_type`, params };
}

/** How many signals of each type match the filters. */
export async function countByType(state: StateStore, query: Omit<SignalQuery, "limit">): Promise<Record<string, number>> {
  const counting = countingSql(query);
  const rows = await state.all<{ t: string; n: number }>(counting.sql, counting.params);
  return Object.fromEntries(rows.map((r) => [r.t, r.n]));
}

export async function movesOf(state: StateStore, signalId: string): Promise<Move[]> {
  const rows = await state.all<{ at: string; from_state: Qualification | null; to_state: Qualification; reason: string; scan_id: string }>(
    "SELECT at, from_state, to_state, reason, scan_id FROM signal_moves WHERE signal_id = ? ORDER BY id",
    [signalId],
  );
  return rows.map((m) => ({ at: m.at, from: m.from_state, to: m.to_state, reason: m.reason, scan_id: m.scan_id }));
}

export interface ScanRecord {
  scan_id: string;
  started_at: string;
  finished_at: string | null;
  snapshot_id: string;
  as_of: string;
  trigger: string;
  status: "running" | "ok" | "partial" | "failed" | "interrupted";
  /** Its report (signals/scan-report.ts), checked as it is read; null while it runs. */
  report: StoredScanReport | null;
  /** The process that ran it (null for scans recorded before processes were), on this machine. */
  pid: number | null;
  host: string | null;
  /** Until when its server holds it; past this another replica takes it over. */
  lease_until: string | null;
}

/** Records a scan this process starts, holding its lease until `leaseUntil` (renewed while it runs: store/runs.ts holdLease). */
export async function startScan(state: StateStore, scan: { scanId: string; startedAt: string; snapshotId: string; asOf: string; trigger: string; leaseUntil: Date }): Promise<void> {
  await state.run("INSERT INTO scans (scan_id, started_at, snapshot_id, as_of, trigger, status, pid, host, lease_until) VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?)", [
    scan.scanId,
    scan.startedAt,
    scan.snapshotId,
    scan.asOf,
    scan.trigger,
    process.pid,
    HOST,
    isoSeconds(scan.leaseUntil),
  ]);
}

/** Records how a scan ended, unless it is no longer running (another replica took it over). */
export async function finishScan(state: StateStore, scanId: string, status: ScanRecord["status"], finishedAt: Date, report: StoredScanReport): Promise<void> {
  await state.run("UPDATE scans SET status = ?, finished_at = ?, report = ? WHERE scan_id = ? AND status = 'running'", [status, isoSeconds(finishedAt), JSON.stringify(report), scanId]);
}

export async function recentScans(state: StateStore, limit: number): Promise<ScanRecord[]> {
  const rows = await state.all<Omit<ScanRecord, "report"> & { report: string | null }>("SELECT * FROM scans ORDER BY started_at DESC, scan_id DESC LIMIT ?", [limit]);
  return rows.map((row) => ({ ...row, report: row.report ? readStoredReport(row.report) : null }));
}

/** The newest finished scan (ok or partial) by as-of date: where catching up starts. */
export function lastFinishedScan(state: StateStore): Promise<{ as_of: string; started_at: string } | null> {
  return state.get<{ as_of: string; started_at: string }>("SELECT as_of, started_at FROM scans WHERE status IN ('ok', 'partial') ORDER BY as_of DESC, started_at DESC LIMIT 1");
}

/** Whether any scan has finished (signal routes answer 503 until the first one has). */
export async function hasFinishedScan(state: StateStore): Promise<boolean> {
  return (await state.get("SELECT 1 AS one FROM scans WHERE status IN ('ok', 'partial') LIMIT 1")) !== null;
}
