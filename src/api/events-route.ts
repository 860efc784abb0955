/**
 * @module api/events-route
 * GET /api/events: a subscription's events as Server-Sent Events. Each event's `id` is a cursor
 * (operations/event-stream.ts); a client that reconnects with `Last-Event-ID` (browsers' EventSource does it by
 * itself) gets everything after it, replayed from the outbox, then the live events, with no gap and
 * no repeat. The live tail is heard before the replay starts and its events at or before what the
 * replay reached are dropped, so an event committed during the replay is sent once. A comment line
 * every `events_heartbeat_ms` keeps proxies from closing an idle stream, and ends the stream when the
 * subscription is deleted or its period is over. Access is by the subscription's secret: an
 * `Authorization: Bearer` header, or `secret` in the query (EventSource cannot send headers).
 */
import { z } from "zod";
import { CkgError } from "../errors.ts";
import type { Services } from "../operations/context.ts";
import { type Cursor, type Positioned, type PushEvent, advance, encodeCursor, openEventStream, readEventsAfter, streamEnded } from "../operations/event-stream.ts";
import type { OpenApiEntry, Route } from "./routes.ts";

/** Events queued for a client that does not read: past this the stream ends, and the client resumes from its last id. */
const MAX_QUEUED = 10_000;
const REPLAY_PAGE = 1000;

const queryParams = z.strictObject({
  subscription_id: z.string().min(1).max(100),
  secret: z.string().min(1).max(200).optional(),
  last_event_id: z.string().max(40).optional(),
});

/** The streams open now, so a stopping server can end each (a stream never ends by itself, and the server's stop waits for it). */
export class OpenStreams {
  private readonly closers = new Set<(reason: string) => void>();

  add(close: (reason: string) => void): () => void {
    this.closers.add(close);
    return () => this.closers.delete(close);
  }

  /** Ends every open stream with an `end` event saying why; a client resumes elsewhere or later by Last-Event-ID. */
  closeAll(reason: string): void {
    for (const close of [...this.closers]) close(reason);
  }
}

export function eventsRoute(services: Services, open: OpenStreams): Route {
  return {
    method: "GET",
    path: "/api/events",
    doc: { entry: eventsEntry },
    async handle({ request }) {
      const url = new URL(request.url);
      const parsed = queryParams.safeParse(Object.fromEntries(url.searchParams));
      if (!parsed.success) {
        throw new CkgError("invalid_request", `Invalid parameters: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(query)"}: ${i.message}`).join("; ")}.`);
      }
      const { subscription_id, secret, last_event_id } = parsed.data;
      const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
      const stream = await openEventStream(services, subscription_id, bearer ?? secret, request.headers.get("last-event-id") ?? last_event_id);
      return new Response(eventStream(services, open, stream.id, stream.takes, stream.from, request.signal), {
        headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" },
      });
    },
  };
}

function eventStream(
  services: Services,
  open: OpenStreams,
  id: string,
  takes: (event: PushEvent) => boolean,
  from: Cursor,
  aborted: AbortSignal,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor = from;
  let live = false;
  const early: Positioned[] = [];
  let stopListening: (() => void) | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  let forget: (() => void) | undefined;

  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const write = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      const close = (reason?: string) => {
        if (closed) return;
        if (reason) write(`event: end\ndata: ${JSON.stringify({ reason })}\n\n`);
        closed = true;
        forget?.();
        stopListening?.();
        clearInterval(heartbeat);
        controller.close();
      };
      forget = open.add(close);
      /** Sends what is past the cursor in its own table, and moves the cursor past it either way. */
      const send = (positioned: Positioned) => {
        const next = advance(cursor, positioned);
        if (!next) return;
        cursor = next;
        const { event } = positioned;
        if (takes(event)) write(`id: ${encodeCursor(cursor)}\nevent: ${event.type}\ndata: ${JSON.stringify({ ...event, id: encodeCursor(cursor) })}\n\n`);
        if ((controller.desiredSize ?? 0) < -MAX_QUEUED) close("the client reads too slowly: reconnect with Last-Event-ID to resume");
      };
      aborted.addEventListener("abort", () => close());
      write("retry: 2000\n: connected\n\n");
      stopListening = await services.events.listen((events) => {
        if (live) for (const e of events) send(e);
        else early.push(...events);
      });
      try {
        for (let more = true; more && !closed; ) {
          const page = await readEventsAfter(services, cursor, REPLAY_PAGE);
          for (const e of page.events) send(e);
          more = page.more;
        }
      } catch (error) {
        services.log.warn({ err: error, subscription: id }, "event stream: replay failed");
        close("the server could not read its outbox: reconnect with Last-Event-ID to resume");
        return;
      }
      for (const e of early.splice(0)) send(e);
      live = true;
      heartbeat = setInterval(async () => {
        write(": ping\n\n");
        if (await streamEnded(services, id)) close("the subscription was deleted, disabled or its period is over");
      }, services.config.events_heartbeat_ms);
    },
    cancel() {
      closed = true;
      forget?.();
      stopListening?.();
      clearInterval(heartbeat);
    },
  });
}

const eventsEntry: OpenApiEntry = {
  operationId: "events",
  summary: "A subscription's events as Server-Sent Events (free, with its secret)",
  description:
    "Streams the events of a subscription made with stream: true (POST /api/subscriptions), filtered by its filters: signal.new, " +
    "signal.updated, signal.ended and change. Each event's id is a cursor: reconnect with the Last-Event-ID header (or last_event_id) " +
    "to get everything after it, with no gap. The secret goes in Authorization: Bearer <secret>, or in the secret parameter for " +
    "clients that cannot send headers (EventSource). A comment line is sent at intervals so proxies keep the stream open; the stream " +
    "ends with an `end` event when the subscription does.",
  parameters: [
    { name: "subscription_id", in: "query", required: true, schema: { type: "string" } },
    { name: "secret", in: "query", required: false, schema: { type: "string" }, description: "the subscription's secret, when no Authorization header can be sent" },
    { name: "last_event_id", in: "query", required: false, schema: { type: "string" }, description: "resume after this event id (the Last-Event-ID header wins)" },
  ],
  responses: {
    "200": { description: "The event stream.", content: { "text/event-stream": { schema: { type: "string" } } } },
    "401": { description: "No secret, or not this subscription's." },
    "404": { description: "No such subscription, or it has ended." },
  },
};
