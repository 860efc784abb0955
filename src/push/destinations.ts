/**
 * @module push/destinations
 * One queue per destination (a webhook URL's origin: scheme, host, port), each with its own
 * concurrency, so a receiver that stops answering holds only its own requests: the others' are
 * started as soon as they are claimed. A destination whose slots are all taken queues a few more
 * while it answers; past that, or once it stalls (nothing answered for STALL_MS while full), it
 * takes no more, and says when it expects room: the worker writes that time back to the store as
 * the delivery's due time (push/deliver.ts), so a backlog waits in the store, not in memory, and
 * comes back about when the destination can take it. The times handed out are spread by how fast
 * the destination answers (its concurrency over its request time, Little's law), so ten thousand
 * deliveries for a hung receiver come back a slot's worth at a time, not all at once.
 */

/** Requests in flight across every destination at most (a socket each). */
const MAX_IN_FLIGHT = 4096;
/** A full destination that has answered nothing this long is stalled. */
const STALL_MS = 250;
/** Weight of the newest request time in the running average. */
const LATENCY_WEIGHT = 0.2;

export interface Job {
  /** Runs the request; resolves when its outcome is known (never rejects). */
  run(): Promise<void>;
}

interface Destination {
  active: number;
  /** Start times of the requests in flight, oldest first (pushed in time order). */
  started: number[];
  waiting: Job[];
  /** When a request last finished (any outcome), or when the destination was first used. */
  answeredAt: number;
  /** Running average of a request's time (ms), timeouts included. */
  latencyMs: number;
  /** The next time handed out to a delivery it refused: later refusals line up behind. */
  nextFreeAt: number;
}

export type Offer = { taken: true } | { taken: false; retryInMs: number };

export class Destinations {
  private readonly destinations = new Map<string, Destination>();
  private active = 0;
  private queued = 0;

  /**
   * `concurrency`: requests in flight per destination; `waitingPerDestination`: how many more a
   * destination that answers may queue; `onFinished`: a request finished (room for more claims).
   */
  constructor(
    private readonly concurrency: number,
    private readonly waitingPerDestination: number,
    private readonly onFinished: () => void,
  ) {}

  /** Jobs queued behind full destinations (claimed, not yet started). */
  get waiting(): number {
    return this.queued;
  }

  get inFlight(): number {
    return this.active;
  }

  /**
   * Starts `job` now, queues it, or refuses it with how long until the destination should have
   * room for it. `maxWaitMs`: the request time limit (no request takes longer).
   */
  offer(key: string, job: Job, maxWaitMs: number, now = Date.now()): Offer {
    let d = this.destinations.get(key);
    if (!d) {
      d = { active: 0, started: [], waiting: [], answeredAt: now, latencyMs: 0, nextFreeAt: 0 };
      this.destinations.set(key, d);
    }
    if (d.active < this.concurrency && this.active < MAX_IN_FLIGHT) {
      this.start(key, d, job);
      return { taken: true };
    }
    const oldest = d.started[0] ?? now;
    const stalled = d.active >= this.concurrency && now - Math.max(d.answeredAt, oldest) > STALL_MS;
    if (!stalled && d.waiting.length < this.waitingPerDestination) {
      d.waiting.push(job);
      this.queued++;
      return { taken: true };
    }
    // A stalled destination's requests take at least as long again as its oldest has so far; one
    // that never answered is expected to hold its slots to the time limit.
    const stalledFor = d.latencyMs > 0 ? Math.max(d.latencyMs, 2 * (now - oldest)) : maxWaitMs;
    const latency = Math.min(maxWaitMs, Math.max(stalled ? stalledFor : d.latencyMs, 1));
    const spacing = latency / this.concurrency;
    const base = stalled ? oldest + latency : now + (d.active + d.waiting.length) * spacing;
    const at = Math.max(d.nextFreeAt, base);
    d.nextFreeAt = at + spacing;
    return { taken: false, retryInMs: Math.max(1, Math.ceil(at - now)) };
  }

  private start(key: string, d: Destination, job: Job): void {
    const at = Date.now();
    d.started.push(at);
    d.active++;
    this.active++;
    void job.run().finally(() => {
      const end = Date.now();
      d.active--;
      this.active--;
      d.answeredAt = end;
      d.latencyMs = d.latencyMs === 0 ? end - at : d.latencyMs + LATENCY_WEIGHT * (end - at - d.latencyMs);
      d.started.splice(d.started.indexOf(at), 1);
      this.next(key, d);
      if (this.active < MAX_IN_FLIGHT && this.queued > 0) this.drainAll();
      this.onFinished();
    });
  }

  /** Starts what waits for `d`, as its slots allow; forgets a destination with nothing left. */
  private next(key: string, d: Destination): void {
    while (d.waiting.length > 0 && d.active < this.concurrency && this.active < MAX_IN_FLIGHT) {
      this.queued--;
      this.start(key, d, d.waiting.shift()!);
    }
    if (d.active === 0 && d.waiting.length === 0 && d.nextFreeAt <= Date.now()) this.destinations.delete(key);
  }

  /** After the total cap freed room: every destination with a queue gets its turn. */
  private drainAll(): void {
    for (const [key, d] of this.destinations) if (d.waiting.length > 0) this.next(key, d);
  }
}
