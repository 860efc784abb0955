/**
 * @module push/sender
 * Webhook requests on a thread of their own (push/sender-worker.ts): the thread checks each URL
 * (push/target-cache.ts), signs, sends over kept-alive connections to the checked address
 * (push/connections.ts) and answers each request's outcome (push/webhook-send.ts).
 *
 * Why a thread: in a fan-out the requests are most of the work, and on the one thread that also
 * claims and records the deliveries and answers the API they left each request waiting for the
 * rest (a 100,000-subscription fan-out ran at half the bare-POST floor with the process's main
 * thread busy throughout). On its own thread the sending goes on while the main thread writes.
 *
 * Jobs go to the thread, and outcomes come back, in batches (one message per turn of either
 * event loop, not one per request), each batch one JSON text: structured cloning a batch's jobs
 * one by one cost the main thread about 9 µs a job. An event's body crosses once per batch.
 * A thread that dies fails what it had in hand as retries (the deliveries are tried again as any
 * failed attempt is) and is started afresh at the next job.
 */
import { SENDER_WORKER_URL } from "../runtime.ts";
import type { SendOutcome } from "./webhook-send.ts";

export interface SenderOptions {
  allowPrivate: boolean;
  /** The whole attempt must fit in this. */
  timeoutMs: number;
  /** Kept-alive connections per destination (its requests in flight). */
  concurrency: number;
}

export interface SendJob {
  url: string;
  msgId: string;
  /** The webhook-timestamp, ms since the epoch. */
  timestamp: number;
  /** The JSON payload as sent and signed: one Buffer for every job of an event. */
  body: Buffer;
  secrets: readonly string[];
}

/** A job as it crosses: its id, and its body as an index into the batch's bodies. */
export type WireJob = [id: number, url: string, msgId: string, timestamp: number, body: number, secrets: readonly string[]];

/** A batch of jobs, as the JSON text of this: each job's body is an index into `bodies` (UTF-8 text). */
export interface WireBatch {
  bodies: string[];
  jobs: WireJob[];
}

export type SenderRequest =
  | { kind: "init"; options: SenderOptions }
  | { kind: "send"; batch: string }
  /** Every request in hand is given up: each answers the outcome "aborted". */
  | { kind: "abandon" };

/** Outcomes by job id, as the JSON text of `[id, outcome, id, outcome, ...]`. */
export type SenderReply = { kind: "outcomes"; outcomes: string };

export class Sender {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, (outcome: SendOutcome) => void>();
  private nextId = 0;
  private jobs: WireJob[] = [];
  private bodies: Buffer[] = [];
  private bodyIndex = new Map<Buffer, number>();
  private scheduled = false;

  /** `stopped`: the thread died (what it had in hand is answered as retries); told so it can be logged. */
  constructor(
    private readonly options: SenderOptions,
    private readonly stopped: (error: Error) => void = () => {},
  ) {}

  /** One attempt's outcome; never rejects (a thread that died answers a retry). */
  send(job: SendJob): Promise<SendOutcome> {
    const id = this.nextId++;
    let body = this.bodyIndex.get(job.body);
    if (body === undefined) {
      body = this.bodies.push(job.body) - 1;
      this.bodyIndex.set(job.body, body);
    }
    this.jobs.push([id, job.url, job.msgId, job.timestamp, body, job.secrets]);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.post());
    }
    return new Promise((resolve) => this.pending.set(id, resolve));
  }

  /** Gives up every request in hand (shutdown): each answers "aborted". */
  abandon(): void {
    this.post();
    this.worker?.postMessage({ kind: "abandon" } satisfies SenderRequest);
  }

  /** Stops the thread; anything still in hand answers "aborted". */
  close(): void {
    this.stop({ kind: "retry", error: "aborted" });
  }

  /** Requests handed to the thread and not answered yet. */
  get inFlight(): number {
    return this.pending.size;
  }

  private post(): void {
    this.scheduled = false;
    if (this.jobs.length === 0) return;
    const batch: WireBatch = { bodies: this.bodies.map((body) => body.toString("utf8")), jobs: this.jobs };
    const message: SenderRequest = { kind: "send", batch: JSON.stringify(batch) };
    this.jobs = [];
    this.bodies = [];
    this.bodyIndex = new Map();
    const worker = this.thread();
    // Referenced while it has requests in hand: Bun delivers an unreferenced worker's messages late.
    worker.ref();
    worker.postMessage(message);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(SENDER_WORKER_URL);
    worker.onmessage = (event: MessageEvent<SenderReply>) => {
      const outcomes = JSON.parse(event.data.outcomes) as (number | SendOutcome)[];
      for (let i = 0; i < outcomes.length; i += 2) {
        const id = outcomes[i] as number;
        this.pending.get(id)?.(outcomes[i + 1] as SendOutcome);
        this.pending.delete(id);
      }
      if (this.pending.size === 0 && this.jobs.length === 0) worker.unref();
    };
    worker.onerror = (event) => {
      const error = new Error(`the webhook sender thread stopped: ${event.message}`);
      this.stop({ kind: "retry", error: error.message });
      this.stopped(error);
    };
    worker.postMessage({ kind: "init", options: this.options } satisfies SenderRequest);
    this.worker = worker;
    return worker;
  }

  /** Ends the thread and answers everything it had in hand with `outcome`; the next job starts a new one. */
  private stop(outcome: SendOutcome): void {
    this.worker?.terminate();
    this.worker = undefined;
    for (const resolve of this.pending.values()) resolve(outcome);
    this.pending.clear();
    this.jobs = [];
    this.bodies = [];
    this.bodyIndex = new Map();
  }
}
