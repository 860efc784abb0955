/**
 * @module mcp/listen
 * `subscriptions/listen` (protocol revision 2026-07-28) fed by the outbox. The SDK's serving entry
 * owns the wire (the acknowledgement first, filtering by the URIs a stream named, the subscription
 * id on each notification, teardown when the stream ends); it asks a ServerEventBus for events.
 * This bus is the event feed (Services.events): each open listen stream is one listener of the feed, taken
 * when the stream opens and given back when it closes, so the feed polls the store only while some
 * stream listens. Each event becomes a `notifications/resources/updated` for the resource it
 * concerns (ckg://signals/<signal_type>, ckg://changes), with what happened in `_meta["ckg/event"]`:
 * the event's id, type and time and which signal or entity, so an agent hears of a new signal at
 * once. Listening is free, so the notification points and the paid tools tell (the signal's score
 * and evidence: `signals`, `entity_insights`; the change's fields: `changes`); the whole events,
 * pushed, are what a subscription (`subscribe`) pays for.
 */
import type { ServerEvent, ServerEventBus } from "@modelcontextprotocol/server";
import type { Logger } from "../log.ts";
import type { Services } from "../operations/context.ts";
import type { PushEvent } from "../operations/event-stream.ts";
import { CHANGES_URI, signalTypeUri } from "./resources.ts";

/** Where a notification carries the event (an implementation key of `_meta`, as the spec allows). */
export const EVENT_META = "ckg/event";

/** The resource an event updates. */
function resourceOf(event: PushEvent): string {
  return event.type === "change" ? CHANGES_URI : signalTypeUri(event.data.signal_type);
}

/** What a notification says of an event: which, what kind, when, about what. */
function pointerOf(event: PushEvent): Record<string, string | number> {
  const { id, type, timestamp } = event;
  return event.type === "change"
    ? { id, type, timestamp, change_id: event.data.change_id, entity_uri: event.data.entity_uri, operation: event.data.operation }
    : { id, type, timestamp, signal_id: event.data.signal_id, signal_type: event.data.signal_type };
}

/** The change event the SDK turns into `notifications/resources/updated` for the event's resource. */
function serverEventOf(event: PushEvent): ServerEvent {
  return { kind: "resource_updated", uri: resourceOf(event), params: { _meta: { [EVENT_META]: pointerOf(event) } } };
}

type Listener = (event: ServerEvent) => void;

export class FeedBus implements ServerEventBus {
  /** Every open stream's listener, for events published here directly (the SDK's `notify` sugar). */
  private readonly local = new Set<Listener>();

  constructor(
    private readonly feed: Services["events"],
    private readonly log: Logger,
  ) {}

  publish(event: ServerEvent): void {
    for (const listener of this.local) listener(event);
  }

  /**
   * One stream's listener. The feed's `listen` is asynchronous (the first listener reads where the
   * outbox stands): a stream closed before that settles gives its listener back at once.
   */
  subscribe(listener: Listener): () => void {
    let live = true;
    let stop: (() => void) | undefined;
    this.local.add(listener);
    this.feed
      .listen((events) => {
        for (const { event } of events) if (live) listener(serverEventOf(event));
      })
      .then(
        (unlisten) => {
          if (live) stop = unlisten;
          else unlisten();
        },
        (error: unknown) => this.log.warn({ err: error }, "mcp: a listen stream could not follow the event feed"),
      );
    return () => {
      if (!live) return;
      live = false;
      this.local.delete(listener);
      stop?.();
    };
  }
}
