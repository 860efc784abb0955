/**
 * @module push/deliver
 * Webhook deliveries, at least once. A due delivery is claimed with a lease (one replica at a time
 * holds it, as scans are held) and sent signed (push/webhook-send.ts); its outcome is written back
 * only by the lease's holder. A receiver that fails is tried again with exponential backoff, or
 * when its Retry-After says, until the retry window has passed; a 410 disables the subscription.
 * A crash mid-delivery leaves the lease to run out: the delivery is then claimed again and sent
 * with the same webhook-id, which is how a receiver tells a repeat.
 */
import type { Logger } from "../log.ts";
import { HOST } from "../store/runs.ts";
import type { SqlValue, StateStore, Statement } from "../store/state.ts";
import type { PushEvent } from "./events.ts";
import { eventsByKeys } from "./feed.ts";
import { type Subscription, disableSubscription, findSubscriptions } from "./subscriptions.ts";
import { type SendOutcome, backoffMs, sendWebhook } from "./webhook-send.ts";

export interface DeliverySettings {
  webhook_retry_hours: number;
  webhook_first_retry_ms: number;
  webhook_timeout_ms: number;
  webhook_concurrency: number;
  webhook_allow_private: boolean;
}

interface Claimed {
  subscription_id: string;
  event: string;
  attempts: number;
  created_at: string;
}

const MAX_RETRY_AFTER_MS = 3_600_000;
const LANES = 4;

/** The webhook-id of a delivery: the same on every attempt, different for each subscription and event. */
export function webhookId(subscriptionId: string, eventKey: string): string {
  return `msg_${subscriptionId.slice(4)}_${eventKey}`;
}

export class DeliveryWorker {
  /** Who holds a lease: this process on this host. */
  readonly holder = `${HOST}:${process.pid}`;
  /** Deliveries sent (any outcome) since start, for /metrics and the benchmark. */
  sent = 0;

  constructor(
    private readonly state: StateStore,
    private readonly settings: DeliverySettings,
    private readonly log: Logger,
  ) {}

  /**
   * Sends every delivery due now; returns how many it sent. Four lanes each claim a quarter of the
   * concurrency at a time, so while one lane waits for its slowest receiver the others keep
   * sending (one batch of the whole would stall on its slowest request).
   */
  async drain(): Promise<number> {
    const share = Math.max(1, Math.ceil(this.settings.webhook_concurrency / LANES));
    const lane = async () => {
      let sent = 0;
      for (;;) {
        const claimed = await this.claim(share);
        if (claimed.length === 0) return sent;
        await this.sendAll(claimed);
        sent += claimed.length;
      }
    };
    const sent = await Promise.all(Array.from({ length: Math.min(LANES, this.settings.webhook_concurrency) }, lane));
    return sent.reduce((a, b) => a + b, 0);
  }

  private async claim(limit: number): Promise<Claimed[]> {
    const now = new Date();
    const nowIso = now.toISOString();
    // Long enough for one request and its recording; a holder that died frees it this soon.
    const leaseUntil = new Date(now.getTime() + this.settings.webhook_timeout_ms + 5_000).toISOString();
    // The outer conditions are checked again on the row as another replica left it (PostgreSQL
    // re-reads a row it waited for): two replicas never both hold one delivery.
    const free = "status = 'pending' AND next_at <= ? AND (lease_until IS NULL OR lease_until < ?)";
    return this.state.all<Claimed>(
      `UPDATE deliveries SET lease_holder = ?, lease_until = ? WHERE ${free} AND (subscription_id, event) IN (SELECT subscription_id, event FROM deliveries WHERE ${free} ORDER BY next_at LIMIT ?) RETURNING subscription_id, event, attempts, created_at`,
      [this.holder, leaseUntil, nowIso, nowIso, nowIso, nowIso, limit],
    );
  }

  private async sendAll(claimed: Claimed[]): Promise<void> {
    // What the batch needs, read in a few queries (not two per delivery).
    const subscriptions = await findSubscriptions(this.state, [...new Set(claimed.map((d) => d.subscription_id))]);
    const events = await eventsByKeys(this.state, claimed.map((d) => d.event));
    const writes: Statement[] = [];
    const gone = new Map<string, string>();
    await Promise.all(
      claimed.map(async (d) => {
        const outcome = await this.sendOne(d, subscriptions.get(d.subscription_id), events.get(d.event));
        this.sent++;
        if (outcome.kind === "gone") gone.set(d.subscription_id, `the receiver answered 410 Gone at ${new Date().toISOString()}`);
        writes.push(this.record(d, outcome));
      }),
    );
    await this.state.batch(writes);
    for (const [id, reason] of gone) {
      await disableSubscription(this.state, id, reason);
      this.log.info({ subscription: id }, "webhook receiver answered 410 Gone: subscription disabled");
    }
  }

  private async sendOne(d: Claimed, subscription: Subscription | undefined, event: PushEvent | undefined): Promise<SendOutcome | { kind: "cancelled"; error: string }> {
    if (!subscription || subscription.status !== "active" || !subscription.webhookUrl) return { kind: "cancelled", error: "the subscription was deleted or disabled" };
    if (Date.parse(subscription.expiresAt) <= Date.now()) return { kind: "cancelled", error: "the subscription's period ended" };
    if (!event) return { kind: "cancelled", error: "the event is no longer in the outbox (pruned)" };
    const { type, timestamp, data } = event;
    return sendWebhook(
      { url: subscription.webhookUrl, msgId: webhookId(d.subscription_id, d.event), timestamp: new Date(), body: JSON.stringify({ type, timestamp, data }), secrets: subscription.secrets },
      { allowPrivate: this.settings.webhook_allow_private, timeoutMs: this.settings.webhook_timeout_ms },
    );
  }

  /** The write that records an attempt, made only while this process still holds the lease. */
  private record(d: Claimed, outcome: SendOutcome | { kind: "cancelled"; error: string }): Statement {
    const now = new Date();
    const nowIso = now.toISOString();
    const attempts = d.attempts + 1;
    const where = "WHERE subscription_id = ? AND event = ? AND lease_holder = ?";
    const key: SqlValue[] = [d.subscription_id, d.event, this.holder];
    const finish = (status: string, httpStatus: number | null, error: string | null): Statement => ({
      sql: `UPDATE deliveries SET status = ?, attempts = ?, last_status = ?, last_error = ?, finished_at = ?, lease_holder = NULL, lease_until = NULL ${where}`,
      params: [status, attempts, httpStatus, error, nowIso, ...key],
    });
    switch (outcome.kind) {
      case "delivered":
        return finish("delivered", outcome.status, null);
      case "gone":
        return finish("failed", 410, "410 Gone: the subscription is disabled");
      case "cancelled":
        return finish("cancelled", null, outcome.error);
      default: {
        const status = outcome.kind === "retry" ? (outcome.status ?? null) : null;
        const error = outcome.kind === "retry" ? outcome.error : `refused: ${outcome.reason}`;
        // A receiver's Retry-After is honoured up to an hour (a year's would give up the delivery at once).
        const retryAfter = outcome.kind === "retry" && outcome.retryAfterMs !== undefined ? Math.min(outcome.retryAfterMs, MAX_RETRY_AFTER_MS) : undefined;
        const waitMs = retryAfter ?? backoffMs(attempts, Math.random, this.settings.webhook_first_retry_ms);
        const next = now.getTime() + waitMs;
        const deadline = Date.parse(d.created_at) + this.settings.webhook_retry_hours * 3_600_000;
        if (next > deadline) return finish("failed", status, `${error}; given up after ${attempts} attempts over ${this.settings.webhook_retry_hours} h`);
        return {
          sql: `UPDATE deliveries SET attempts = ?, next_at = ?, last_status = ?, last_error = ?, lease_holder = NULL, lease_until = NULL ${where}`,
          params: [attempts, new Date(next).toISOString(), status, error, ...key],
        };
      }
    }
  }
}
