/**
 * The signals page's Live mode: a stream subscription for the page's filters (made once, then
 * reused from localStorage while the filters stay the same: its secret is shown only when it is
 * made) read with EventSource on GET /api/events. EventSource sends no headers, so the secret goes
 * in the query, as the route allows; the server logs paths without their query. EventSource
 * reconnects by itself with Last-Event-ID, and a later Live reopens after the last event this
 * browser got, so nothing in between is missed or shown twice.
 */
import { useEffect, useState } from "preact/hooks";
import { ApiError, type Signal, type SignalFilters, api, query } from "./api.ts";
import { type KeptSubscription, forget, keep, keptForLive, updateKept } from "./kept.ts";

export const SIGNAL_EVENT_TYPES = ["signal.new", "signal.updated", "signal.ended"] as const;

/**
 * A signal event as the stream sends it (server: push/events.ts). /openapi.json describes the
 * stream's body only as text/event-stream, so this is not generated: it is the signal's generated
 * fields that an event carries, plus the event's own.
 */
export interface SignalEvent {
  id: string;
  type: (typeof SIGNAL_EVENT_TYPES)[number];
  timestamp: string;
  data: Pick<Signal, "signal_id" | "signal_type" | "entities" | "score" | "severity" | "qualification"> & { data_as_of: string; scan_id: string };
}

export type LiveState = "off" | "connecting" | "live" | "reconnecting" | "ended";

/** The newest this many events are shown; older ones drop off the end. */
const MAX_SHOWN = 200;
/** A scan sends its events in a burst: they are drawn together, once per this many ms, not one render each. */
const DRAW_EVERY_MS = 100;
/** A stream refused while its subscription is still active (a restart, a rate limit) is opened again after this. */
const REOPEN_MS = 5000;

export interface Live {
  state: LiveState;
  /** Newest first, one per signal (its latest event). */
  arrivals: SignalEvent[];
  /** Why the stream ended, when it did. */
  note: string | null;
}

/**
 * Live events for these filters, or nothing when `filters` is null. A subscription that cannot be
 * made (a 402 when payments are on, a bad filter) goes to `onFailure`: the caller turns Live off.
 */
export function useLiveSignals(filters: SignalFilters | null, onFailure: (error: unknown) => void): Live {
  const [state, setState] = useState<LiveState>("off");
  const [arrivals, setArrivals] = useState<SignalEvent[]>([]);
  const [note, setNote] = useState<string | null>(null);
  const key = filters ? JSON.stringify(filters) : null;

  useEffect(() => {
    if (!filters || !key) {
      setState("off");
      setNote(null);
      return;
    }
    let stopped = false;
    let source: EventSource | undefined;
    let reopen: ReturnType<typeof setTimeout> | undefined;
    let pending: SignalEvent[] = [];
    let draw: ReturnType<typeof setTimeout> | undefined;
    setState("connecting");
    setNote(null);
    setArrivals([]);

    const arrived = (message: MessageEvent<string>, kept: KeptSubscription) => {
      const event = parseEvent(message.data);
      if (!event) return;
      pending.push(event);
      updateKept(kept.subscription_id, { last_event_id: event.id });
      draw ??= setTimeout(() => {
        const batch = pending;
        pending = [];
        draw = undefined;
        setArrivals((shown) => newestFirst(batch, shown));
      }, DRAW_EVERY_MS);
    };

    /** The stream was refused (not 200): ask the subscription itself why. */
    const refused = async (kept: KeptSubscription) => {
      try {
        const now = await api("GET /api/subscriptions/{subscription_id}", { params: { subscription_id: kept.subscription_id }, bearer: kept.secret });
        if (stopped) return;
        if (now.status === "active" && Date.parse(now.expires_at) > Date.now()) {
          setState("reconnecting");
          reopen = setTimeout(() => open(kept), REOPEN_MS);
          return;
        }
        end(kept, `The live subscription is ${now.status}${now.status_reason ? ` (${now.status_reason})` : ""} or its period is over.`);
      } catch (error) {
        if (stopped) return;
        if (error instanceof ApiError && (error.status === 404 || error.status === 401)) end(kept, "The live subscription was deleted, or its secret no longer opens it.");
        else {
          setState("reconnecting");
          reopen = setTimeout(() => open(kept), REOPEN_MS);
        }
      }
    };

    const end = (kept: KeptSubscription, why: string) => {
      // Not made again by itself: a new subscription may cost money, so that is the person's choice.
      forget(kept.subscription_id);
      setState("ended");
      setNote(`${why} Turn Live off and on to make a new one.`);
    };

    const open = (kept: KeptSubscription) => {
      if (stopped) return;
      const last = keptForLive(key)?.last_event_id ?? kept.last_event_id;
      const stream = new EventSource(`/api/events${query({ subscription_id: kept.subscription_id, secret: kept.secret, last_event_id: last })}`);
      source = stream;
      stream.onopen = () => setState("live");
      stream.onerror = () => {
        if (stopped) return;
        // CONNECTING: EventSource tries again by itself (Last-Event-ID); CLOSED: the server refused the stream.
        if (stream.readyState === EventSource.CONNECTING) setState("reconnecting");
        else void refused(kept);
      };
      for (const type of SIGNAL_EVENT_TYPES) stream.addEventListener(type, (e) => arrived(e as MessageEvent<string>, kept));
    };

    void liveSubscription(filters, key).then(open, (error: unknown) => {
      if (!stopped) onFailure(error);
    });
    return () => {
      stopped = true;
      source?.close();
      clearTimeout(reopen);
      clearTimeout(draw);
    };
  }, [key]);

  return { state, arrivals, note };
}

/** The kept Live subscription for these filters, or a new one (kept with its secret). */
async function liveSubscription(filters: SignalFilters, key: string): Promise<KeptSubscription> {
  const kept = keptForLive(key);
  if (kept) return kept;
  const made = await api("POST /api/subscriptions", { body: { filters: { signals: filters, changes: false }, stream: true } });
  const fresh: KeptSubscription = { subscription_id: made.subscription_id, secret: made.secret, made_at: made.created_at, expires_at: made.expires_at, live_for: key };
  keep(fresh);
  return fresh;
}

/** The batch's events on top, newest first; an older event of the same signal gives way. */
function newestFirst(batch: SignalEvent[], shown: SignalEvent[]): SignalEvent[] {
  const merged = [...batch].reverse().concat(shown);
  const seen = new Set<string>();
  return merged.filter((e) => !seen.has(e.data.signal_id) && seen.add(e.data.signal_id)).slice(0, MAX_SHOWN);
}

/** An event's JSON, or null when it is not a signal event (the stream is outside input: looked at before use). */
function parseEvent(text: string): SignalEvent | null {
  try {
    const event = JSON.parse(text) as SignalEvent;
    const ok =
      typeof event.id === "string" &&
      (SIGNAL_EVENT_TYPES as readonly string[]).includes(event.type) &&
      typeof event.data?.signal_id === "string" &&
      typeof event.data.score === "number" &&
      Array.isArray(event.data.entities);
    return ok ? event : null;
  } catch {
    return null;
  }
}
