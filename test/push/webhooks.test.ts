/**
 * Webhook delivery on real services after real scans: every event reaches each subscription whose
 * filters take it, signed so the Standard Webhooks library verifies it (rotation: by both secrets);
 * a receiver that is down across the backoff gets everything once it is back, repeats only with the
 * same webhook-id; Retry-After is honoured; a 410 disables the subscription.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Running, json, startServices } from "../support/fixture.ts";
import { until } from "../support/until.ts";
import { distinct, startReceiver } from "../support/webhook-receiver.ts";
import { scan, snapshotOf } from "../signals/support.ts";

let run: Running;
let events: { signal_id: string; signal_type: string; score: number; type: string }[];
const receiver = startReceiver();
const gone = startReceiver({ answer: () => new Response("gone", { status: 410 }) });
/** A port nothing listens on until the second test starts a receiver there: a receiver that is down. */
let downPort: number;
const subs: Record<"byType" | "strong" | "down" | "gone", { subscription_id: string; secret: string }> = {} as never;
let rotatedSecret: string;

// Every subscription is made before the one scan, so each hears the same events.
beforeAll(async () => {
  run = await startServices({ push_poll_ms: 50, webhook_allow_private: true, webhook_first_retry_ms: 100, webhook_timeout_ms: 2000 });
  const asOf = snapshotOf(run.dir).manifest.as_of.slice(0, 10);
  const probe = startReceiver();
  downPort = probe.port;
  await probe.stop();
  subs.byType = await subscribe({ filters: { signals: { types: ["yield-anomaly", "stablecoin-depeg"] } }, webhook_url: `${receiver.url}/by-type` });
  subs.strong = await subscribe({ filters: { signals: { min_score: 60 } }, webhook_url: `${receiver.url}/strong`, stream: false });
  subs.down = await subscribe({ filters: { signals: { types: ["utilization-stress", "revenue-momentum"] } }, webhook_url: `http://127.0.0.1:${downPort}/hook` });
  subs.gone = await subscribe({ filters: { signals: {} }, webhook_url: `${gone.url}/gone` });
  rotatedSecret = (await json(await run.request("POST", `/api/subscriptions/${subs.strong.subscription_id}/secret`, {}, { authorization: `Bearer ${subs.strong.secret}` }))).body.secret;
  receiver.expect("/by-type", [subs.byType.secret]);
  receiver.expect("/strong", [subs.strong.secret, rotatedSecret]);
  gone.expect("/gone", [subs.gone.secret]);
  await scan(run.dir, run.services.state, asOf);
  const { scan_id } = (await run.services.state.get<{ scan_id: string }>("SELECT scan_id FROM scans ORDER BY started_at DESC LIMIT 1"))!;
  events = await run.services.state.all("SELECT signal_id, signal_type, score, type FROM signal_events WHERE scan_id = ?", [scan_id]);
});
afterAll(async () => {
  await run.close();
  await receiver.stop();
  await gone.stop();
});

const subscribe = async (body: unknown) => {
  const made = await json(await run.request("POST", "/api/subscriptions", body));
  expect(made.status).toBe(200);
  return made.body as { subscription_id: string; secret: string };
};

const deliveries = (id: string) =>
  run.services.state.all<{ attempts: number; status: string; last_error: string | null }>("SELECT attempts, status, last_error FROM deliveries WHERE subscription_id = ?", [id]);

test("each event reaches each subscription that takes it, signed, once per id; a rotated secret signs beside the new one", async () => {
  const wantByType = events.filter((e) => ["yield-anomaly", "stablecoin-depeg"].includes(e.signal_type)).map((e) => e.signal_id);
  const wantStrong = events.filter((e) => e.score >= 60).map((e) => e.signal_id);
  expect(wantByType.length).toBeGreaterThan(0);
  expect(wantStrong.length).toBeGreaterThan(0);

  await until("every event at both receivers", 60_000, () => distinct(receiver.received, "/by-type").size === wantByType.length && distinct(receiver.received, "/strong").size === wantStrong.length, {
    seen: () => ({ byType: distinct(receiver.received, "/by-type").size, wantByType: wantByType.length, strong: distinct(receiver.received, "/strong").size, wantStrong: wantStrong.length }),
  });
  expect([...distinct(receiver.received, "/by-type").values()].map((r) => r.body.data.signal_id).sort()).toEqual(wantByType.sort());
  expect([...distinct(receiver.received, "/strong").values()].map((r) => r.body.data.signal_id).sort()).toEqual(wantStrong.sort());
  expect(receiver.unverified).toBe(0);
  for (const r of receiver.received.filter((r) => r.path === "/strong")) expect(r.verifiedBy).toHaveLength(2);
  // A batch's outcomes are written after its requests come back: wait for both subscriptions' records.
  const delivered = async (s: { subscription_id: string; secret: string }) =>
    (await json(await run.request("GET", `/api/subscriptions/${s.subscription_id}`, undefined, { authorization: `Bearer ${s.secret}` }))).body.deliveries.counts.delivered;
  await until("the deliveries recorded delivered", 30_000, async () => (await delivered(subs.byType)) === wantByType.length && (await delivered(subs.strong)) === wantStrong.length);
  const metrics = await (await run.request("GET", "/metrics")).text();
  expect(Number(/ckg_webhook_deliveries\{state="delivered"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(wantByType.length + wantStrong.length);
});

test("a receiver down across the backoff gets every event once it is back; repeats carry the same id; Retry-After is honoured", async () => {
  const want = events.filter((e) => ["utilization-stress", "revenue-momentum"].includes(e.signal_type));
  expect(want.length).toBeGreaterThan(0);
  await until("every delivery tried three times while the receiver is down", 60_000, async () => {
    const rows = await deliveries(subs.down.subscription_id);
    return rows.length === want.length && rows.every((r) => r.attempts >= 3 && r.status === "pending");
  });
  expect((await deliveries(subs.down.subscription_id))[0]!.last_error).toBeTruthy();

  // Back, but busy at first: each message's first try is answered 429 with Retry-After: 1.
  const back = startReceiver({
    port: downPort,
    answer: (_, attempt) => (attempt === 1 ? new Response("busy", { status: 429, headers: { "retry-after": "1" } }) : new Response("ok")),
  });
  back.expect("/hook", [subs.down.secret]);
  try {
    await until("every event delivered after the outage", 60_000, async () => (await deliveries(subs.down.subscription_id)).every((r) => r.status === "delivered"), {
      seen: () => back.received.length,
    });
    const got = distinct(back.received, "/hook");
    expect([...got.values()].map((r) => r.body.data.signal_id).sort()).toEqual(want.map((e) => e.signal_id).sort());
    // Each id twice (the 429, then the delivery a second or more later), never a second id for one event.
    expect(back.received.length).toBe(2 * got.size);
    expect(back.unverified).toBe(0);
  } finally {
    await back.stop();
  }
});

test("a 410 disables the subscription and cancels what it still had pending", async () => {
  await until("the subscription disabled", 60_000, async () => {
    const row = await run.services.state.get<{ status: string }>("SELECT status FROM subscriptions WHERE subscription_id = ?", [subs.gone.subscription_id]);
    return row?.status === "disabled";
  });
  await run.services.push.settled();
  const read = await json(await run.request("GET", `/api/subscriptions/${subs.gone.subscription_id}`, undefined, { authorization: `Bearer ${subs.gone.secret}` }));
  expect(read.status).toBe(200);
  expect(read.body.status).toBe("disabled");
  expect(read.body.status_reason).toContain("410");
  expect(read.body.deliveries.counts.pending ?? 0).toBe(0);
  expect(read.body.deliveries.counts.cancelled).toBeGreaterThan(0);
  expect(gone.unverified).toBe(0);
});
