/**
 * @module push/target-cache
 * Vetted webhook targets kept a short while, by URL: a fan-out of thousands of webhooks to one
 * receiver checks and resolves its URL once, not once per request (a DNS lookup and the guard's
 * checks cost more than the POST on a kept-alive connection). Caching does not weaken the guard:
 * what is kept is the checked address, and every connection goes to it (push/connections.ts); a
 * name that moves is followed once its entry ends. A refusal or a failed lookup is not kept: the
 * next attempt asks again.
 */
import { LRUCache } from "lru-cache";
import type { WebhookTarget } from "./ssrf.ts";

/** How long a resolved target is used: about a DNS record's usual time to live. */
const TARGET_TTL_MS = 10_000;
/** URLs kept at most (the least recently used goes first). */
const MAX_TARGETS = 10_000;

/** A URL's lookup: in flight, or done (its target then handed out with no wait). */
interface Entry {
  resolving: Promise<WebhookTarget>;
  target?: WebhookTarget;
}

export class TargetCache {
  private readonly targets: LRUCache<string, Entry>;

  /** `now`: the clock the time to live is measured on (tests move it). */
  constructor(
    private readonly resolve: (url: string) => Promise<WebhookTarget>,
    { ttlMs = TARGET_TTL_MS, now }: { ttlMs?: number; now?: () => number } = {},
  ) {
    this.targets = new LRUCache({ max: MAX_TARGETS, ttl: ttlMs, ttlResolution: 0, ...(now ? { perf: { now } } : {}) });
  }

  /**
   * The vetted target of `url`: the one resolved in the last `ttlMs` (as a value: the caller needs
   * no timer for it), or a lookup, shared by every caller until it is done.
   */
  target(url: string): WebhookTarget | Promise<WebhookTarget> {
    const kept = this.targets.get(url);
    if (kept) return kept.target ?? kept.resolving;
    const entry: Entry = { resolving: this.resolve(url) };
    this.targets.set(url, entry);
    entry.resolving.then(
      (target) => (entry.target = target),
      () => {
        if (this.targets.peek(url) === entry) this.targets.delete(url);
      },
    );
    return entry.resolving;
  }
}
