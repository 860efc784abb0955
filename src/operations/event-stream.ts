/**
 * @module operations/event-stream
 * The event feed as a transport streams it: GET /api/events (api/events-route.ts) and MCP's
 * `subscriptions/listen` and ckg://changes (mcp/listen.ts, mcp/resources.ts) read the outbox through
 * here, never push/ itself. A subscription's stream opens with its secret and from a cursor, replays
 * the outbox after it, and ends when the subscription does; an event's id on the wire is the cursor
 * past it (push/events.ts), so a client resumes from the last id it got.
 */
import { CkgError } from "../errors.ts";
import { type Cursor, type PushEvent, decodeCursor, encodeCursor, furthest } from "../push/events.ts";
import { type Positioned, headCursor, readEvents } from "../push/feed.ts";
import { matcher } from "../push/filters.ts";
import { type Subscription, authorizedSubscription, findSubscription } from "../push/subscriptions.ts";
import type { Services } from "./context.ts";

export type { Cursor, Positioned, PushEvent };
/** An event's id on the wire: the cursor past it. */
export { encodeCursor };

/** A subscription's stream, its secret checked: which events it takes, and the cursor it starts after. */
export interface OpenedStream {
  id: string;
  takes: (event: PushEvent) => boolean;
  from: Cursor;
}

/**
 * Opens a subscription's stream: not_found for an unknown or ended subscription, unauthorized for
 * a missing or wrong secret, invalid_request for one made without a stream or a resume id this
 * server never gave. It starts after `resumeFrom` (the last event id a client got), never before
 * the subscription's own start.
 */
export async function openEventStream(services: Services, id: string, secret: string | undefined, resumeFrom: string | undefined): Promise<OpenedStream> {
  const subscription = await authorizedSubscription(services.state, id, secret);
  if (!subscription.stream) throw new CkgError("invalid_request", "This subscription has no event stream (it was made with stream: false).", { details: { field: "subscription_id" } });
  if (!streaming(subscription)) {
    throw new CkgError("not_found", `Subscription ${subscription.id} has ended (${subscription.statusReason ?? "its period is over"}).`);
  }
  const from = resumeFrom ? furthest(subscription.start, decodeCursor(resumeFrom, "Last-Event-ID")) : subscription.start;
  return { id: subscription.id, takes: matcher(subscription.filters), from };
}

/** Up to `limit` events after `cursor`, with the cursor past each; `more` says read again from the last one. */
export function readEventsAfter(services: Services, cursor: Cursor, limit: number): Promise<{ events: Positioned[]; more: boolean }> {
  return readEvents(services.state, cursor, limit);
}

/**
 * The cursor past `positioned` when the event lies past `cursor` in its own outbox table, else
 * undefined: a replay and the live tail overlap, and an event already sent is not sent again.
 */
export function advance(cursor: Cursor, { event, after }: Positioned): Cursor | undefined {
  const fresh = event.type === "change" ? after.change > cursor.change : after.signalEvent > cursor.signalEvent;
  return fresh ? furthest(cursor, after) : undefined;
}

/** Whether the subscription was deleted, disabled, or its period is over; a failed read is no answer, so not an end. */
export async function streamEnded(services: Services, id: string): Promise<boolean> {
  const now = await findSubscription(services.state, id).catch(() => undefined);
  return now === null || (now !== undefined && !streaming(now));
}

/** Where the feed stands now, as an event id: what a listener hears next comes after it. */
export async function feedPosition(services: Services): Promise<string> {
  return encodeCursor(await headCursor(services.state));
}

function streaming(subscription: Subscription): boolean {
  return subscription.status === "active" && Date.parse(subscription.expiresAt) > Date.now();
}
