/**
 * A webhook receiver on localhost for the push tests: every request's signature is checked with
 * the Standard Webhooks library (`standardwebhooks`, not ours) against the subscription's secrets,
 * and what it got is kept. How it answers is the test's: 200 by default, or any Response (a 503, a
 * 410, a held request) from `answer`.
 */
import { Webhook } from "standardwebhooks";

export interface Received {
  msgId: string;
  /** The path it was sent to: tests give each subscription its own. */
  path: string;
  body: { type: string; timestamp: string; data: Record<string, unknown> };
  /** Which of the secrets the receiver knows for this path verified the request. */
  verifiedBy: string[];
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** The secrets a path's requests must be signed with. */
  expect(path: string, secrets: string[]): void;
  /** Requests whose signature no known secret verified. */
  unverified: number;
  stop(): Promise<void>;
}

export type Answer = (received: Received, attempt: number) => Response | Promise<Response>;

export function startReceiver(options: { port?: number; answer?: Answer } = {}): Receiver {
  const secrets = new Map<string, string[]>();
  const attempts = new Map<string, number>();
  const receiver: Receiver = {
    url: "",
    port: 0,
    received: [],
    unverified: 0,
    expect(path, known) {
      secrets.set(path, known);
    },
    async stop() {
      await server.stop(true);
    },
  };
  const server = Bun.serve({
    port: options.port ?? 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const payload = await request.text();
      const headers = Object.fromEntries(request.headers);
      const verifiedBy = (secrets.get(path) ?? []).filter((secret) => {
        try {
          new Webhook(secret).verify(payload, headers);
          return true;
        } catch {
          return false;
        }
      });
      if (verifiedBy.length === 0) receiver.unverified++;
      const got: Received = { msgId: headers["webhook-id"] ?? "", path, body: JSON.parse(payload), verifiedBy };
      receiver.received.push(got);
      const attempt = (attempts.get(got.msgId) ?? 0) + 1;
      attempts.set(got.msgId, attempt);
      return options.answer ? options.answer(got, attempt) : new Response("ok");
    },
  });
  receiver.port = server.port!;
  receiver.url = `http://127.0.0.1:${server.port}`;
  return receiver;
}

/** The distinct messages a path received, by id (repeats collapse; their bodies must agree). */
export function distinct(received: Received[], path: string): Map<string, Received> {
  const out = new Map<string, Received>();
  for (const r of received.filter((r) => r.path === path)) {
    const before = out.get(r.msgId);
    if (before && JSON.stringify(before.body) !== JSON.stringify(r.body)) throw new Error(`message ${r.msgId} was sent twice with different bodies`);
    out.set(r.msgId, r);
  }
  return out;
}
