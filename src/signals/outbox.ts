/**
 * @module signals/outbox
 * The signal events a scan writes beside its signals, in the same transaction (signals/qualify.ts):
 * a signal found for the first time, one whose standing changed, and one that ended. Committed with
 * the signals or not at all, so a crash between the commit and a delivery loses no event.
 */
import type { Severity } from "./bands.ts";
import type { Qualification } from "./store.ts";
import { type SqlValue, type Statement, insertRows } from "../store/state.ts";

type SignalEventType = "signal.new" | "signal.updated" | "signal.ended";

/** A signal's standing as its event carries it. */
export interface Standing {
  signal_id: string;
  signal_type: string;
  /** JSON array of entity URIs, as the signals table holds it. */
  entities: string;
  score: number;
  severity: Severity;
  qualification: Qualification;
  data_as_of: string;
}

const COLUMNS = ["at", "type", "signal_id", "signal_type", "entities", "score", "severity", "qualification", "data_as_of", "scan_id"];

/** A score moving less than this within its band is not news: re-scans on fresh data nudge scores daily. */
const SCORE_STEP = 5;

/** Whether a signal seen again on newer data changed enough to tell subscribers. */
export function standingChanged(before: Pick<Standing, "score" | "severity" | "qualification">, after: Pick<Standing, "score" | "severity" | "qualification">): boolean {
  return before.qualification !== after.qualification || before.severity !== after.severity || Math.abs(before.score - after.score) >= SCORE_STEP;
}

/** Collects one scan's events; `writes` inserts them. */
export class SignalEvents {
  private readonly rows: SqlValue[][] = [];

  constructor(private readonly scan: { scanId: string; now: string }) {}

  add(type: SignalEventType, s: Standing): void {
    this.rows.push([this.scan.now, type, s.signal_id, s.signal_type, s.entities, s.score, s.severity, s.qualification, s.data_as_of, this.scan.scanId]);
  }

  get size(): number {
    return this.rows.length;
  }

  writes(): Statement[] {
    return insertRows("signal_events", COLUMNS, this.rows);
  }
}
