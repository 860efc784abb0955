/**
 * @module config/settings-push
 * Settings of push delivery (signal events sent to subscribers as scans find them): subscriptions'
 * paid period, webhook retries and their guard, and how fast new events are seen.
 */
import { z } from "zod";
import { type Setting, setting } from "./setting.ts";

export const PUSH_SETTINGS = {
  subscription_period_days: setting(
    "integer",
    z.number().int().min(1).max(3650),
    30,
    "how long a subscription delivers once created (its price, the `subscribe` price, pays for this period)",
  ),
  webhook_retry_hours: setting(
    "integer",
    z.number().int().min(1).max(720),
    72,
    "how long a webhook delivery is retried (backing off exponentially, honouring Retry-After) before it is given up",
  ),
  webhook_first_retry_ms: setting(
    "integer",
    z.number().int().min(10).max(600_000),
    5000,
    "wait before a failed webhook's first retry; each later wait doubles (with jitter) up to an hour, unless the receiver's Retry-After says otherwise",
  ),
  webhook_timeout_ms: setting("integer", z.number().int().min(1000).max(60_000), 15_000, "time limit of one webhook request (redirects are never followed)"),
  webhook_concurrency: setting("integer", z.number().int().min(1).max(1024), 64, "webhook requests in flight at once to one destination (scheme, host, port), and its kept-alive connections; each destination has its own"),
  webhook_allow_private: setting(
    "boolean",
    z.boolean(),
    false,
    "let webhooks reach loopback and private addresses (a receiver on this machine or the LAN); cloud metadata addresses stay refused",
  ),
  push_poll_ms: setting(
    "integer",
    z.number().int().min(20).max(60_000),
    100,
    "how often the server looks for newly committed events (scans run in a child process or on another replica): two index lookups, so it can be often",
  ),
  events_heartbeat_ms: setting("integer", z.number().int().min(1000).max(300_000), 15_000, "how often /api/events sends a comment line so proxies keep the stream open"),
} as const satisfies Record<string, Setting>;
