/**
 * The webhook sender's thread (push/sender.ts): real requests from a real worker thread to
 * receivers on loopback, each signature checked with the standardwebhooks package; outcomes as the
 * in-process sender gives them; the SSRF guard applied on the thread; and abandoning requests in
 * flight (shutdown) answers them at once instead of at their time limit.
 */
import { afterEach, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { Sender } from "../../src/push/sender.ts";
import { until } from "../support/until.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function receiver(answer: (count: number) => Response | Promise<Response>) {
  const received: { headers: Record<string, string>; body: string }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      received.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
      return answer(received.length);
    },
  });
  cleanups.push(() => void server.stop(true));
  return { url: `http://127.0.0.1:${server.port}/hook`, received };
}

/** A receiver that reads each request and never answers, until the sender gives it up. */
function hangingReceiver() {
  let arrived = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      arrived++;
      return new Promise<Response>((resolve) => request.signal.addEventListener("abort", () => resolve(new Response(null)), { once: true }));
    },
  });
  cleanups.push(() => void server.stop(true));
  return { url: `http://127.0.0.1:${server.port}/hook`, arrived: () => arrived };
}

function sender(options: Partial<ConstructorParameters<typeof Sender>[0]> = {}): Sender {
  const made = new Sender({ allowPrivate: true, timeoutMs: 15_000, concurrency: 8, ...options });
  cleanups.push(() => made.close());
  return made;
}

const secret = () => `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64")}`;

test("jobs sent from the thread arrive signed, one body shared by many jobs, each answered with its own outcome", async () => {
  const { url, received } = receiver(() => new Response("ok"));
  const secrets = Array.from({ length: 50 }, secret);
  const text = JSON.stringify({ type: "signal.new", timestamp: "2026-11-26T10:00:00Z", data: { signal_id: "s1", name: "Tether Gold · XAU₮" } });
  const body = Buffer.from(text);
  const s = sender();
  const outcomes = await Promise.all(secrets.map((key, i) => s.send({ url, msgId: `msg_${i}_s1`, timestamp: Date.now(), body, secrets: [key] })));
  expect(outcomes).toEqual(secrets.map(() => ({ kind: "delivered", status: 200 })));
  expect(received).toHaveLength(50);
  for (const { headers, body: arrived } of received) {
    expect(arrived).toBe(text);
    const i = Number(headers["webhook-id"]!.split("_")[1]);
    expect(new Webhook(secrets[i]!).verify(arrived, headers)).toEqual(JSON.parse(text));
  }
  expect(s.inFlight).toBe(0);
});

test("a 503 with Retry-After, a 410 and a refused address come back as the in-process sender gives them", async () => {
  const busy = receiver(() => new Response("busy", { status: 503, headers: { "retry-after": "7" } }));
  const gone = receiver(() => new Response(null, { status: 410 }));
  const body = Buffer.from("{}");
  const job = (url: string) => ({ url, msgId: "msg_1_s1", timestamp: Date.now(), body, secrets: [secret()] });
  expect(await sender().send(job(busy.url))).toEqual({ kind: "retry", status: 503, retryAfterMs: 7000, error: "HTTP 503: busy" });
  expect(await sender().send(job(gone.url))).toEqual({ kind: "gone", status: 410 });
  // The guard runs on the thread: loopback is refused unless private receivers are allowed, and nothing is sent.
  const refused = await sender({ allowPrivate: false }).send(job(busy.url));
  expect(refused).toMatchObject({ kind: "refused" });
  expect(busy.received).toHaveLength(1);
});

test("abandoning answers the requests in hand as aborted, long before their time limit", async () => {
  const hanging = hangingReceiver();
  const s = sender({ timeoutMs: 600_000 });
  const body = Buffer.from("{}");
  const sent = Array.from({ length: 5 }, (_, i) => s.send({ url: hanging.url, msgId: `msg_${i}_s1`, timestamp: Date.now(), body, secrets: [secret()] }));
  await until("the five requests at the receiver", 10_000, () => hanging.arrived() >= 5);
  s.abandon();
  expect(await Promise.all(sent)).toEqual(Array.from({ length: 5 }, () => ({ kind: "retry", error: "aborted" })));
  expect(s.inFlight).toBe(0);
});

test("a thread that dies answers what it had in hand as retries, says so, and a new thread takes the next job", async () => {
  const hanging = hangingReceiver();
  const answering = receiver(() => new Response("ok"));
  const stopped: Error[] = [];
  const s = new Sender({ allowPrivate: true, timeoutMs: 600_000, concurrency: 8 }, (error) => stopped.push(error));
  cleanups.push(() => s.close());
  const body = Buffer.from("{}");
  const held = s.send({ url: hanging.url, msgId: "msg_1_s1", timestamp: Date.now(), body, secrets: [secret()] });
  await until("the request at the receiver", 10_000, () => hanging.arrived() >= 1);
  // A message the thread cannot read throws there, uncaught: the thread dies.
  (s as unknown as { worker: Worker }).worker.postMessage({ kind: "send", batch: "not json" });
  expect(await held).toMatchObject({ kind: "retry", error: expect.stringContaining("the webhook sender thread stopped") });
  expect(stopped).toHaveLength(1);
  expect(await s.send({ url: answering.url, msgId: "msg_2_s1", timestamp: Date.now(), body, secrets: [secret()] })).toEqual({ kind: "delivered", status: 200 });
});
