/**
 * @module push/subscriptions
 * Subscriptions in the state store: made with their filters, a delivery (a webhook, the event
 * stream, or both) and a secret shown once; read and deleted with that secret. The secret signs
 * webhooks (Standard Webhooks' `whsec_` form) and opens the event stream. Rotating it keeps the old
 * one signing beside the new for a day, so a receiver can switch without losing a delivery. Secrets
 * are kept as given (they must sign), never logged, and compared in constant time.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { CkgError } from "../errors.ts";
import { type StateQueries, type StateStore, inList } from "../store/state.ts";
import { type Cursor, decodeCursor, encodeCursor } from "./events.ts";
import { headCursor } from "./feed.ts";
import { type Filters, storedFilters } from "./filters.ts";

/** How long a rotated-out secret still signs (beside the new one). */
const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export type SubscriptionStatus = "active" | "disabled" | "deleted";

interface StoredSecret {
  secret: string;
  /** ISO time past which it no longer signs; absent: the current one. */
  until?: string;
}

interface SubscriptionRow {
  subscription_id: string;
  secrets: string;
  filters: string;
  webhook_url: string | null;
  stream: number;
  status: SubscriptionStatus;
  status_reason: string | null;
  created_at: string;
  expires_at: string;
  start_cursor: string;
  payer: string | null;
}

export interface Subscription {
  id: string;
  filters: Filters;
  webhookUrl: string | null;
  stream: boolean;
  status: SubscriptionStatus;
  statusReason: string | null;
  createdAt: string;
  expiresAt: string;
  /** Events after this are the subscription's. */
  start: Cursor;
  /** Every secret that signs now, newest first. */
  secrets: string[];
}

function newSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/** The secrets that sign now, newest first, from their stored JSON. */
function signingSecrets(stored: string, now: number): string[] {
  return (JSON.parse(stored) as StoredSecret[]).filter((s) => !s.until || Date.parse(s.until) > now).map((s) => s.secret);
}

function toSubscription(row: SubscriptionRow, now = Date.now()): Subscription {
  const secrets = signingSecrets(row.secrets, now);
  return {
    id: row.subscription_id,
    filters: storedFilters(row.filters),
    webhookUrl: row.webhook_url,
    stream: row.stream === 1,
    status: row.status,
    statusReason: row.status_reason,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    start: decodeCursor(row.start_cursor),
    secrets,
  };
}

export async function createSubscription(
  state: StateStore,
  made: { filters: Filters; webhookUrl: string | null; stream: boolean; periodDays: number; payer?: string; now?: Date },
): Promise<{ subscription: Subscription; secret: string }> {
  const now = made.now ?? new Date();
  const id = `sub_${randomBytes(12).toString("base64url")}`;
  const secret = newSecret();
  // Under the fan-out's lock: the head read here is not passed over by a fan-out running meanwhile (push/dispatch.ts).
  await state.transaction(async (tx) => {
    const start = await headCursor(tx);
    await tx.run(
    "INSERT INTO subscriptions (subscription_id, secrets, filters, webhook_url, stream, status, status_reason, created_at, expires_at, start_cursor, payer) VALUES (?, ?, ?, ?, ?, 'active', NULL, ?, ?, ?, ?)",
    [
      id,
      JSON.stringify([{ secret }] satisfies StoredSecret[]),
      JSON.stringify(made.filters),
      made.webhookUrl,
      made.stream ? 1 : 0,
      now.toISOString(),
      new Date(now.getTime() + made.periodDays * 86_400_000).toISOString(),
      encodeCursor(start),
      made.payer ?? null,
    ],
    );
  }, { lock: "push-dispatch" });
  return { subscription: (await findSubscription(state, id))!, secret };
}

export async function findSubscription(state: StateQueries, id: string): Promise<Subscription | null> {
  const row = await state.get<SubscriptionRow>("SELECT * FROM subscriptions WHERE subscription_id = ? AND status <> 'deleted'", [id]);
  return row ? toSubscription(row) : null;
}

/** What a webhook delivery needs of its subscription: where, signed with what, and whether it still takes it. */
export type DeliveryTarget = Pick<Subscription, "id" | "webhookUrl" | "status" | "expiresAt" | "secrets">;

/**
 * The delivery targets of several subscriptions, in one query (a delivery batch's): deleted ones
 * are absent. Only the columns a delivery reads: a fan-out reads one per delivery, and filters
 * and cursors parsed for nothing cost as much as the read.
 */
export async function deliveryTargets(state: StateQueries, ids: readonly string[], now = Date.now()): Promise<Map<string, DeliveryTarget>> {
  if (ids.length === 0) return new Map();
  type Row = Pick<SubscriptionRow, "subscription_id" | "secrets" | "webhook_url" | "status" | "expires_at">;
  const list = inList(ids);
  const rows = await state.all<Row>(`SELECT subscription_id, secrets, webhook_url, status, expires_at FROM subscriptions WHERE status <> 'deleted' AND subscription_id IN ${list.sql}`, list.params);
  return new Map(
    rows.map((row) => [
      row.subscription_id,
      { id: row.subscription_id, webhookUrl: row.webhook_url, status: row.status, expiresAt: row.expires_at, secrets: signingSecrets(row.secrets, now) },
    ]),
  );
}

/** The subscription, when `secret` is one of its secrets: 404 for an unknown id, 401 for a wrong secret. */
export async function authorizedSubscription(state: StateQueries, id: string, secret: string | undefined): Promise<Subscription> {
  const subscription = await findSubscription(state, id);
  if (!subscription) throw new CkgError("not_found", `No subscription ${id} (it may have been deleted).`, { details: { subscription_id: id } });
  if (!secret) throw new CkgError("unauthorized", "Give the subscription's secret: Authorization: Bearer <secret> (or the secret field).");
  const given = Buffer.from(secret);
  const matches = subscription.secrets.some((s) => {
    const known = Buffer.from(s);
    return known.length === given.length && timingSafeEqual(known, given);
  });
  if (!matches) throw new CkgError("unauthorized", "The secret is not this subscription's.", { details: { subscription_id: id } });
  return subscription;
}

/** What fan-out needs of a subscription: which events it takes. */
export type FanOutTarget = Pick<Subscription, "id" | "filters" | "start">;

/**
 * Every subscription that takes webhooks now (active, in its period, with a URL), as fan-out reads
 * them: only the columns it uses (a fan-out to 100,000 reads each once per event page).
 */
export async function webhookSubscriptions(state: StateQueries, now = new Date()): Promise<FanOutTarget[]> {
  const rows = await state.all<Pick<SubscriptionRow, "subscription_id" | "filters" | "start_cursor">>(
    "SELECT subscription_id, filters, start_cursor FROM subscriptions WHERE status = 'active' AND webhook_url IS NOT NULL AND expires_at > ?",
    [now.toISOString()],
  );
  return rows.map((row) => ({ id: row.subscription_id, filters: storedFilters(row.filters), start: decodeCursor(row.start_cursor) }));
}

/** Deletes (kept as 'deleted', its pending deliveries cancelled): nothing more is delivered. */
export async function deleteSubscription(state: StateStore, id: string): Promise<void> {
  await endSubscription(state, id, "deleted", "deleted by its owner");
}

/** Disables a subscription whose receiver answered 410 Gone; its pending deliveries are cancelled. */
export async function disableSubscription(state: StateStore, id: string, reason: string): Promise<void> {
  await endSubscription(state, id, "disabled", reason);
}

async function endSubscription(state: StateStore, id: string, status: SubscriptionStatus, reason: string): Promise<void> {
  const now = new Date().toISOString();
  await state.transaction(async (tx) => {
    await tx.run("UPDATE subscriptions SET status = ?, status_reason = ? WHERE subscription_id = ?", [status, reason, id]);
    await tx.run("UPDATE deliveries SET status = 'cancelled', finished_at = ?, last_error = ? WHERE subscription_id = ? AND status = 'pending'", [now, reason, id]);
  });
}

/** A new secret; the old ones keep signing for ROTATION_OVERLAP_MS. */
export async function rotateSecret(state: StateStore, id: string, now = new Date()): Promise<string> {
  const secret = newSecret();
  await state.transaction(async (tx) => {
    const row = await tx.get<{ secrets: string }>("SELECT secrets FROM subscriptions WHERE subscription_id = ?", [id]);
    const until = new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString();
    const kept = (JSON.parse(row!.secrets) as StoredSecret[]).filter((s) => !s.until || Date.parse(s.until) > now.getTime()).map((s) => ({ secret: s.secret, until: s.until ?? until }));
    await tx.run("UPDATE subscriptions SET secrets = ? WHERE subscription_id = ?", [JSON.stringify([{ secret }, ...kept]), id]);
  });
  return secret;
}

/** Delivery counts by state, and the last failure, for GET /api/subscriptions/{id}. */
export async function deliveryStats(state: StateQueries, id: string): Promise<{ counts: Record<string, number>; last_error: string | null }> {
  const rows = await state.all<{ status: string; n: number }>("SELECT status, CAST(count(*) AS INTEGER) AS n FROM deliveries WHERE subscription_id = ? GROUP BY status", [id]);
  const last = await state.get<{ last_error: string | null }>(
    "SELECT last_error FROM deliveries WHERE subscription_id = ? AND last_error IS NOT NULL ORDER BY created_at DESC LIMIT 1",
    [id],
  );
  return { counts: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])), last_error: last?.last_error ?? null };
}
