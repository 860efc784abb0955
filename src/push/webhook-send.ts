/**
 * @module push/webhook-send
 * One webhook delivery attempt: a POST signed the Standard Webhooks way (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`), sent to the address the SSRF guard vetted and to no
 * other. The answer is an outcome the dispatcher acts on, never an exception for what the network
 * or the receiver did: delivered, gone (410: the receiver wants no more), retry (anything else) or
 * refused (the guard said no; nothing was sent).
 *
 * The connection goes through `node:http`/`node:https` with a `lookup` that answers the vetted
 * address: the URL's host stays the Host header and the TLS server name (so the certificate is
 * checked against it), but no second DNS answer can redirect the connection (DNS rebinding).
 * Bun's `node:http` honours `lookup`; test/push/webhook-send.test.ts proves it. With `agent` (push/
 * connections.ts: one kept-alive Agent per origin and checked address) the connection is reused;
 * without, each attempt has a connection of its own.
 */
import { createHmac } from "node:crypto";
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { LRUCache } from "lru-cache";
import { VERSION } from "../version.ts";
import { pinnedLookup } from "./connections.ts";
import { type Lookup, resolveWebhookTarget, type WebhookTarget, WebhookTargetRefused } from "./ssrf.ts";

export interface WebhookMessage {
  url: string;
  /** The event's id: the same on every attempt, so the receiver can drop duplicates. */
  msgId: string;
  timestamp: Date;
  /**
   * The JSON payload, sent byte for byte as signed. As bytes when one body goes to many receivers
   * (a fan-out encodes it once, not once per request).
   */
  body: string | Buffer;
  /** Standard Webhooks secrets (`whsec_<base64>`); each signs once, so a receiver can rotate keys. */
  secrets: readonly string[];
}

export interface SendOptions {
  /** Let receivers on loopback or the LAN be reached (self-hosted); cloud metadata stays refused. */
  allowPrivate: boolean;
  /** The whole attempt (lookup, connection, answer) must fit in this; default 15 s. */
  timeoutMs?: number;
  userAgent?: string;
  /** Host name resolution; the system resolver unless a test gives its own. */
  lookup?: Lookup;
  /**
   * The vetted target of a URL (push/target-cache.ts keeps them a while); default: checked and
   * resolved now, with `lookup`.
   */
  target?: (url: string) => WebhookTarget | Promise<WebhookTarget>;
  /** The clock a `Retry-After` date is measured against. */
  now?: () => number;
  /** The kept-alive Agent for a vetted target (push/connections.ts); none: a connection of its own. */
  agent?: (target: WebhookTarget) => http.Agent;
  /** Abandons the attempt (shutdown): the outcome is a retry that says "aborted". */
  signal?: AbortSignal;
}

export type SendOutcome =
  | { kind: "delivered"; status: number }
  | { kind: "gone"; status: 410 }
  | { kind: "retry"; status?: number; retryAfterMs?: number; error: string }
  | { kind: "refused"; reason: string };

const DEFAULT_TIMEOUT_MS = 15_000;
/** How much of a response body is read: enough for an error message, and a receiver cannot make us buffer more. */
const BODY_LIMIT_BYTES = 4096;
/** How much of that body goes into a retry's error. */
const EXCERPT_CHARS = 200;

/** Thrown inside an attempt when its time is up; becomes the outcome's "timed out". */
class TimedOut extends Error {
  /** "aborted": the caller abandoned the attempt (shutdown). */
  constructor(message = "timed out") {
    super(message);
  }
}

/**
 * Sends one webhook and says how it went. Throws only for the caller's own mistakes (no secret, a
 * secret that is not base64); everything the network or the receiver does is an outcome.
 */
export async function sendWebhook(message: WebhookMessage, options: SendOptions): Promise<SendOutcome> {
  const payload = typeof message.body === "string" ? Buffer.from(message.body, "utf8") : message.body;
  const headers = {
    "content-type": "application/json",
    "content-length": String(payload.length),
    "user-agent": options.userAgent ?? `ckg-webhooks/${VERSION}`,
    "webhook-id": message.msgId,
    "webhook-timestamp": String(Math.floor(message.timestamp.getTime() / 1000)),
    "webhook-signature": signatures(message, payload),
  };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  if (options.signal?.aborted) return { kind: "retry", error: "aborted" };
  let target: WebhookTarget;
  try {
    const vetted = options.target ? options.target(message.url) : resolveWebhookTarget(message.url, { allowPrivate: options.allowPrivate, lookup: options.lookup });
    // A target already known needs no wait (a fan-out's usual case): no timer, no race.
    target = vetted instanceof Promise ? await withinTime(vetted, timeoutMs, options.signal) : vetted;
  } catch (error) {
    if (error instanceof WebhookTargetRefused) return { kind: "refused", reason: error.reason };
    return { kind: "retry", error: error instanceof TimedOut ? error.message : `DNS lookup failed: ${describe(error)}` };
  }
  try {
    const answer = await exchange(target, headers, payload, deadline - Date.now(), options.signal, options.agent?.(target) ?? false);
    return judgeAnswer(answer, (options.now ?? Date.now)());
  } catch (error) {
    return { kind: "retry", error: describe(error) };
  }
}

/** `work`, or TimedOut when `ms` pass or `signal` aborts first ("aborted"). */
function withinTime<T>(work: Promise<T>, ms: number, signal: AbortSignal | undefined): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abandon = () => finish(() => reject(new TimedOut("aborted")));
    const timer = setTimeout(() => finish(() => reject(new TimedOut())), ms);
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", abandon);
      settle();
    };
    signal?.addEventListener("abort", abandon, { once: true });
    work.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}

/**
 * `v1,<sig>` for each secret, space-separated (Standard Webhooks: base64 of HMAC-SHA256 keyed with
 * the secret's bytes, over `<id>.<unix seconds>.<body>`); a receiver accepts any one it knows. The
 * HMAC is node:crypto's (the standardwebhooks package hashes in JavaScript, a few microseconds a
 * message: a fan-out's largest cost after the request itself); test/push/webhook-send.test.ts
 * verifies every signature with that package.
 */
function signatures(message: WebhookMessage, payload: Buffer): string {
  if (message.secrets.length === 0) throw new Error("a webhook needs at least one signing secret");
  // The signed text's head, then the body's bytes as sent: no copy of the body per message.
  const head = `${message.msgId}.${Math.floor(message.timestamp.getTime() / 1000)}.`;
  return message.secrets.map((secret) => `v1,${createHmac("sha256", secretKey(secret)).update(head).update(payload).digest("base64")}`).join(" ");
}

/** Decoded secrets, kept: a fan-out signs with the same few thousand secrets over and over. */
const secretKeys = new LRUCache<string, Buffer>({ max: 100_000 });

/** A secret's key bytes: the base64 after `whsec_`; anything else is the caller's mistake. */
function secretKey(secret: string): Buffer {
  const kept = secretKeys.get(secret);
  if (kept) return kept;
  const encoded = secret.startsWith("whsec_") ? secret.slice(6) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) throw new Error("a webhook secret must be base64 (whsec_<base64>)");
  const key = Buffer.from(encoded, "base64");
  secretKeys.set(secret, key);
  return key;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The start of the body, at most BODY_LIMIT_BYTES. */
  body: string;
}

/**
 * The POST itself, on a connection of `agent` (kept alive, to the same vetted address) or of its
 * own (`false`). Either way `lookup` answers the vetted address, so no socket goes elsewhere.
 * Given up after `timeoutMs` (the whole exchange, not an idle time) or when `signal` aborts: the
 * request's socket is destroyed, never handed back to the pool with a request pending on it.
 */
function exchange(target: WebhookTarget, headers: Record<string, string>, payload: Buffer, timeoutMs: number, signal: AbortSignal | undefined, agent: http.Agent | false): Promise<Answer> {
  const secure = target.url.protocol === "https:";
  return new Promise<Answer>((resolveAnswer, rejectAnswer) => {
    const request = (secure ? https : http).request({
      method: "POST",
      hostname: target.host,
      port: Number(target.url.port) || (secure ? 443 : 80),
      path: `${target.url.pathname}${target.url.search}`,
      headers: { ...headers, host: target.url.host },
      // SNI carries a name, never an address (RFC 6066).
      ...(secure && isIP(target.host) === 0 ? { servername: target.host } : {}),
      lookup: pinnedLookup(target),
      agent,
    });
    // The errors are made only when needed: an Error captures a stack, a cost per request otherwise.
    const abandon = () => request.destroy(new TimedOut("aborted"));
    const timer = setTimeout(() => request.destroy(new TimedOut()), Math.max(0, timeoutMs));
    // Settled: the time limit and the abort no longer apply (a kept-alive socket is another request's next).
    const release = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", abandon);
    };
    const resolve = (answer: Answer) => {
      release();
      resolveAnswer(answer);
    };
    signal?.addEventListener("abort", abandon, { once: true });
    request.on("close", release);
    if (signal?.aborted) abandon();
    request.on("error", (error) => {
      release();
      rejectAnswer(error);
    });
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      // Once the status is here it decides; the body is only kept for an error's message (a 2xx's is
      // read and dropped), and only so far. A body read to its end leaves the connection reusable;
      // one cut short is closed.
      const keep = status < 200 || status >= 300;
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = (cut: boolean) => {
        if (done) return;
        done = true;
        resolve({ status, headers: response.headers, body: keep ? Buffer.concat(chunks).toString("utf8") : "" });
        if (cut) response.destroy();
      };
      response.on("data", (chunk: Buffer) => {
        const room = BODY_LIMIT_BYTES - size;
        if (keep) chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.length, room);
        if (size >= BODY_LIMIT_BYTES) finish(true);
      });
      response.on("end", () => finish(false));
      response.on("error", () => finish(true));
      response.on("close", () => finish(true));
    });
    request.end(payload);
  });
}

function judgeAnswer(answer: Answer, nowMs: number): SendOutcome {
  const { status } = answer;
  if (status >= 200 && status < 300) return { kind: "delivered", status };
  if (status === 410) return { kind: "gone", status: 410 };
  const retryAfterMs = parseRetryAfter(single(answer.headers["retry-after"]), nowMs);
  const location = single(answer.headers.location);
  // A redirect could point anywhere, including where the guard would refuse: it is never followed.
  const error =
    status >= 300 && status < 400 ? `redirect not followed: HTTP ${status}${location ? ` to ${excerpt(location)}` : ""}` : `HTTP ${status}${answer.body ? `: ${excerpt(answer.body)}` : ""}`;
  return retryAfterMs === undefined ? { kind: "retry", status, error } : { kind: "retry", status, retryAfterMs, error };
}

/**
 * `Retry-After` in milliseconds from `nowMs`: delay-seconds ("7") or an HTTP-date (a date already
 * past is 0). Undefined when absent or unreadable. Not capped: the caller decides how long it waits.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date has a day or month name; without that requirement Date.parse would read "1.5" as a date.
  const at = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** The first wait's ceiling by default (the webhook_first_retry_ms setting). */
const BACKOFF_FIRST_MS = 5_000;
const BACKOFF_CAP_MS = 3_600_000;

/**
 * How long to wait after failed attempt number `attempt` (1 = the first attempt failed): full
 * jitter, a uniform draw below a ceiling that starts at 5 s and doubles — 5 s, 10 s, 20 s, 40 s,
 * 80 s, 160 s, 320 s, 640 s, 1280 s, 2560 s — and is 1 hour from the 11th wait on. No wait is under
 * 1 s. Full jitter spreads the retries of many deliveries that failed together (a receiver's
 * outage) instead of sending them back in one wave. On average a wait is half its ceiling: the
 * first ten waits take about 43 min together, then about 30 min each, so 3 days hold about 150
 * attempts (81 if every draw hit its ceiling). A `Retry-After` the receiver sent is the caller's to
 * weigh against this. `firstMs` moves the whole schedule (the floor is a fifth of it).
 */
export function backoffMs(attempt: number, random: () => number = Math.random, firstMs = BACKOFF_FIRST_MS): number {
  const step = Math.max(1, Math.floor(attempt));
  const ceiling = Math.min(BACKOFF_CAP_MS, firstMs * 2 ** (step - 1));
  return Math.max(firstMs / 5, Math.floor(random() * ceiling));
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A receiver's text, cut short and on one line, for an error message. */
function excerpt(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > EXCERPT_CHARS ? `${line.slice(0, EXCERPT_CHARS)}…` : line;
}

function describe(error: unknown): string {
  if (error instanceof TimedOut) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
}
