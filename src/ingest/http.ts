/**
 * @module ingest/http
 * How connectors talk to providers: JSON over HTTP with a time limit per request, retries with
 * exponential backoff and jitter on network errors, time-outs, 5xx and unreadable (truncated,
 * malformed) bodies, and 429 answered by waiting what `Retry-After` says (seconds or a date),
 * capped. Requests to one provider are spaced by `minIntervalMs` (free-tier rate limits).
 */
import type { Logger } from "../log.ts";

export interface HttpOptions {
  /** Headers sent with every request (API keys). */
  headers?: Record<string, string>;
  timeoutMs?: number;
  retries?: number;
  /** First backoff; doubles each attempt. */
  backoffMs?: number;
  /** The longest a Retry-After is honoured before the request fails. */
  maxRetryAfterMs?: number;
  minIntervalMs?: number;
  log: Logger;
}

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    /** The URL asked, keys hidden (redact). */
    readonly url?: string,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Seconds, or an HTTP date, as milliseconds from now; undefined when absent or unreadable. */
function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(header)) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

export class ProviderHttp {
  private nextSlot = 0;
  /** Requests sent, retries and 429s seen: the ingest report shows them. */
  readonly stats = { requests: 0, retries: 0, rateLimited: 0 };

  constructor(
    readonly provider: string,
    private readonly options: HttpOptions,
  ) {}

  /** GET a URL and parse its JSON, retrying what can be retried. */
  async getJson(url: string, init: { headers?: Record<string, string> } = {}): Promise<unknown> {
    return this.request(url, { method: "GET", headers: init.headers });
  }

  /** POST a JSON body (GraphQL) and parse the JSON answer. */
  async postJson(url: string, body: unknown, init: { headers?: Record<string, string> } = {}): Promise<unknown> {
    return this.request(url, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", ...init.headers } });
  }

  private async request(url: string, init: { method: string; body?: string; headers?: Record<string, string> }): Promise<unknown> {
    const { retries = 4, backoffMs = 500, timeoutMs = 30_000, maxRetryAfterMs = 120_000, log } = this.options;
    const shown = redact(url);
    let lastError: ProviderError | undefined;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) this.stats.retries++;
      await this.waitForSlot();
      this.stats.requests++;
      let wait = backoffMs * 2 ** attempt * (0.75 + Math.random() * 0.5);
      try {
        const response = await fetch(url, {
          method: init.method,
          body: init.body,
          headers: { accept: "application/json", "user-agent": "ckg-ingest", ...this.options.headers, ...init.headers },
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (response.ok) {
          const text = await response.text();
          // 204 No Content (GitHub: an empty repository's contributors) is an answer, not an error.
          if (response.status === 204 || text.trim() === "") return null;
          try {
            return JSON.parse(text);
          } catch {
            lastError = new ProviderError(`unreadable JSON from ${shown} (${text.length} bytes)`, response.status, shown);
          }
        } else if (response.status === 429) {
          this.stats.rateLimited++;
          const asked = retryAfterMs(response.headers.get("retry-after"));
          await response.body?.cancel();
          if (asked !== undefined && asked > maxRetryAfterMs) {
            throw new ProviderError(`${this.provider} asks to wait ${Math.round(asked / 1000)} s (Retry-After), more than allowed`, 429, shown);
          }
          if (asked !== undefined) wait = asked;
          lastError = new ProviderError(`rate limited by ${this.provider} (429)`, 429, shown);
        } else if (response.status === 403 && (response.headers.get("x-ratelimit-remaining") === "0" || response.headers.has("retry-after"))) {
          // GitHub's rate limits: the primary one gives a reset time, the secondary one a Retry-After.
          this.stats.rateLimited++;
          const reset = Number(response.headers.get("x-ratelimit-reset"));
          await response.body?.cancel();
          const asked =
            retryAfterMs(response.headers.get("retry-after")) ?? (Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - Date.now()) : undefined);
          if (asked !== undefined && asked > maxRetryAfterMs) {
            throw new ProviderError(`${this.provider} rate limit resets in ${Math.round(asked / 1000)} s, more than allowed`, 403, shown);
          }
          if (asked !== undefined) wait = asked;
          lastError = new ProviderError(`rate limited by ${this.provider} (403, limit exhausted)`, 403, shown);
        } else if (response.status >= 500 || response.status === 408) {
          await response.body?.cancel();
          lastError = new ProviderError(`${this.provider} answered ${response.status} for ${shown}`, response.status, shown);
        } else {
          // 4xx other than 408/429: asking again will not help. What the provider says of it (a
          // plan it needs, a name it does not know) is the reason the report gives.
          const said = await reasonOf(response);
          throw new ProviderError(`${this.provider} answered ${response.status} for ${shown}${said ? `: ${said}` : ""}`, response.status, shown);
        }
      } catch (error) {
        if (error instanceof ProviderError && lastError !== error) throw error;
        if (!(error instanceof ProviderError)) {
          const name = (error as Error).name;
          lastError = new ProviderError(
            name === "TimeoutError" ? `${this.provider} did not answer within ${timeoutMs} ms (${shown})` : `${this.provider}: ${(error as Error).message}`,
            undefined,
            shown,
          );
        }
      }
      if (attempt < retries) {
        log.warn({ provider: this.provider, url: shown, attempt: attempt + 1, wait_ms: Math.round(wait), err: lastError?.message }, "provider request failed; retrying");
        await sleep(wait);
      }
    }
    throw lastError ?? new ProviderError(`${this.provider}: request failed`, undefined, shown);
  }

  private async waitForSlot(): Promise<void> {
    const interval = this.options.minIntervalMs ?? 0;
    if (interval <= 0) return;
    const now = Date.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + interval;
    if (slot > now) await sleep(slot - now);
  }
}

/** The first words of an error answer (a JSON `message`/`error`, or plain text), for the report. */
async function reasonOf(response: Response): Promise<string | undefined> {
  let text: string;
  try {
    text = (await response.text()).trim();
  } catch {
    return undefined;
  }
  if (!text) return undefined;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const said = body.message ?? body.error ?? (body.status as Record<string, unknown> | undefined)?.error_message;
    if (typeof said === "string") text = said;
  } catch {
    // plain text
  }
  text = text.replace(/\s+/g, " ");
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

/** Keys travel in some providers' paths (DefiLlama pro): never in a log line. */
function redact(url: string): string {
  return url.replace(/(pro-api\.llama\.fi\/)[^/]+/, "$1(key)").replace(/([?&](?:x_cg_[a-z_]+|api_key|key|token)=)[^&]+/gi, "$1(hidden)");
}
