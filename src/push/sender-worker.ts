/**
 * @module push/sender-worker
 * The webhook sender's thread (push/sender.ts): sends each job it is given with push/webhook-send.ts,
 * each URL checked through a TargetCache and each request on a kept-alive connection to the
 * checked address (push/connections.ts), and answers the outcomes in batches. Jobs are started a
 * few dozen per turn of the event loop, so answers are read between them: starting thousands at
 * once held every answer back until the last had started, and the requests then went in waves.
 * Listed as an entrypoint of the executable (scripts/release/compile.ts).
 */
import { Connections } from "./connections.ts";
import type { SenderOptions, SenderReply, SenderRequest, WireBatch, WireJob } from "./sender.ts";
import { resolveWebhookTarget } from "./ssrf.ts";
import { TargetCache } from "./target-cache.ts";
import { type SendOutcome, sendWebhook } from "./webhook-send.ts";

declare const self: Worker;

/** Jobs started per turn of the event loop. */
const START_PER_TURN = 64;

let options: SenderOptions | undefined;
let targets: TargetCache | undefined;
let connections: Connections | undefined;
/** Jobs given and not started yet, each with its batch's bodies. */
let queue: { job: WireJob; bodies: Buffer[] }[] = [];
let next = 0;
let starting = false;
/**
 * Each request in flight's own abort, all aborted when the sender abandons them. Thousands of
 * requests listening on one shared signal made adding and removing each listener cost in
 * proportion to how many were in flight.
 */
const inFlight = new Set<AbortController>();
let outcomes: (number | SendOutcome)[] = [];
let replying = false;

self.onmessage = (event: MessageEvent<SenderRequest>) => {
  const request = event.data;
  if (request.kind === "init") {
    options = request.options;
    targets = new TargetCache((url) => resolveWebhookTarget(url, { allowPrivate: request.options.allowPrivate }));
    connections = new Connections(request.options.concurrency);
    return;
  }
  if (request.kind === "abandon") {
    for (const controller of inFlight) controller.abort();
    for (; next < queue.length; next++) answer(queue[next]!.job[0], { kind: "retry", error: "aborted" });
    queue = [];
    next = 0;
    return;
  }
  const batch = JSON.parse(request.batch) as WireBatch;
  const bodies = batch.bodies.map((body) => Buffer.from(body, "utf8"));
  for (const job of batch.jobs) queue.push({ job, bodies });
  if (!starting) {
    starting = true;
    setImmediate(startSome);
  }
};

function startSome(): void {
  const end = Math.min(queue.length, next + START_PER_TURN);
  for (; next < end; next++) start(queue[next]!);
  if (next >= queue.length) {
    queue = [];
    next = 0;
    starting = false;
    return;
  }
  // Under a steady stream the queue may never empty: what was started is let go of as it goes.
  if (next >= 4096) {
    queue = queue.slice(next);
    next = 0;
  }
  setImmediate(startSome);
}

function start({ job: [id, url, msgId, timestamp, body, secrets], bodies }: { job: WireJob; bodies: Buffer[] }): void {
  const abandon = new AbortController();
  inFlight.add(abandon);
  sendWebhook(
    { url, msgId, timestamp: new Date(timestamp), body: bodies[body]!, secrets },
    {
      allowPrivate: options!.allowPrivate,
      timeoutMs: options!.timeoutMs,
      target: (u) => targets!.target(u),
      agent: (target) => connections!.agentFor(target),
      signal: abandon.signal,
    },
  )
    .catch((error: unknown): SendOutcome => ({ kind: "retry", error: error instanceof Error ? error.message : String(error) }))
    .then((outcome) => {
      inFlight.delete(abandon);
      answer(id, outcome);
    });
}

function answer(id: number, outcome: SendOutcome): void {
  outcomes.push(id, outcome);
  if (replying) return;
  replying = true;
  setImmediate(() => {
    replying = false;
    const reply: SenderReply = { kind: "outcomes", outcomes: JSON.stringify(outcomes) };
    outcomes = [];
    self.postMessage(reply);
  });
}
