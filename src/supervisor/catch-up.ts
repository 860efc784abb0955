/**
 * @module supervisor/catch-up
 * What a starting server owes: the scans and ingests it missed while it was down. Scans are by
 * as-of day: every day after the newest finished scan up to the live snapshot's as-of date is
 * scanned (at most 7, oldest first); a data directory never scanned gets the first-start scan (the
 * day before and the day, so lasting signals qualify at once); a scheduled scan that fell while the
 * server was down is run now on the live data. When ingests are scheduled (CKG_INGEST_CRON), an
 * ingest that was interrupted, or whose schedule fell while down, is run now (it resumes where it
 * stopped); a `ckg import` is a person's run from files, never redone as a fetch.
 */
import type { Cron } from "croner";
import type { StateStore } from "../store/state.ts";
import { lastFetchIngest } from "../store/runs.ts";
import { lastFinishedScan } from "../signals/store.ts";
import { addDays } from "../time.ts";

/** How many missed as-of days a start scans at most. */
const MAX_CATCH_UP_DAYS = 7;

export interface ScanPlan {
  trigger: "first-start" | "catch-up" | "handover";
  /** Arguments of `ckg scan`. */
  args: string[];
  why: string;
  /** What it owes, the same for every replica planning from the same state (store/runs.ts claimRun). */
  slot: string;
}

export async function planScans(state: StateStore, options: { asOf: string; cron: Cron | undefined; firstScan: boolean; now?: Date }): Promise<ScanPlan | undefined> {
  const last = await lastFinishedScan(state);
  if (!last) {
    if (!options.firstScan) return undefined;
    return { trigger: "first-start", args: ["--as-of", options.asOf, "--days", "2"], why: "the data directory was never scanned", slot: `scan@first-start:${options.asOf}` };
  }
  const missed = daysBetween(last.as_of, options.asOf);
  const after = `${last.as_of}/${last.started_at}`;
  if (missed > 0) {
    const days = Math.min(missed, MAX_CATCH_UP_DAYS);
    const why = `${missed} as-of day(s) since the last finished scan (${last.as_of}); scanning ${addDays(options.asOf, 1 - days)}..${options.asOf}`;
    return { trigger: "catch-up", args: ["--as-of", options.asOf, "--days", String(days)], why, slot: `scan@catch-up:${options.asOf}:after:${after}` };
  }
  const due = scheduledSince(options.cron, last.started_at, options.now);
  if (due) return { trigger: "catch-up", args: ["--as-of", options.asOf], why: `the scan scheduled at ${due} was missed`, slot: `scan@missed:${due}:after:${after}` };
  return undefined;
}

/**
 * A scan taken over from a replica that stopped running it: its as-of day again, and every day
 * after it up to the live snapshot's (a first start scans two days in one run), at most seven.
 */
export function handoverPlan(interrupted: { scan_id: string; as_of: string }, liveAsOf: string): Omit<ScanPlan, "slot"> {
  const days = Math.min(Math.max(daysBetween(interrupted.as_of, liveAsOf), 0) + 1, MAX_CATCH_UP_DAYS);
  const through = liveAsOf > interrupted.as_of ? liveAsOf : interrupted.as_of;
  return {
    trigger: "handover",
    args: ["--as-of", through, "--days", String(days)],
    // No slot to claim: only the replica whose UPDATE recorded the scan interrupted hands it over.
    why: `scan ${interrupted.scan_id} (data as of ${interrupted.as_of}) is no longer run by its replica`,
  };
}

/** Why an ingest is owed now (and its slot), or undefined: the last one was interrupted, or its schedule fell since it started. */
export async function ingestOwed(state: StateStore, cron: Cron | undefined, now?: Date): Promise<{ why: string; slot: string } | undefined> {
  if (!cron) return undefined;
  const last = await lastFetchIngest(state);
  if (last?.status === "interrupted") return { why: `the ingest started at ${last.started_at} was interrupted`, slot: `ingest@redo:${last.ingest_id}` };
  const due = last ? scheduledSince(cron, last.started_at, now) : undefined;
  return due ? { why: `the ingest scheduled at ${due} was missed`, slot: `ingest@missed:${due}` } : undefined;
}

/** The newest scheduled time of `cron` after `since` and before now, as an ISO instant. */
function scheduledSince(cron: Cron | undefined, since: string, now = new Date()): string | undefined {
  const [previous] = cron?.previousRuns(1, now) ?? [];
  return previous && previous.getTime() > Date.parse(since) ? previous.toISOString() : undefined;
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
