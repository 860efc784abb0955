/**
 * No receiver holds up another: beside a receiver that never answers, one that answers
 * gets every event, its deliveries are recorded delivered, and a retry asked for with
 * `Retry-After: 1` is sent when due — all before the hung requests reach their time limit and are
 * abandoned. Asserted on the order in which the receivers see things, never on a clock: the hung
 * receiver logs the moment ckg drops each of its requests (the socket closes), and everything the
 * others get must come first.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type Running, json, startServices } from "../support/fixture.ts";
import { until } from "../support/until.ts";
import { distinct, startReceiver } from "../support/webhook-receiver.ts";
import { scan, snapshotOf } from "../signals/support.ts";

/** Everything that happened at the receivers, in order. */
const log: string[] = [];
let run: Running;
const answering = startReceiver({
  answer: (got) => {
    log.push(`answered ${got.path} ${got.msgId}`);
    return new Response("ok");
  },
});
// Busy once per message (429, Retry-After: 1), then taken: its retries must come when due.
const busy = startReceiver({
  answer: (got, attempt) => {
    log.push(`${attempt === 1 ? "busy" : "answered"} ${got.path} ${got.msgId}`);
    return attempt === 1 ? new Response("busy", { status: 429, headers: { "retry-after": "1" } }) : new Response("ok");
  },
});
/** Reads each request and never answers; logs when the sender gives the request up (its socket closes). */
const hung = http.createServer((request, response) => {
  request.resume();
  response.on("close", () => log.push("abandoned"));
});

beforeAll(async () => {
  await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
  // The hung requests' time limit (10 s) is far beyond what the others need: the order below is no race.
  run = await startServices({ push_poll_ms: 50, webhook_allow_private: true, webhook_first_retry_ms: 100, webhook_timeout_ms: 10_000 });
});
afterAll(async () => {
  await run.close();
  await answering.stop();
  await busy.stop();
  hung.closeAllConnections();
  hung.close();
});

const subscribe = async (url: string) => {
  const made = await json(await run.request("POST", "/api/subscriptions", { filters: { signals: {} }, webhook_url: url }));
  expect(made.status).toBe(200);
  return made.body as { subscription_id: string; secret: string };
};

test("a receiver that hangs holds up no other: every event, its record and a due retry come before the hung requests are abandoned", async () => {
  const hangs = await subscribe(`http://127.0.0.1:${(hung.address() as AddressInfo).port}/hook`);
  const answers = await subscribe(`${answering.url}/hook`);
  const retries = await subscribe(`${busy.url}/hook`);
  answering.expect("/hook", [answers.secret]);
  busy.expect("/hook", [retries.secret]);
  await scan(run.dir, run.services.state, snapshotOf(run.dir).manifest.as_of.slice(0, 10));
  const want = (await run.services.state.all<{ n: number }>("SELECT count(*) AS n FROM signal_events"))[0]!.n;
  expect(want).toBeGreaterThan(1);

  const delivered = async (s: { subscription_id: string; secret: string }) =>
    (await json(await run.request("GET", `/api/subscriptions/${s.subscription_id}`, undefined, { authorization: `Bearer ${s.secret}` }))).body.deliveries.counts.delivered ?? 0;
  await until("every event delivered and recorded at both answering receivers", 60_000, async () => (await delivered(answers)) === want && (await delivered(retries)) === want, {
    seen: () => ({ answering: distinct(answering.received, "/hook").size, busy: distinct(busy.received, "/hook").size, want, log: log.slice(-3) }),
  });
  log.push("recorded");
  await until("a hung request abandoned at its time limit", 60_000, () => log.includes("abandoned"));

  const firstAbandoned = log.indexOf("abandoned");
  expect(log.indexOf("recorded")).toBeLessThan(firstAbandoned);
  const before = log.slice(0, firstAbandoned);
  expect(before.filter((line) => line.startsWith(`answered /hook msg_${answers.subscription_id.slice(4)}`)).length).toBeGreaterThanOrEqual(want);
  // Each busy message answered 429 once, then taken on its retry: the retries came when due, not after the hung batch.
  expect(before.filter((line) => line.startsWith(`busy /hook msg_${retries.subscription_id.slice(4)}`))).toHaveLength(want);
  expect(before.filter((line) => line.startsWith(`answered /hook msg_${retries.subscription_id.slice(4)}`))).toHaveLength(want);
  expect(answering.unverified + busy.unverified).toBe(0);
  // The hung receiver did get its requests (it was not simply skipped).
  const hungRows = await run.services.state.all<{ n: number }>("SELECT count(*) AS n FROM deliveries WHERE subscription_id = ?", [hangs.subscription_id]);
  expect(hungRows[0]!.n).toBe(want);
});
