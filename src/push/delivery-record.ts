/**
 * @module push/delivery-record
 * A delivery's claim (a lease), and the writes that move a claimed delivery on, each made only
 * while this process still holds its lease (another replica may have taken over one whose lease
 * ran out): an attempt's outcome (delivered, failed, cancelled, or tried again later), a deferral
 * (its destination was too busy to take it: no attempt was made, so none is counted) and a
 * release (abandoned unsent at shutdown).
 */
import type { SqlValue, Statement } from "../store/state.ts";
import { type SendOutcome, backoffMs } from "./webhook-send.ts";

export interface DeliverySettings {
  webhook_retry_hours: number;
  webhook_first_retry_ms: number;
  webhook_timeout_ms: number;
  /** Requests in flight per destination (and kept-alive connections to it). */
  webhook_concurrency: number;
  webhook_allow_private: boolean;
}

export interface Claimed {
  subscription_id: string;
  event: string;
  attempts: number;
  created_at: string;
}

export type Outcome = SendOutcome | { kind: "cancelled"; error: string };

const MAX_RETRY_AFTER_MS = 3_600_000;
const WHERE = "WHERE subscription_id = ? AND event = ? AND lease_holder = ?";

const key = (d: Claimed, holder: string): SqlValue[] => [d.subscription_id, d.event, holder];

/**
 * Claims up to `limit` due deliveries for `holder`, leased for `leaseMs` (UPDATE ... RETURNING the
 * claimed rows). A claimed delivery is due again when its lease ends (where a dead holder leaves
 * it): the due index then holds no leased row before the due ones, and a claim reads only what it
 * takes (skipping the thousands claimed but not yet answered made each claim of a 100,000-delivery
 * fan-out cost milliseconds). Every write that ends the lease sets when it is due next.
 */
export function claimStatement(holder: string, leaseMs: number, limit: number, now = new Date()): Statement {
  const nowIso = now.toISOString();
  const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
  // The outer conditions are checked again on the row as another replica left it (PostgreSQL
  // re-reads a row it waited for): two replicas never both hold one delivery. The lease test
  // stays beside the due time for rows an older release leased without moving their `next_at`.
  const free = "status = 'pending' AND next_at <= ? AND (lease_until IS NULL OR lease_until < ?)";
  return {
    sql: `UPDATE deliveries SET lease_holder = ?, lease_until = ?, next_at = ? WHERE ${free} AND (subscription_id, event) IN (SELECT subscription_id, event FROM deliveries WHERE ${free} ORDER BY next_at LIMIT ?) RETURNING subscription_id, event, attempts, created_at`,
    params: [holder, leaseUntil, leaseUntil, nowIso, nowIso, nowIso, nowIso, limit],
  };
}

/**
 * The write recording an attempt a receiver did not take, or a delivery cancelled (a 2xx is
 * recordDelivered's, written with others alike); `retryAt` when the delivery is due again (a
 * timer is set for it).
 */
export function recordOutcome(
  d: Claimed,
  outcome: Exclude<Outcome, { kind: "delivered" }>,
  settings: DeliverySettings,
  holder: string,
  now = new Date(),
): { statement: Statement; retryAt?: number } {
  const nowIso = now.toISOString();
  const attempts = d.attempts + 1;
  const finish = (status: string, httpStatus: number | null, error: string | null): { statement: Statement } => ({
    statement: {
      sql: `UPDATE deliveries SET status = ?, attempts = ?, last_status = ?, last_error = ?, finished_at = ?, lease_holder = NULL, lease_until = NULL ${WHERE}`,
      params: [status, attempts, httpStatus, error, nowIso, ...key(d, holder)],
    },
  });
  switch (outcome.kind) {
    case "gone":
      return finish("failed", 410, "410 Gone: the subscription is disabled");
    case "cancelled":
      return finish("cancelled", null, outcome.error);
    default: {
      const status = outcome.kind === "retry" ? (outcome.status ?? null) : null;
      const error = outcome.kind === "retry" ? outcome.error : `refused: ${outcome.reason}`;
      // A receiver's Retry-After is honoured up to an hour (a year's would give up the delivery at once).
      const retryAfter = outcome.kind === "retry" && outcome.retryAfterMs !== undefined ? Math.min(outcome.retryAfterMs, MAX_RETRY_AFTER_MS) : undefined;
      const waitMs = retryAfter ?? backoffMs(attempts, Math.random, settings.webhook_first_retry_ms);
      const next = now.getTime() + waitMs;
      const deadline = Date.parse(d.created_at) + settings.webhook_retry_hours * 3_600_000;
      if (next > deadline) return finish("failed", status, `${error}; given up after ${attempts} attempts over ${settings.webhook_retry_hours} h`);
      return {
        statement: {
          sql: `UPDATE deliveries SET attempts = ?, next_at = ?, last_status = ?, last_error = ?, lease_holder = NULL, lease_until = NULL ${WHERE}`,
          params: [attempts, new Date(next).toISOString(), status, error, ...key(d, holder)],
        },
        retryAt: next,
      };
    }
  }
}

/** Deliveries whose attempt a receiver took (2xx) written per statement at most (two parameters each). */
const DELIVERED_PER_STATEMENT = 250;

/**
 * The writes recording that `delivered` were taken by their receivers with `status`: one
 * statement per few hundred, not one each (a fan-out's outcomes are nearly all alike). The same
 * change as recordOutcome's for each; `finished_at` is when they are written.
 */
export function recordDelivered(delivered: readonly Claimed[], status: number, holder: string, now = new Date()): Statement[] {
  const statements: Statement[] = [];
  for (let start = 0; start < delivered.length; start += DELIVERED_PER_STATEMENT) {
    const part = delivered.slice(start, start + DELIVERED_PER_STATEMENT);
    statements.push({
      // attempts + 1: under its lease no one else attempts it, so the stored count is the one claimed.
      sql: `UPDATE deliveries SET status = 'delivered', attempts = attempts + 1, last_status = ?, last_error = NULL, finished_at = ?, lease_holder = NULL, lease_until = NULL WHERE lease_holder = ? AND (subscription_id, event) IN (VALUES ${part.map(() => "(?, ?)").join(", ")})`,
      params: [status, now.toISOString(), holder, ...part.flatMap((d) => [d.subscription_id, d.event])],
    });
  }
  return statements;
}

/** Back to the store, due at `at`, unattempted: its destination had no room for it. */
export function deferral(d: Claimed, at: number, holder: string): Statement {
  return { sql: `UPDATE deliveries SET next_at = ?, lease_holder = NULL, lease_until = NULL ${WHERE}`, params: [new Date(at).toISOString(), ...key(d, holder)] };
}

/** Back to the store unattempted, due now: abandoned unsent (shutdown, or a lease too short to send on). */
export function release(d: Claimed, holder: string, now = new Date()): Statement {
  return { sql: `UPDATE deliveries SET next_at = ?, lease_holder = NULL, lease_until = NULL ${WHERE}`, params: [now.toISOString(), ...key(d, holder)] };
}
