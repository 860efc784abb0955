/**
 * @module push/dispatch
 * Fan-out: each committed event becomes one delivery per webhook subscription whose filters take
 * it. Where the fan-out stands is one row (push_dispatch), moved in the same transaction as the
 * deliveries it made, under a lock shared by every replica: an event is fanned out exactly once,
 * and a crash before the commit only means it is fanned out again after the restart.
 */
import { type StateQueries, type StateStore, insertRows } from "../store/state.ts";
import { type Cursor, START, furthest } from "./events.ts";
import { eventKey, headCursor, readEvents } from "./feed.ts";
import { matcher } from "./filters.ts";
import { type Subscription, webhookSubscriptions } from "./subscriptions.ts";

/** Events read per transaction: a scan's tens of thousands are fanned out in steps that each commit. */
const PAGE = 2000;

const ROW = "webhooks";

/**
 * Fans out what is new; returns how many deliveries it made. A first run starts where the oldest
 * webhook subscription started (nothing before any subscription existed is anyone's).
 */
export async function dispatch(state: StateStore, now = new Date()): Promise<number> {
  let made = 0;
  for (;;) {
    const step = await state.transaction(
      async (tx) => {
        const subscriptions = await webhookSubscriptions(tx, now);
        const row = await tx.get<{ signal_event: number; change: number }>("SELECT signal_event, change FROM push_dispatch WHERE name = ?", [ROW]);
        const from: Cursor = row ? { signalEvent: Number(row.signal_event), change: Number(row.change) } : earliestStart(subscriptions);
        // No one to deliver to: what exists now is no one's (a subscription starts at the head when made, under this lock).
        const { events, more } = subscriptions.length === 0 ? { events: [], more: false } : await readEvents(tx, from, PAGE);
        if (events.length === 0) {
          await moveTo(tx, subscriptions.length === 0 ? await headCursor(tx) : from);
          return { made: 0, more: false };
        }
        const takers = subscriptions.map((s) => ({ s, takes: matcher(s.filters) }));
        const deliveries: (string | number)[][] = [];
        const at = now.toISOString();
        for (const { event, after } of events) {
          const key = eventKey(event, after);
          for (const { s, takes } of takers) {
            if (isAfter(after, s.start, event.type === "change") && takes(event)) deliveries.push([s.id, key, at, at, 0, "pending"]);
          }
        }
        await tx.batch(insertRows("deliveries", ["subscription_id", "event", "created_at", "next_at", "attempts", "status"], deliveries, "ON CONFLICT DO NOTHING"));
        await moveTo(tx, furthest(from, events.at(-1)!.after));
        return { made: deliveries.length, more };
      },
      { lock: "push-dispatch" },
    );
    made += step.made;
    if (!step.more) return made;
  }
}

async function moveTo(tx: StateQueries, to: Cursor): Promise<void> {
  await tx.run(
    "INSERT INTO push_dispatch (name, signal_event, change) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET signal_event = excluded.signal_event, change = excluded.change",
    [ROW, to.signalEvent, to.change],
  );
}

/** Whether an event (at its position) comes after a subscription's start, in its own table. */
function isAfter(position: Cursor, start: Cursor, change: boolean): boolean {
  return change ? position.change > start.change : position.signalEvent > start.signalEvent;
}

function earliestStart(subscriptions: Subscription[]): Cursor {
  if (subscriptions.length === 0) return START;
  return subscriptions.reduce<Cursor>(
    (low, s) => ({ signalEvent: Math.min(low.signalEvent, s.start.signalEvent), change: Math.min(low.change, s.start.change) }),
    subscriptions[0]!.start,
  );
}
