/**
 * @module push/feed
 * Reading the outbox (push/events.ts) in order: pages of events after a cursor, and a live tail
 * that hands new events to listeners (the event stream, MCP's subscriptions/listen). The tail looks
 * at the store every `push_poll_ms` while anyone listens (another replica's scan is seen there) and
 * at once when this process commits events (`wake`), so a listener here hears a scan as it commits.
 */
import type { Logger } from "../log.ts";
import { type StateQueries, placeholders } from "../store/state.ts";
import { type Cursor, type PushEvent, START, encodeCursor, furthest } from "./events.ts";
import { SingleFlight } from "./single-flight.ts";

interface SignalEventRow {
  id: number;
  at: string;
  type: "signal.new" | "signal.updated" | "signal.ended";
  signal_id: string;
  signal_type: string;
  entities: string;
  score: number;
  severity: "low" | "moderate" | "high";
  qualification: "pending" | "screened" | "qualified" | "rejected";
  data_as_of: string;
  scan_id: string;
}

interface ChangeRow {
  id: number;
  ts: string;
  entity_uri: string;
  entity_name: string;
  entity_type: string;
  operation: "CREATE" | "UPDATE";
  fields: string;
  source: string;
  snapshot_id: string;
}

/** An event and the cursor just past it. */
export interface Positioned {
  event: PushEvent;
  after: Cursor;
}

/** The newest position of both outbox tables. */
export async function headCursor(state: StateQueries): Promise<Cursor> {
  const row = await state.get<{ s: number | null; c: number | null }>(
    "SELECT (SELECT max(id) FROM signal_events) AS s, (SELECT max(id) FROM changes) AS c",
  );
  return { signalEvent: Number(row?.s ?? 0), change: Number(row?.c ?? 0) };
}

/**
 * Up to `limit` events after `after`, signal events before changes (each kind in its own order),
 * with the cursor past each. `more` says a page was full: read again from the last cursor.
 */
export async function readEvents(state: StateQueries, after: Cursor, limit: number): Promise<{ events: Positioned[]; more: boolean }> {
  const signals = await state.all<SignalEventRow>("SELECT * FROM signal_events WHERE id > ? ORDER BY id LIMIT ?", [after.signalEvent, limit]);
  const room = limit - signals.length;
  const changes = room > 0 ? await state.all<ChangeRow>("SELECT * FROM changes WHERE id > ? ORDER BY id LIMIT ?", [after.change, room]) : [];
  const events: Positioned[] = [];
  let at = after;
  for (const row of signals) {
    at = { ...at, signalEvent: Number(row.id) };
    events.push({ event: signalEvent(row, at), after: at });
  }
  for (const row of changes) {
    at = { ...at, change: Number(row.id) };
    events.push({ event: changeEvent(row, at), after: at });
  }
  return { events, more: signals.length + changes.length >= limit };
}

/** Events by their outbox keys ('s<id>' or 'c<id>', as deliveries name them), in two queries; a pruned one is absent. */
export async function eventsByKeys(state: StateQueries, keys: readonly string[]): Promise<Map<string, PushEvent>> {
  const out = new Map<string, PushEvent>();
  const ids = (prefix: string) => [...new Set(keys.filter((k) => k.startsWith(prefix)).map((k) => Number(k.slice(1))))];
  const signals = ids("s");
  const changes = ids("c");
  if (signals.length > 0) {
    for (const row of await state.all<SignalEventRow>(`SELECT * FROM signal_events WHERE id IN ${placeholders(signals.length)}`, signals)) {
      out.set(`s${row.id}`, signalEvent(row, { signalEvent: Number(row.id), change: 0 }));
    }
  }
  if (changes.length > 0) {
    for (const row of await state.all<ChangeRow>(`SELECT * FROM changes WHERE id IN ${placeholders(changes.length)}`, changes)) {
      out.set(`c${row.id}`, changeEvent(row, { signalEvent: 0, change: Number(row.id) }));
    }
  }
  return out;
}

/** The outbox key of an event at a cursor position (the key of its own table's id). */
export function eventKey(event: PushEvent, after: Cursor): string {
  return event.type === "change" ? `c${after.change}` : `s${after.signalEvent}`;
}

function signalEvent(row: SignalEventRow, after: Cursor): PushEvent {
  return {
    id: encodeCursor(after),
    type: row.type,
    timestamp: row.at,
    data: {
      signal_id: row.signal_id,
      signal_type: row.signal_type,
      entities: JSON.parse(row.entities) as string[],
      score: Number(row.score),
      severity: row.severity,
      qualification: row.qualification,
      data_as_of: row.data_as_of,
      scan_id: row.scan_id,
    },
  };
}

function changeEvent(row: ChangeRow, after: Cursor): PushEvent {
  return {
    id: encodeCursor(after),
    type: "change",
    timestamp: row.ts,
    data: {
      change_id: Number(row.id),
      entity_uri: row.entity_uri,
      entity_name: row.entity_name,
      entity_type: row.entity_type,
      operation: row.operation,
      changed_fields: JSON.parse(row.fields) as string[],
      source: row.source,
      snapshot_id: row.snapshot_id,
    },
  };
}

export type Listener = (events: Positioned[]) => void;

/** The live tail: one reader of the store for every listener of this process. */
export class EventFeed {
  private readonly listeners = new Set<Listener>();
  private tail: Cursor | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly reader: SingleFlight;

  constructor(
    private readonly state: StateQueries,
    private readonly pollMs: number,
    log: Logger,
  ) {
    this.reader = new SingleFlight(
      () => this.readNew(log),
      (error) => log.warn({ err: error }, "push: reading new events failed (tried again at the next poll)"),
    );
  }

  /** Hears every event committed after the call; returns the way to stop hearing. */
  async listen(listener: Listener): Promise<() => void> {
    this.tail ??= await headCursor(this.state);
    this.listeners.add(listener);
    if (!this.timer && this.pollMs > 0) {
      this.timer = setInterval(() => this.wake(), this.pollMs);
      this.timer.unref();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  /** How many listen now (each open event stream or MCP listen stream is one). */
  get listenerCount(): number {
    return this.listeners.size;
  }

  /** The position listeners have heard up to (the head when the first listened). */
  position(): Cursor {
    return this.tail ?? START;
  }

  /** Reads what is new now: called on this process's commits and by the poll. */
  wake(): void {
    if (this.listeners.size > 0) this.reader.run();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.listeners.clear();
    this.tail = undefined;
  }

  private async readNew(log: Logger): Promise<void> {
    for (;;) {
      const from = this.tail ?? START;
      const { events, more } = await readEvents(this.state, from, 1000);
      if (events.length === 0) return;
      this.tail = furthest(from, events.at(-1)!.after);
      for (const listener of this.listeners) {
        try {
          listener(events);
        } catch (error) {
          log.warn({ err: error }, "push: a listener failed on new events");
        }
      }
      if (!more) return;
    }
  }
}
