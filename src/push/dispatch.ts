/**
 * @module push/dispatch
 * Fan-out: each committed event becomes one delivery per webhook subscription whose filters take
 * it. Where the fan-out stands is one row (push_dispatch), moved in the same transaction as the
 * last deliveries it made, under a lock shared by every replica. A delivery is keyed by its
 * subscription and event, so one made twice (another replica, or a crash before the row moved)
 * is made once: an event is fanned out exactly once however often it is read.
 *
 * A large fan-out is written a part per transaction, and `started` is called after each, so
 * sending begins after the first part instead of after 100,000 rows (a quarter of a second).
 */
import { type StateQueries, type StateStore, insertRows } from "../store/state.ts";
import { type Cursor, START, furthest } from "./events.ts";
import { eventKey, headCursor, readEvents } from "./feed.ts";
import { matcher } from "./filters.ts";
import { type FanOutTarget, webhookSubscriptions } from "./subscriptions.ts";

/** Events read per transaction: a scan's tens of thousands are fanned out in steps that each commit. */
const PAGE = 2000;
/** Deliveries written per transaction at most. */
const PART = 5000;

const ROW = "webhooks";
const LOCK = { lock: "push-dispatch" };
const COLUMNS = ["subscription_id", "event", "created_at", "next_at", "attempts", "status"];

type Delivery = (string | number)[];

/**
 * Fans out what is new; returns how many deliveries it made. `started`: some were written (the
 * sender can begin). A first run starts where the oldest webhook subscription started (nothing
 * before any subscription existed is anyone's).
 */
export async function dispatch(state: StateStore, now = new Date(), started: () => void = () => {}): Promise<number> {
  let made = 0;
  for (;;) {
    const step = await state.transaction(async (tx) => {
      const subscriptions = await webhookSubscriptions(tx, now);
      const row = await tx.get<{ signal_event: number; change: number }>("SELECT signal_event, change FROM push_dispatch WHERE name = ?", [ROW]);
      const from: Cursor = row ? { signalEvent: Number(row.signal_event), change: Number(row.change) } : earliestStart(subscriptions);
      // No one to deliver to: what exists now is no one's (a subscription starts at the head when made, under this lock).
      const { events, more } = subscriptions.length === 0 ? { events: [], more: false } : await readEvents(tx, from, PAGE);
      if (events.length === 0) {
        await moveTo(tx, subscriptions.length === 0 ? await headCursor(tx) : from);
        return { deliveries: [], more: false, to: undefined };
      }
      const takers = subscriptions.map((s) => ({ s, takes: matcher(s.filters) }));
      const deliveries: Delivery[] = [];
      const at = now.toISOString();
      for (const { event, after } of events) {
        const key = eventKey(event, after);
        for (const { s, takes } of takers) {
          if (isAfter(after, s.start, event.type === "change") && takes(event)) deliveries.push([s.id, key, at, at, 0, "pending"]);
        }
      }
      const to = furthest(from, events.at(-1)!.after);
      await insert(tx, deliveries.slice(0, PART));
      if (deliveries.length <= PART) await moveTo(tx, to);
      return { deliveries, more, to };
    }, LOCK);
    made += step.deliveries.length;
    if (step.deliveries.length > 0) started();
    // The rest of a large page, a part per transaction; the row moves with the last part.
    for (let part = PART; part < step.deliveries.length; part += PART) {
      // A turn of the event loop first: the sender's claims get the store between two parts.
      await new Promise((resolve) => setImmediate(resolve));
      const last = part + PART >= step.deliveries.length;
      await state.transaction(async (tx) => {
        await insert(tx, step.deliveries.slice(part, part + PART));
        if (last) await moveTo(tx, step.to!);
      }, LOCK);
      started();
    }
    if (!step.more) return made;
  }
}

async function insert(tx: StateQueries, deliveries: Delivery[]): Promise<void> {
  await tx.batch(insertRows("deliveries", COLUMNS, deliveries, "ON CONFLICT DO NOTHING"));
}

/** Moves where the fan-out stands to `to`, never back (another replica may have gone further meanwhile). */
async function moveTo(tx: StateQueries, to: Cursor): Promise<void> {
  const row = await tx.get<{ signal_event: number; change: number }>("SELECT signal_event, change FROM push_dispatch WHERE name = ?", [ROW]);
  const at = row ? furthest({ signalEvent: Number(row.signal_event), change: Number(row.change) }, to) : to;
  await tx.run(
    "INSERT INTO push_dispatch (name, signal_event, change) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET signal_event = excluded.signal_event, change = excluded.change",
    [ROW, at.signalEvent, at.change],
  );
}

/** Whether an event (at its position) comes after a subscription's start, in its own table. */
function isAfter(position: Cursor, start: Cursor, change: boolean): boolean {
  return change ? position.change > start.change : position.signalEvent > start.signalEvent;
}

function earliestStart(subscriptions: FanOutTarget[]): Cursor {
  if (subscriptions.length === 0) return START;
  return subscriptions.reduce<Cursor>(
    (low, s) => ({ signalEvent: Math.min(low.signalEvent, s.start.signalEvent), change: Math.min(low.change, s.start.change) }),
    subscriptions[0]!.start,
  );
}
