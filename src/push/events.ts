/**
 * @module push/events
 * What ckg pushes: an event for each signal a scan finds, changes the standing of, or ends, and one
 * for each change of the graph. Signal events live in the `signal_events` table, written in the
 * same transaction as the scan's signals (signals/qualify.ts); graph changes are the changes feed's
 * own rows, written in the same transaction as the snapshot's claim (graph/change-log.ts). Both
 * tables are the outbox: an event committed is never lost, whatever happens after the commit.
 *
 * A cursor is the position in both: the last signal event and the last change seen, written
 * `<signal event id>-<change id>`. It is each event's id on the event stream (`Last-Event-ID`
 * resumes from it) and what webhook deliveries are made from (push/dispatch.ts).
 */
import { z } from "zod";
import { CkgError } from "../errors.ts";
import { changeSchema } from "../graph/change-log.ts";
import { SEVERITIES } from "../signals/bands.ts";
import { QUALIFICATIONS } from "../signals/store.ts";

const SIGNAL_EVENT_TYPES = ["signal.new", "signal.updated", "signal.ended"] as const;
export const EVENT_TYPES = [...SIGNAL_EVENT_TYPES, "change"] as const;

/** A signal as an event carries it: its standing when the scan committed (the evidence is one request away). */
const signalEventDataSchema = z.object({
  signal_id: z.string(),
  signal_type: z.string(),
  entities: z.array(z.string()).describe("entity URIs (or outside ids such as wallets), main subject first"),
  score: z.number(),
  severity: z.enum(SEVERITIES),
  qualification: z.enum(QUALIFICATIONS),
  data_as_of: z.string(),
  scan_id: z.string(),
});

/** A change as the changes feed lists it (GET /api/changes), by its id, with the snapshot that brought it. */
const changeEventDataSchema = changeSchema.omit({ id: true, timestamp: true }).extend({ change_id: z.number().int(), snapshot_id: z.string() });

/** One event as webhooks and the event stream send it (the Standard Webhooks payload shape). */
export const pushEventSchema = z.discriminatedUnion("type", [
  z.object({ id: z.string(), type: z.enum(SIGNAL_EVENT_TYPES), timestamp: z.string(), data: signalEventDataSchema }),
  z.object({ id: z.string(), type: z.literal("change"), timestamp: z.string(), data: changeEventDataSchema }),
]);
export type PushEvent = z.infer<typeof pushEventSchema>;

/** Where a reader stands in both outbox tables. */
export interface Cursor {
  signalEvent: number;
  change: number;
}

export const START: Cursor = { signalEvent: 0, change: 0 };

export function encodeCursor(cursor: Cursor): string {
  return `${cursor.signalEvent}-${cursor.change}`;
}

export function decodeCursor(text: string, field = "cursor"): Cursor {
  const match = /^(\d{1,15})-(\d{1,15})$/.exec(text.trim());
  if (!match) {
    throw new CkgError("invalid_request", `${field} is not an event id this server gave (the form is <number>-<number>); pass the id of the last event received unchanged.`, {
      details: { field },
    });
  }
  return { signalEvent: Number(match[1]), change: Number(match[2]) };
}

/** The later of two cursors, position by position. */
export function furthest(a: Cursor, b: Cursor): Cursor {
  return { signalEvent: Math.max(a.signalEvent, b.signalEvent), change: Math.max(a.change, b.change) };
}
