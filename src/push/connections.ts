/**
 * @module push/connections
 * Kept-alive connections per destination, on the address the SSRF guard checked. One `http.Agent`
 * (or `https.Agent`) per pair of origin (scheme, host, port) and pinned address, with keepAlive on
 * and at most the destination's concurrency of sockets: a fan-out of thousands of webhooks to one
 * receiver reuses a few connections instead of opening one per request.
 *
 * Why an Agent per (origin, address) and not fetch: fetch pools connections by the URL's host and
 * resolves it itself, so it cannot be told "connect to this checked address, and no other". A
 * node:http Agent whose `lookup` answers only the checked address makes every socket it opens go
 * there (Bun's node:http honours both `lookup` and keepAlive; test/push/webhook-send.test.ts proves
 * it), and keying the Agent by that address means a socket kept alive is never lent to a request
 * whose host now resolves elsewhere: the new address gets an Agent (and connections) of its own.
 * The Host header and the TLS server name stay the URL's host, as without pooling.
 */
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { WebhookTarget } from "./ssrf.ts";

/** An Agent unused this long is closed, its idle sockets with it (longer than any request may take: 60 s). */
const IDLE_MS = 120_000;

interface Pooled {
  agent: http.Agent;
  usedAt: number;
}

export class Connections {
  private readonly agents = new Map<string, Pooled>();
  private readonly sweeper: ReturnType<typeof setInterval>;

  /** `sockets`: the most connections one destination gets (its concurrency). */
  constructor(private readonly sockets: number) {
    this.sweeper = setInterval(() => this.sweep(Date.now() - IDLE_MS), IDLE_MS);
    this.sweeper.unref();
  }

  /** The Agent for a vetted target: its sockets connect to `target.address` only. */
  agentFor(target: WebhookTarget): http.Agent {
    const key = `${target.url.protocol}//${target.url.host}@${target.address}`;
    let pooled = this.agents.get(key);
    if (!pooled) {
      const options = { keepAlive: true, maxSockets: this.sockets, maxFreeSockets: this.sockets, lookup: pinnedLookup(target) };
      pooled = { agent: target.url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options), usedAt: 0 };
      this.agents.set(key, pooled);
    }
    pooled.usedAt = Date.now();
    return pooled.agent;
  }

  /** How many Agents (destination and address pairs) are open: for tests and the benchmark. */
  get size(): number {
    return this.agents.size;
  }

  close(): void {
    clearInterval(this.sweeper);
    this.sweep(Number.POSITIVE_INFINITY);
  }

  private sweep(before: number): void {
    for (const [key, pooled] of this.agents) {
      if (pooled.usedAt >= before) continue;
      pooled.agent.destroy();
      this.agents.delete(key);
    }
  }
}

/** Each target's lookup, made once: a fan-out asks for it on every request. */
const lookups = new WeakMap<Pick<WebhookTarget, "address" | "family">, LookupFunction>();

/** A `lookup` for node:http that answers the vetted address whatever the name, in both of its call forms. */
export function pinnedLookup(target: Pick<WebhookTarget, "address" | "family">): LookupFunction {
  let lookup = lookups.get(target);
  if (!lookup) {
    lookup = (_hostname, options, callback) => {
      if (options.all) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
    lookups.set(target, lookup);
  }
  return lookup;
}
