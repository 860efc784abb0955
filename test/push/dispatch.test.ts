/**
 * Fan-out on a real SQLite state store (push/dispatch.ts): an event taken by more subscriptions
 * than one part holds is written a part per transaction, the sender able to claim between parts;
 * every delivery is made once however often the event is read; where the fan-out stands moves
 * with the last part and never back.
 */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { claimStatement } from "../../src/push/delivery-record.ts";
import { dispatch } from "../../src/push/dispatch.ts";
import { createSubscription } from "../../src/push/subscriptions.ts";
import { SignalEvents } from "../../src/signals/outbox.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { tempDir } from "../support/temp-dirs.ts";

const state = openSqliteState(join(tempDir("ckg-dispatch-"), "state.sqlite"));
afterAll(() => state.close());

const SUBSCRIPTIONS = 12_001; // two full parts of 5,000 and one of 2,001

async function commitEvent(id: string): Promise<void> {
  const events = new SignalEvents({ scanId: "test", now: new Date().toISOString() });
  events.add("signal.new", { signal_id: id, signal_type: "stablecoin-depeg", entities: "[]", score: 80, severity: "high", qualification: "qualified", data_as_of: "2026-11-26" });
  await state.transaction(async (tx) => tx.batch(events.writes()));
}

const count = async (sql: string) => (await state.get<{ n: number }>(sql))!.n;
const where = async () => state.get<{ signal_event: number }>("SELECT signal_event FROM push_dispatch WHERE name = 'webhooks'");

test("a fan-out larger than a part: claimable before the last part, each delivery made once, the row moved with the last part and never back", async () => {
  const { subscription } = await createSubscription(state, { filters: { signals: {}, changes: false }, webhookUrl: "http://127.0.0.1:9/hook", stream: false, periodDays: 30 });
  // The rest are copies of it under their own ids (as the push benchmark makes them).
  await state.run(
    `INSERT INTO subscriptions SELECT 'sub_copy' || n, secrets, filters, webhook_url, stream, status, status_reason, created_at, expires_at, start_cursor, payer
     FROM subscriptions, (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ?) SELECT n FROM c) WHERE subscription_id = ?`,
    [SUBSCRIPTIONS - 1, subscription.id],
  );
  await commitEvent("big");

  const claims: Promise<{ written: number; claimed: number; row: number | undefined }>[] = [];
  const made = await dispatch(state, new Date(), () => {
    // What the sender would do on being told: claim. It runs between two parts' transactions.
    claims.push(
      (async () => {
        const { sql, params } = claimStatement("test", 60_000, 1_000);
        const claimed = (await state.all(sql, params)).length;
        return { written: await count("SELECT count(*) AS n FROM deliveries"), claimed, row: (await where())?.signal_event };
      })(),
    );
  });
  const seen = await Promise.all(claims);

  expect(made).toBe(SUBSCRIPTIONS);
  expect(await count("SELECT count(*) AS n FROM deliveries")).toBe(SUBSCRIPTIONS);
  expect(seen.map((s) => s.written)).toEqual([5_000, 10_000, SUBSCRIPTIONS]);
  expect(seen.every((s) => s.claimed === 1_000)).toBe(true);
  // The row moved only with the last part: before it, a crash would read the event again.
  const event = (await where())!.signal_event;
  expect(seen.slice(0, 2).every((s) => s.row === undefined || s.row < event)).toBe(true);

  // Read again (another replica, or a restart before the row moved): nothing is made twice.
  await state.run("UPDATE push_dispatch SET signal_event = 0 WHERE name = 'webhooks'");
  expect(await dispatch(state)).toBe(SUBSCRIPTIONS);
  expect(await count("SELECT count(*) AS n FROM deliveries")).toBe(SUBSCRIPTIONS);
  expect((await where())!.signal_event).toBe(event);

  // Another replica went further while this one wrote its parts: the row is not moved back.
  await commitEvent("second");
  let ahead = false;
  await dispatch(state, new Date(), () => {
    if (ahead) return;
    ahead = true;
    void state.run("UPDATE push_dispatch SET signal_event = signal_event + 1000 WHERE name = 'webhooks'");
  });
  expect((await where())!.signal_event).toBeGreaterThanOrEqual(event + 1000);
});
