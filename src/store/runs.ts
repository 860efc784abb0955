/**
 * @module store/runs
 * Background runs in the state store (store/state.ts): ingests recorded like scans
 * (signals/store.ts), each with the machine and process doing it, and the rule that keeps both
 * honest: a run recorded as running that no process runs any more was interrupted, and is marked
 * so with the time it was noticed, never left "running". Replicas sharing the store claim each
 * scheduled run once and take over a scan whose replica died (its lease ran out).
 */
import { hostname } from "node:os";
import { isAlive } from "../runtime.ts";
import { isoSeconds } from "../time.ts";
import type { StateStore } from "./state.ts";

/** This machine, as runs record it: a process id is only meaningful beside it. */
export const HOST = hostname();

export interface IngestRecord {
  ingest_id: string;
  started_at: string;
  finished_at: string | null;
  trigger: string;
  status: "running" | "ok" | "failed" | "interrupted";
  snapshot_id: string | null;
  error: string | null;
  pid: number;
  host: string | null;
}

/** Records an ingest this process starts; returns its id. */
export async function startIngest(state: StateStore, trigger: string, now = new Date()): Promise<string> {
  const id = `ingest_${isoSeconds(now).replace(/[-:]/g, "")}_${process.pid}`;
  await state.run("INSERT INTO ingests (ingest_id, started_at, trigger, status, pid, host) VALUES (?, ?, ?, 'running', ?, ?)", [id, isoSeconds(now), trigger, process.pid, HOST]);
  return id;
}

export async function finishIngest(state: StateStore, id: string, outcome: { status: "ok" | "failed"; snapshotId?: string; error?: string }): Promise<void> {
  await state.run("UPDATE ingests SET status = ?, finished_at = ?, snapshot_id = ?, error = ? WHERE ingest_id = ?", [
    outcome.status,
    isoSeconds(),
    outcome.snapshotId ?? null,
    outcome.error ?? null,
    id,
  ]);
}

/** The newest ingest that fetched (a `ckg import` reads files a person chose: never redone as a fetch). */
export function lastFetchIngest(state: StateStore): Promise<IngestRecord | null> {
  return state.get<IngestRecord>("SELECT * FROM ingests WHERE trigger <> 'import' ORDER BY started_at DESC, ingest_id DESC LIMIT 1");
}

export function recentIngests(state: StateStore, limit: number): Promise<IngestRecord[]> {
  return state.all<IngestRecord>("SELECT * FROM ingests ORDER BY started_at DESC, ingest_id DESC LIMIT ?", [limit]);
}

/** A scan this process found interrupted and recorded so: it may take the scan over. */
export interface InterruptedScan {
  scan_id: string;
  as_of: string;
}

/**
 * Marks the scans and ingests recorded as running that no process runs any more as interrupted:
 * on this machine, those whose process is gone (killed, crashed, the machine restarted); on any,
 * a scan whose lease ran out (its replica stopped renewing it: dead, or cut off). Each is flipped
 * by one conditional UPDATE, so of replicas noticing at once exactly one records it, and only that
 * one is told (and hands the scan over to itself). `alive` is how a process id is checked.
 */
export async function markInterrupted(state: StateStore, alive: (pid: number) => boolean = isAlive, now = new Date()): Promise<{ scans: InterruptedScan[]; ingests: string[] }> {
  const noticed = isoSeconds(now);
  const here = (host: string | null) => host === null || host === HOST;
  const gone = (r: { pid: number | null; host: string | null }) => here(r.host) && (r.pid === null || !alive(r.pid));
  const running = await state.all<InterruptedScan & { pid: number | null; host: string | null; lease_until: string | null }>(
    "SELECT scan_id, as_of, pid, host, lease_until FROM scans WHERE status = 'running'",
  );
  const ingests = (await state.all<{ ingest_id: string; pid: number; host: string | null }>("SELECT ingest_id, pid, host FROM ingests WHERE status = 'running'")).filter(gone);
  const why = (r: { pid: number | null; host: string | null }) =>
    gone(r) ? `interrupted: its process${r.pid === null ? "" : ` (pid ${r.pid})`} was gone when noticed at ${noticed}` : `interrupted: its replica on ${r.host} stopped renewing its lease (noticed at ${noticed})`;
  const scans: InterruptedScan[] = [];
  for (const scan of running) {
    // A lapsed lease wins even over a live process here: it is stuck or cut off (stopped), and a scan
    // taken over writes nothing if it wakes (signals/qualify.ts), so the worst is a scan done twice.
    const expired = scan.lease_until !== null && scan.lease_until < noticed;
    if (!gone(scan) && !expired) continue;
    const report = JSON.stringify({ errors: [{ type: "*", message: why(scan) }] });
    const flipped = await state.run("UPDATE scans SET status = 'interrupted', finished_at = ?, report = ? WHERE scan_id = ? AND status = 'running'", [noticed, report, scan.scan_id]);
    if (flipped === 1) scans.push({ scan_id: scan.scan_id, as_of: scan.as_of });
  }
  const flippedIngests: string[] = [];
  for (const ingest of ingests) {
    const flipped = await state.run("UPDATE ingests SET status = 'interrupted', finished_at = ?, error = ? WHERE ingest_id = ? AND status = 'running'", [noticed, why(ingest), ingest.ingest_id]);
    if (flipped === 1) flippedIngests.push(ingest.ingest_id);
  }
  return { scans, ingests: flippedIngests };
}

/**
 * Renews the lease of the scan process `pid` runs on this machine, until `until`: while it is
 * renewed no other replica takes the scan over. holdLease renews it on a timer.
 */
export async function renewLease(state: StateStore, pid: number, until: Date): Promise<void> {
  await state.run("UPDATE scans SET lease_until = ? WHERE status = 'running' AND host = ? AND pid = ?", [isoSeconds(until), HOST, pid]);
}

/**
 * Holds the lease of the scan process `pid` runs on this machine: renewed every third of `leaseMs`
 * until the returned release is called. The scan's own process holds it (signals/scan-stages.ts), and
 * so does the server that started it (supervisor/scheduler.ts), since a scan's detectors may hold its
 * event loop past a renewal. A renewal that fails is told to `onError`; the next one tries again.
 */
export function holdLease(state: StateStore, pid: number, leaseMs: number, onError: (error: Error) => void = () => undefined): () => void {
  const timer = setInterval(() => void renewLease(state, pid, new Date(Date.now() + leaseMs)).catch(onError), leaseMs / 3);
  return () => clearInterval(timer);
}

/** The slot of a cron's firing: what and its minute ('scan@2026-11-26T06:00'). */
export function cronSlot(kind: "scan" | "ingest", firedAt: Date): string {
  return `${kind}@${isoSeconds(firedAt).slice(0, 16)}`;
}

/**
 * Claims a run for this process: replicas sharing the state store all owe the same runs (a cron's
 * firing, the catch-up of replicas starting together), and the one whose INSERT of the run's slot
 * lands runs it; `claimed` is false when another replica holds it. A claim whose process on this
 * machine is gone (a server restarted after a crash) passes to this one. `alive` is how a process
 * id is checked.
 */
export async function claimRun(state: StateStore, slot: string, alive: (pid: number) => boolean = isAlive): Promise<{ claimed: boolean; slot: string; holder: string }> {
  const me = `${HOST}:${process.pid}`;
  await state.run("INSERT INTO run_claims (slot, holder, claimed_at) VALUES (?, ?, ?) ON CONFLICT (slot) DO NOTHING", [slot, me, isoSeconds()]);
  let holder = (await state.get<{ holder: string }>("SELECT holder FROM run_claims WHERE slot = ?", [slot]))!.holder;
  const [host, pid] = [holder.slice(0, holder.lastIndexOf(":")), Number(holder.slice(holder.lastIndexOf(":") + 1))];
  if (holder !== me && host === HOST && !alive(pid)) {
    const passed = await state.run("UPDATE run_claims SET holder = ?, claimed_at = ? WHERE slot = ? AND holder = ?", [me, isoSeconds(), slot, holder]);
    if (passed === 1) holder = me;
  }
  return { claimed: holder === me, slot, holder };
}
