/**
 * @module push/deliver
 * Webhook deliveries, at least once, with no receiver able to hold up another. Due deliveries are
 * claimed with a lease (one replica at a time holds one, as scans are held) and handed to their
 * destination's queue (push/destinations.ts), which starts each as soon as the destination has a
 * slot, on the sender's thread (push/sender.ts: signed, over a kept-alive connection to the
 * checked address). Each outcome is written as it comes (batched with whatever else finished
 * meanwhile, a few hundred to a transaction), only by the lease's holder (push/delivery-record.ts).
 * Claiming never waits for a request: a finished request makes room and claims again; a retry is
 * claimed by a timer set for its due time. A receiver that fails is tried again with exponential
 * backoff, or when its Retry-After says, until the retry window has passed; a 410 disables the
 * subscription. A crash mid-delivery leaves the lease to run out: the delivery is then claimed
 * again and sent with the same webhook-id, which is how a receiver tells a repeat.
 */
import type { Logger } from "../log.ts";
import { HOST } from "../store/runs.ts";
import type { StateStore, Statement } from "../store/state.ts";
import { type Claimed, claimStatement, type DeliverySettings, type Outcome, deferral, recordDelivered, recordOutcome, release } from "./delivery-record.ts";
import { Destinations } from "./destinations.ts";
import type { PushEvent } from "./events.ts";
import { eventsByKeys } from "./feed.ts";
import { Sender } from "./sender.ts";
import { SingleFlight } from "./single-flight.ts";
import { type DeliveryTarget, deliveryTargets, disableSubscription } from "./subscriptions.ts";

export type { DeliverySettings } from "./delivery-record.ts";

/** Deliveries claimed per query at most. */
const CLAIM_BATCH = 512;
/** Deliveries claimed but queued (not yet sent) at most, across destinations: the memory claims may hold. */
const WAITING_BUDGET = 2048;
/**
 * Room for fewer than this is not claimed while deliveries wait: a claim and its reads cost about
 * as much for one row as for hundreds, so a backlog is claimed in batches, not one per request finished.
 */
const MIN_CLAIM = 128;
/** Timers for due deliveries fire on these ticks (ms). */
const WAKE_TICK_MS = 25;
/** Outcomes are written this long after the first of them, together: one transaction for many, not one each. */
const FLUSH_MS = 10;
/**
 * Writes per transaction at most; the next waits a turn of the event loop. Thousands in one
 * transaction held the thread for tens of milliseconds, while the sender's answers waited.
 */
const WRITES_PER_TRANSACTION = 500;

/** The webhook-id of a delivery: the same on every attempt, different for each subscription and event. */
function webhookId(subscriptionId: string, eventKey: string): string {
  return `msg_${subscriptionId.slice(4)}_${eventKey}`;
}

/** A webhook URL's destination: its origin (scheme, host, port); a URL that does not parse is its own. */
function destinationOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : url;
}

export class DeliveryWorker {
  /** Who holds a lease: this process on this host. */
  readonly holder = `${HOST}:${process.pid}`;
  /** Deliveries sent (any outcome) since start, for /metrics and the benchmark. */
  sent = 0;
  private readonly sender: Sender;
  private readonly destinations: Destinations;
  private readonly claims: SingleFlight;
  private readonly flushes: SingleFlight;
  private readonly requests = new Set<Promise<void>>();
  private writes: Statement[] = [];
  /** Deliveries a receiver took, by its status: written together at the next flush (recordDelivered). */
  private readonly delivered = new Map<number, Claimed[]>();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * The last claim found nothing more due: until a timer, a new event or a check says otherwise,
   * a finished request does not claim (a claim is a write transaction, even when it finds nothing).
   */
  private dry = false;
  private readonly gone = new Map<string, string>();
  private readonly stopping = new AbortController();
  private wake: { at: number; timer: ReturnType<typeof setTimeout> } | undefined;

  constructor(
    private readonly state: StateStore,
    private readonly settings: DeliverySettings,
    private readonly log: Logger,
  ) {
    const perDestination = settings.webhook_concurrency;
    this.sender = new Sender({ allowPrivate: settings.webhook_allow_private, timeoutMs: settings.webhook_timeout_ms, concurrency: perDestination }, (error) =>
      log.error({ err: error }, "push: the webhook sender's thread stopped; its requests are retried, on a new thread"),
    );
    // A finished request makes room: claim more, unless the last claim found nothing more due.
    this.destinations = new Destinations(perDestination, perDestination * 4, () => {
      if (!this.dry) this.claims.run();
    });
    this.claims = new SingleFlight(
      () => this.claimWhileRoom(),
      (error) => log.warn({ err: error }, "push: claiming deliveries failed (tried again at the next event or retry check)"),
    );
    this.flushes = new SingleFlight(
      () => this.flush(),
      (error) => log.warn({ err: error }, "push: recording deliveries failed (their leases run out and they are sent again)"),
    );
  }

  /** Claims and starts what is due, now or right after the claim in flight; never waits for a request. */
  pump(): void {
    if (this.stopping.signal.aborted) return;
    this.dry = false;
    this.claims.run();
  }

  /** Resolves once nothing is being claimed, sent or recorded (tests, shutdown). */
  async settled(): Promise<void> {
    for (;;) {
      await this.claims.settled();
      if (this.requests.size > 0) await Promise.all(this.requests);
      else if (this.writes.length > 0 || this.delivered.size > 0) {
        clearTimeout(this.flushTimer);
        this.flushTimer = undefined;
        this.flushes.run();
      }
      await this.flushes.settled();
      if (this.requests.size === 0 && this.writes.length === 0 && this.delivered.size === 0 && this.destinations.waiting === 0) return;
    }
  }

  /** Stops claiming; requests in flight are abandoned and their deliveries released unattempted. */
  async close(): Promise<void> {
    this.stopping.abort();
    this.sender.abandon();
    if (this.wake) clearTimeout(this.wake.timer);
    await this.settled();
    this.sender.close();
  }

  private async claimWhileRoom(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      const room = WAITING_BUDGET - this.destinations.waiting;
      if (room <= 0 || (room < MIN_CLAIM && this.destinations.waiting > 0)) return; // a finished request pumps again
      const ask = Math.min(CLAIM_BATCH, room);
      const claimed = await this.claim(ask);
      if (claimed.length > 0) await this.route(claimed);
      if (claimed.length < ask) {
        this.dry = true;
        return this.scheduleNextDue();
      }
    }
  }

  /**
   * How long a claim holds a delivery: long enough to wait behind one wave of the destination's
   * requests and then send (a job that waited longer is released unsent, in `send`); a holder
   * that died frees it this soon.
   */
  private get leaseMs(): number {
    return 2 * this.settings.webhook_timeout_ms + 5_000;
  }

  private async claim(limit: number): Promise<Claimed[]> {
    const { sql, params } = claimStatement(this.holder, this.leaseMs, limit);
    return this.state.all<Claimed>(sql, params);
  }

  /** Hands each claimed delivery to its destination; one with no room is written back due when it expects room. */
  private async route(claimed: Claimed[]): Promise<void> {
    // What the batch needs, read in a few queries (not two per delivery).
    const subscriptions = await deliveryTargets(this.state, [...new Set(claimed.map((d) => d.subscription_id))]);
    const events = await eventsByKeys(this.state, claimed.map((d) => d.event));
    const leasedUntil = Date.now() + this.leaseMs;
    // An event's body is the same for every subscription: written once per claim, not per delivery.
    const bodies = new Map<string, Buffer>();
    const bodyOf = (key: string, { type, timestamp, data }: PushEvent) => bodies.get(key) ?? bodies.set(key, Buffer.from(JSON.stringify({ type, timestamp, data }))).get(key)!;
    for (const d of claimed) {
      const subscription = subscriptions.get(d.subscription_id);
      const event = events.get(d.event);
      const why = cancelled(subscription, event);
      if (why !== undefined || !subscription?.webhookUrl || !event) {
        this.write(recordOutcome(d, { kind: "cancelled", error: why ?? "the subscription has no webhook" }, this.settings, this.holder));
        continue;
      }
      const now = Date.now();
      const body = bodyOf(d.event, event);
      const job = { run: () => this.track(this.send(d, subscription, body, leasedUntil)) };
      const offer = this.destinations.offer(destinationOf(subscription.webhookUrl), job, this.settings.webhook_timeout_ms, now);
      if (offer.taken) continue;
      this.write({ statement: deferral(d, now + offer.retryInMs, this.holder), retryAt: now + offer.retryInMs });
    }
  }

  private track(request: Promise<void>): Promise<void> {
    this.requests.add(request);
    return request.finally(() => this.requests.delete(request));
  }

  /** One attempt and its record; never rejects (a failure is an outcome, or a lease left to run out). */
  private async send(d: Claimed, subscription: DeliveryTarget, body: Buffer, leasedUntil: number): Promise<void> {
    // Waited so long behind its destination's requests that the lease could end mid-request: handed back instead.
    if (this.stopping.signal.aborted || Date.now() + this.settings.webhook_timeout_ms + 1_000 > leasedUntil) {
      this.write({ statement: release(d, this.holder), retryAt: Date.now() + FLUSH_MS });
      return;
    }
    const outcome: Outcome = await this.sender.send({
      url: subscription.webhookUrl!,
      msgId: webhookId(d.subscription_id, d.event),
      timestamp: Date.now(),
      body,
      secrets: subscription.secrets,
    });
    this.sent++;
    if (this.stopping.signal.aborted && outcome.kind === "retry" && outcome.error === "aborted") {
      this.write({ statement: release(d, this.holder) });
      return;
    }
    if (outcome.kind === "delivered") return this.wasDelivered(d, outcome.status);
    if (outcome.kind === "gone") this.gone.set(d.subscription_id, `the receiver answered 410 Gone at ${new Date().toISOString()}`);
    this.write(recordOutcome(d, outcome, this.settings, this.holder));
  }

  /** Queues a write (flushed with whatever else is queued); `retryAt`: the delivery is due again then. */
  private write(change: { statement: Statement; retryAt?: number }): void {
    this.writes.push(change.statement);
    if (change.retryAt !== undefined) this.wakeAt(change.retryAt);
    this.flushSoon();
  }

  private wasDelivered(d: Claimed, status: number): void {
    const list = this.delivered.get(status) ?? this.delivered.set(status, []).get(status)!;
    list.push(d);
    this.flushSoon();
  }

  private flushSoon(): void {
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      this.flushes.run();
    }, FLUSH_MS);
  }

  private async flush(): Promise<void> {
    for (const [status, delivered] of this.delivered) this.writes.push(...recordDelivered(delivered, status, this.holder));
    this.delivered.clear();
    while (this.writes.length > 0) {
      await this.state.batch(this.writes.splice(0, WRITES_PER_TRANSACTION));
      if (this.writes.length > 0) await new Promise((resolve) => setImmediate(resolve));
    }
    for (const [id, reason] of this.gone) {
      this.gone.delete(id);
      await disableSubscription(this.state, id, reason);
      this.log.info({ subscription: id }, "webhook receiver answered 410 Gone: subscription disabled");
    }
  }

  /** Sets the timer for the earliest delivery due later (a retry's, a deferral's): claimed when due, not at the next check. */
  private async scheduleNextDue(): Promise<void> {
    const nowIso = new Date().toISOString();
    const row = await this.state.get<{ at: string | null }>(
      "SELECT min(next_at) AS at FROM deliveries WHERE status = 'pending' AND next_at > ? AND (lease_until IS NULL OR lease_until < ?)",
      [nowIso, nowIso],
    );
    if (row?.at) this.wakeAt(Date.parse(row.at));
  }

  private wakeAt(due: number): void {
    // Rounded up to a tick: deliveries due within one are claimed together, not one claim each.
    const at = Math.ceil(due / WAKE_TICK_MS) * WAKE_TICK_MS;
    if (this.stopping.signal.aborted || (this.wake && this.wake.at <= at)) return;
    if (this.wake) clearTimeout(this.wake.timer);
    const timer = setTimeout(
      () => {
        this.wake = undefined;
        this.pump();
      },
      Math.max(0, at - Date.now()) + 1,
    );
    timer.unref();
    this.wake = { at, timer };
  }
}

function cancelled(subscription: DeliveryTarget | undefined, event: PushEvent | undefined): string | undefined {
  if (!subscription || subscription.status !== "active" || !subscription.webhookUrl) return "the subscription was deleted or disabled";
  if (Date.parse(subscription.expiresAt) <= Date.now()) return "the subscription's period ended";
  if (!event) return "the event is no longer in the outbox (pruned)";
  return undefined;
}
