/**
 * @module api/rate-limit
 * A token bucket per client: `perMinute` requests a minute on average, bursts up to the same
 * number. Buckets of clients that went quiet are dropped so memory stays bounded.
 */
import { CkgError } from "../errors.ts";

interface Bucket {
  tokens: number;
  updated: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep = 0;

  constructor(private readonly perMinute: number) {}

  /** Takes one token for `client`, or throws 429 rate_limited with the seconds to wait. */
  take(client: string, now = performance.now()): void {
    if (this.perMinute <= 0) return;
    const rate = this.perMinute / 60_000;
    let bucket = this.buckets.get(client);
    if (!bucket) this.buckets.set(client, (bucket = { tokens: this.perMinute, updated: now }));
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.updated) * rate);
    bucket.updated = now;
    if (bucket.tokens < 1) {
      const wait = Math.ceil((1 - bucket.tokens) / rate / 1000);
      throw new CkgError("rate_limited", `Too many requests from this client; the limit is ${this.perMinute} a minute.`, {
        retryAfterSeconds: wait,
        details: { limit_per_minute: this.perMinute },
      });
    }
    bucket.tokens -= 1;
    if (now - this.lastSweep > 60_000) this.sweep(now);
  }

  /** A bucket full again is the same as no bucket. */
  private sweep(now: number): void {
    this.lastSweep = now;
    const full = 60_000;
    for (const [client, bucket] of this.buckets) if (now - bucket.updated > full) this.buckets.delete(client);
  }
}
