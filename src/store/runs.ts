/**
 * @module store/runs
 * Background runs in the state database (store/state-db.ts): ingests recorded like scans
 * (signals/store.ts), each with the process doing it, and the rule that keeps both honest: a run
 * recorded as running whose process is gone was interrupted, and is marked so with the time it was
 * noticed, never left "running".
 */
import { hostname } from "node:os";
import { isAlive } from "../runtime.ts";
import { isoSeconds } from "../time.ts";
import type { StateDb } from "./state-db.ts";

export interface IngestRecord {
  ingest_id: string;
  started_at: string;
  finished_at: string | null;
  trigger: string;
  status: "running" | "ok" | "failed" | "interrupted";
  snapshot_id: string | null;
  error: string | null;
  pid: number;
}

/** Records an ingest this process starts; returns its id. */
export function startIngest(db: StateDb, trigger: string, now = new Date()): string {
  const id = `ingest_${isoSeconds(now).replace(/[-:]/g, "")}_${process.pid}`;
  db.query("INSERT INTO ingests (ingest_id, started_at, trigger, status, pid) VALUES (?, ?, ?, 'running', ?)").run(id, isoSeconds(now), trigger, process.pid);
  return id;
}

export function finishIngest(db: StateDb, id: string, outcome: { status: "ok" | "failed"; snapshotId?: string; error?: string }): void {
  db.query("UPDATE ingests SET status = ?, finished_at = ?, snapshot_id = ?, error = ? WHERE ingest_id = ?").run(
    outcome.status,
    isoSeconds(),
    outcome.snapshotId ?? null,
    outcome.error ?? null,
    id,
  );
}

/** The newest ingest that fetched (a `ckg import` reads files a person chose: never redone as a fetch). */
export function lastFetchIngest(db: StateDb): IngestRecord | null {
  return db.query<IngestRecord, []>("SELECT * FROM ingests WHERE trigger <> 'import' ORDER BY started_at DESC, ingest_id DESC LIMIT 1").get();
}

export function recentIngests(db: StateDb, limit: number): IngestRecord[] {
  return db.query<IngestRecord, [number]>("SELECT * FROM ingests ORDER BY started_at DESC, ingest_id DESC LIMIT ?").all(limit);
}

/**
 * Marks every scan and ingest recorded as running whose process is gone (killed, crashed, the
 * machine restarted) as interrupted; returns their ids. `alive` is how a process id is checked.
 */
export function markInterrupted(db: StateDb, alive: (pid: number) => boolean = isAlive, now = new Date()): { scans: string[]; ingests: string[] } {
  const noticed = isoSeconds(now);
  const gone = <R extends { pid: number | null }>(rows: R[]) => rows.filter((r) => r.pid === null || !alive(r.pid));
  const scans = gone(db.query<{ scan_id: string; pid: number | null }, []>("SELECT scan_id, pid FROM scans WHERE status = 'running'").all());
  const ingests = gone(db.query<{ ingest_id: string; pid: number }, []>("SELECT ingest_id, pid FROM ingests WHERE status = 'running'").all());
  const why = (pid: number | null) => `interrupted: its process${pid === null ? "" : ` (pid ${pid})`} was gone when noticed at ${noticed}`;
  db.transaction(() => {
    for (const { scan_id, pid } of scans) {
      db.query("UPDATE scans SET status = 'interrupted', finished_at = ?, report = ? WHERE scan_id = ?").run(
        noticed,
        JSON.stringify({ errors: [{ type: "*", message: why(pid) }] }),
        scan_id,
      );
    }
    for (const { ingest_id, pid } of ingests) {
      db.query("UPDATE ingests SET status = 'interrupted', finished_at = ?, error = ? WHERE ingest_id = ?").run(noticed, why(pid), ingest_id);
    }
  })();
  return { scans: scans.map((s) => s.scan_id), ingests: ingests.map((i) => i.ingest_id) };
}

/**
 * Claims a scheduled run for this process: replicas sharing the state database all fire the same
 * cron, and the one whose INSERT lands runs it. `slot` names the run and its minute
 * ('scan@2026-11-26T06:00'); `claimed` is false when another replica holds it. A run its holder
 * left interrupted is redone by the catch-up of the next start (server/catch-up.ts).
 */
export function claimRun(db: StateDb, kind: "scan" | "ingest", firedAt: Date): { claimed: boolean; slot: string; holder: string } {
  const slot = `${kind}@${isoSeconds(firedAt).slice(0, 16)}`;
  const me = `${hostname()}:${process.pid}`;
  db.query("INSERT INTO run_claims (slot, holder, claimed_at) VALUES (?, ?, ?) ON CONFLICT (slot) DO NOTHING").run(slot, me, isoSeconds());
  const holder = db.query<{ holder: string }, [string]>("SELECT holder FROM run_claims WHERE slot = ?").get(slot)!.holder;
  return { claimed: holder === me, slot, holder };
}
