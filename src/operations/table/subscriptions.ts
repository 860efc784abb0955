/**
 * @module operations/table/subscriptions
 * Push delivery's routes: make a subscription (paid, for a period: its deliveries cost
 * nothing more), read it, rotate its secret, delete it. Reading, rotating and deleting are free:
 * they manage what was paid for, and need the subscription's secret (Authorization: Bearer over
 * HTTP, the `secret` argument over MCP). The event stream is GET /api/events (api/events-route.ts).
 */
import { z } from "zod";
import { CkgError } from "../../errors.ts";
import { resolveEntity } from "../../graph/explore.ts";
import { EVENT_TYPES } from "../../push/events.ts";
import { type Filters, type FiltersInput, filtersInputSchema, filtersSchema } from "../../push/filters.ts";
import { checkWebhookUrl } from "../../push/webhook-url.ts";
import {
  type Subscription,
  authorizedSubscription,
  createSubscription,
  deleteSubscription,
  deliveryStats,
  rotateSecret,
} from "../../push/subscriptions.ts";
import { assertSignalType } from "../../signals/insights.ts";
import type { LiveSnapshot } from "../context.ts";
import { READS } from "../effects.ts";
import { defineOperation } from "../operation.ts";

const subscriptionId = z.string().regex(/^sub_[A-Za-z0-9_-]{8,64}$/, "a subscription id (sub_...)");
const secret = z.string().min(8).max(200).optional().describe("the subscription's secret (over HTTP: Authorization: Bearer <secret>)");

const subscriptionSchema = z.object({
  subscription_id: z.string(),
  status: z.enum(["active", "disabled", "deleted"]),
  status_reason: z.string().nullable(),
  filters: filtersSchema,
  webhook_url: z.string().nullable(),
  stream: z.boolean().describe("readable as Server-Sent Events on GET /api/events"),
  created_at: z.string(),
  expires_at: z.string().describe("the paid period's end: nothing is delivered past it"),
  start_cursor: z.string().describe("events after this position are the subscription's (the event stream's ids are such positions)"),
  events_url: z.string().nullable().describe("where to read the stream, when stream is on"),
});

function describeSubscription(s: Subscription) {
  return {
    subscription_id: s.id,
    status: s.status,
    status_reason: s.statusReason,
    filters: s.filters,
    webhook_url: s.webhookUrl,
    stream: s.stream,
    created_at: s.createdAt,
    expires_at: s.expiresAt,
    start_cursor: `${s.start.signalEvent}-${s.start.change}`,
    events_url: s.stream ? `/api/events?subscription_id=${s.id}` : null,
  };
}

/** Filters as given, with each entity name or URI resolved to its URI (404 for an unknown one, before payment). */
function resolveFilters(input: FiltersInput, live: LiveSnapshot): Filters {
  const uris = (entities: string[] | undefined) => entities && [...new Set(entities.map((e) => resolveEntity(live.names, e).node.uri))];
  const { signals, changes } = input;
  if (signals) for (const type of signals.types ?? []) assertSignalType(type);
  return {
    signals: signals && { ...signals, entities: uris(signals.entities) },
    changes: changes && { ...changes, entities: uris(changes.entities) },
  };
}

export const subscribe = defineOperation({
  name: "subscribe",
  method: "POST",
  path: "/api/subscriptions",
  summary: "Subscribe to signals and graph changes: signed webhooks, an event stream, or both",
  description:
    "Makes a subscription for a period (its price pays for the period; deliveries within it cost nothing more). " +
    `Filters: signals by types, min_score, qualification and entities (names or URIs); graph changes (opt-in) by entities and operations. Events: ${EVENT_TYPES.join(", ")}. ` +
    "webhook_url receives each event as a POST signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature), retried with " +
    "exponential backoff for up to webhook_retry_hours (a 410 disables the subscription); stream: true makes it readable as Server-Sent " +
    "Events on GET /api/events. The answer shows the secret once: it verifies webhooks and opens the stream. Loopback and private " +
    "webhook addresses are refused unless the server allows them.",
  priceUsd: 1,
  effects: { state: "adds", idempotent: false, openWorld: true },
  input: z.strictObject({
    filters: filtersInputSchema.default({ signals: {}, changes: false }),
    webhook_url: z.string().max(2000).optional().describe("an http(s) URL to POST each event to"),
    stream: z.boolean().optional().describe("readable on GET /api/events (default: true without a webhook_url)"),
  }),
  output: subscriptionSchema.extend({ secret: z.string().describe("shown once: signs the webhooks (whsec_...) and opens the stream") }),
  needs: ["snapshot"],
  example: { filters: { signals: { types: ["stablecoin-depeg"], min_score: 50 } }, stream: true },
  async prepare(input, { live, services }) {
    const stream = input.stream ?? !input.webhook_url;
    if (!input.webhook_url && !stream) throw new CkgError("invalid_request", "A subscription needs a delivery: a webhook_url, stream: true, or both.", { details: { field: "stream" } });
    if (input.webhook_url) await checkWebhookUrl(input.webhook_url, { allowPrivate: services.config.webhook_allow_private });
    return { filters: resolveFilters(input.filters, live), webhookUrl: input.webhook_url ?? null, stream };
  },
  async handler(made, { services }) {
    const { subscription, secret } = await createSubscription(services.state, { ...made, periodDays: services.config.subscription_period_days });
    return { ...describeSubscription(subscription), secret };
  },
});

const byId = z.strictObject({ subscription_id: subscriptionId, secret });

export const subscription = defineOperation({
  name: "subscription",
  method: "GET",
  path: "/api/subscriptions/:subscription_id",
  summary: "A subscription, with its deliveries counted (free, with its secret)",
  description: "The subscription's filters, delivery, status and period, and its webhook deliveries by state with the last error. Needs the secret.",
  priceUsd: 0,
  effects: READS,
  input: byId,
  output: subscriptionSchema.extend({
    deliveries: z.object({ counts: z.record(z.string(), z.number().int()), last_error: z.string().nullable() }),
  }),
  needs: [],
  bearer: "secret",
  example: { subscription_id: "sub_AbCdEfGh12345678" },
  async handler(input, { services }) {
    const found = await authorizedSubscription(services.state, input.subscription_id, input.secret);
    return { ...describeSubscription(found), deliveries: await deliveryStats(services.state, found.id) };
  },
});

export const rotateSubscriptionSecret = defineOperation({
  name: "rotate_subscription_secret",
  method: "POST",
  path: "/api/subscriptions/:subscription_id/secret",
  summary: "A new secret for a subscription; the old one signs beside it for a day (free, with its secret)",
  description:
    "Rotates the subscription's secret: the answer shows the new one once. For 24 hours webhooks carry a signature by each (Standard " +
    "Webhooks' several signatures), so a receiver can switch without missing a delivery; the old secret still opens the stream until then.",
  priceUsd: 0,
  effects: { state: "destroys", idempotent: false, openWorld: false },
  input: byId,
  output: z.object({ subscription_id: z.string(), secret: z.string() }),
  needs: [],
  bearer: "secret",
  example: { subscription_id: "sub_AbCdEfGh12345678" },
  async handler(input, { services }) {
    const found = await authorizedSubscription(services.state, input.subscription_id, input.secret);
    return { subscription_id: found.id, secret: await rotateSecret(services.state, found.id) };
  },
});

export const unsubscribe = defineOperation({
  name: "unsubscribe",
  method: "DELETE",
  path: "/api/subscriptions/:subscription_id",
  summary: "Delete a subscription (free, with its secret)",
  description: "Deletes the subscription: its pending deliveries are cancelled and its stream closes. Needs the secret.",
  priceUsd: 0,
  effects: { state: "destroys", idempotent: true, openWorld: false },
  input: byId,
  output: z.object({ subscription_id: z.string(), status: z.literal("deleted") }),
  needs: [],
  bearer: "secret",
  example: { subscription_id: "sub_AbCdEfGh12345678" },
  async handler(input, { services }) {
    const found = await authorizedSubscription(services.state, input.subscription_id, input.secret);
    await deleteSubscription(services.state, found.id);
    return { subscription_id: found.id, status: "deleted" as const };
  },
});
