/**
 * One webhook attempt against real receivers on loopback (Bun.serve on port 0, a raw TLS server):
 * every signature checked with standardwebhooks' own `Webhook.verify`, each way an attempt can end,
 * the connection pinned to the address the guard checked, and no socket at all when the guard
 * refuses. Only loopback receives traffic: where a test names another address, the connection
 * functions are replaced by ones that record and refuse, so nothing could leave even if the code
 * tried.
 */
import { afterEach, describe, expect, test } from "bun:test";
import net from "node:net";
import tls from "node:tls";
import { Webhook } from "standardwebhooks";
import { type ResolvedAddress } from "../../src/push/ssrf.ts";
import { backoffMs, parseRetryAfter, sendWebhook, type WebhookMessage } from "../../src/push/webhook-send.ts";
import { portFromOs } from "../support/ports.ts";

interface Received {
  headers: Record<string, string>;
  body: string;
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A receiver on 127.0.0.1 (or `hostname`) that records each request and answers with `answer`. */
function receiver(answer: (count: number) => Response | Promise<Response>, hostname = "127.0.0.1", port = 0) {
  const received: Received[] = [];
  const server = Bun.serve({
    hostname,
    port,
    async fetch(request) {
      received.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
      return answer(received.length);
    },
  });
  cleanups.push(() => void server.stop(true));
  return { url: `http://${hostname}:${server.port}/hook`, port: server.port, received };
}

function secret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64")}`;
}

function message(url: string, secrets = [secret()]): WebhookMessage & { body: string } {
  const body = JSON.stringify({ id: "7-12", type: "signal.new", timestamp: "2026-11-26T10:00:00Z", data: { signal_id: "s1" } });
  return { url, msgId: "msg_7-12", timestamp: new Date(), body, secrets };
}

const LOOPBACK = { allowPrivate: true };

/** A lookup that answers `addresses` in turn (the last one from then on) and counts its calls. */
function lookupAnswering(...addresses: string[]) {
  let calls = 0;
  const lookup = async (): Promise<ResolvedAddress[]> => {
    const address = addresses[Math.min(calls++, addresses.length - 1)] as string;
    return [{ address, family: net.isIP(address) }];
  };
  return { lookup, calls: () => calls };
}

/**
 * Replaces every way to open a TCP or TLS connection with one that records the attempt; unless
 * `passThrough`, it then refuses, so that a test naming an address off loopback cannot send to it.
 * (Plain replacement, not bun:test's spyOn: spying on Socket.prototype.connect that way made the
 * send overflow the stack under Bun 1.4.5.)
 */
function watchConnections(passThrough: boolean) {
  const attempts: unknown[] = [];
  const replace = (owner: object, name: string) => {
    const target = owner as Record<string, (...args: unknown[]) => unknown>;
    const original = target[name] as (...args: unknown[]) => unknown;
    target[name] = function (this: unknown, ...args: unknown[]) {
      attempts.push(args[0]);
      if (!passThrough) throw new Error("test: no connection may be opened here");
      return original.apply(this, args);
    };
    cleanups.push(() => {
      target[name] = original;
    });
  };
  replace(net.Socket.prototype, "connect");
  replace(net, "connect");
  replace(net, "createConnection");
  replace(tls, "connect");
  return attempts;
}

describe("a signed delivery", () => {
  test("every signature verifies with standardwebhooks, one per secret (key rotation)", async () => {
    const secrets = [secret(), secret()];
    const { url, received } = receiver(() => new Response("ok"));
    const sent = message(url, secrets);
    expect(await sendWebhook(sent, { ...LOOPBACK, userAgent: "ckg-test" })).toEqual({ kind: "delivered", status: 200 });

    expect(received).toHaveLength(1);
    const { headers, body } = received[0] as Received;
    expect(body).toBe(sent.body);
    expect(headers).toMatchObject({
      "content-type": "application/json",
      "user-agent": "ckg-test",
      "webhook-id": "msg_7-12",
      "webhook-timestamp": String(Math.floor(sent.timestamp.getTime() / 1000)),
    });
    const signatures = (headers["webhook-signature"] as string).split(" ");
    expect(signatures).toHaveLength(2);
    signatures.forEach((signature, index) => {
      expect(signature).toStartWith("v1,");
      // Each signature alone verifies with its own secret and not with the other one.
      const alone = { ...headers, "webhook-signature": signature };
      expect(new Webhook(secrets[index] as string).verify(body, alone)).toEqual(JSON.parse(sent.body));
      expect(() => new Webhook(secrets[1 - index] as string).verify(body, alone)).toThrow("No matching signature");
      // The header as sent verifies with either secret: the receiver can hold the old or the new one.
      expect(new Webhook(secrets[index] as string).verify(body, headers)).toEqual(JSON.parse(sent.body));
    });
  });

  test("a body given as bytes (a fan-out encodes it once) is sent and signed byte for byte", async () => {
    const { url, received } = receiver(() => new Response("ok"));
    const text = JSON.stringify({ type: "signal.new", timestamp: "2026-11-26T10:00:00Z", data: { name: "Tether Gold · XAU₮" } });
    const sent = { ...message(url), body: Buffer.from(text) };
    expect(await sendWebhook(sent, LOOPBACK)).toEqual({ kind: "delivered", status: 200 });
    const { headers, body } = received[0] as Received;
    expect(body).toBe(text);
    expect(new Webhook(sent.secrets[0] as string).verify(body, headers)).toEqual(JSON.parse(text));
  });

  test("a retry carries the same message id, signed afresh", async () => {
    const { url, received } = receiver((count) => new Response(count === 1 ? "busy" : "ok", { status: count === 1 ? 503 : 204 }));
    const sent = message(url);
    expect(await sendWebhook(sent, LOOPBACK)).toEqual({ kind: "retry", status: 503, error: "HTTP 503: busy" });
    expect(await sendWebhook(sent, LOOPBACK)).toEqual({ kind: "delivered", status: 204 });
    expect(received.map((request) => request.headers["webhook-id"])).toEqual(["msg_7-12", "msg_7-12"]);
    for (const { headers, body } of received) expect(new Webhook(sent.secrets[0] as string).verify(body, headers)).toBeDefined();
  });

  test("without a secret nothing is sent: that is the caller's mistake, thrown", async () => {
    const { url, received } = receiver(() => new Response("ok"));
    await expect(sendWebhook(message(url, []), LOOPBACK)).rejects.toThrow("at least one signing secret");
    expect(received).toHaveLength(0);
  });
});

describe("how an attempt ends", () => {
  test("410 is gone", async () => {
    const { url } = receiver(() => new Response("unsubscribed", { status: 410 }));
    expect(await sendWebhook(message(url), LOOPBACK)).toEqual({ kind: "gone", status: 410 });
  });

  test("429 with Retry-After in seconds is a retry after that long", async () => {
    const { url } = receiver(() => new Response("slow down", { status: 429, headers: { "retry-after": "7" } }));
    expect(await sendWebhook(message(url), LOOPBACK)).toEqual({ kind: "retry", status: 429, retryAfterMs: 7000, error: "HTTP 429: slow down" });
  });

  test("503 with Retry-After as an HTTP date is measured against the clock", async () => {
    const now = Date.UTC(2030, 0, 1, 12, 0, 0);
    const { url } = receiver(() => new Response("", { status: 503, headers: { "retry-after": new Date(now + 90_000).toUTCString() } }));
    expect(await sendWebhook(message(url), { ...LOOPBACK, now: () => now })).toEqual({ kind: "retry", status: 503, retryAfterMs: 90_000, error: "HTTP 503" });
  });

  test("Retry-After counts on any status that sends it; 500 and 400 are retries", async () => {
    const { url } = receiver((count) => new Response("no", count === 1 ? { status: 500, headers: { "retry-after": "3" } } : { status: 400 }));
    expect(await sendWebhook(message(url), LOOPBACK)).toEqual({ kind: "retry", status: 500, retryAfterMs: 3000, error: "HTTP 500: no" });
    expect(await sendWebhook(message(url), LOOPBACK)).toEqual({ kind: "retry", status: 400, error: "HTTP 400: no" });
  });

  test("a redirect is not followed: the attempt failed and the target never hears of it", async () => {
    const target = receiver(() => new Response("ok"));
    const { url, received } = receiver(() => new Response(null, { status: 302, headers: { location: target.url } }));
    expect(await sendWebhook(message(url), LOOPBACK)).toEqual({ kind: "retry", status: 302, error: `redirect not followed: HTTP 302 to ${target.url}` });
    expect(received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });

  test("a receiver that never answers: the attempt times out", async () => {
    const { url } = receiver(() => new Promise<Response>(() => {}));
    expect(await sendWebhook(message(url), { ...LOOPBACK, timeoutMs: 300 })).toEqual({ kind: "retry", error: "timed out" });
  });

  test("a refused connection is a retry", async () => {
    const port = await portFromOs();
    const outcome = await sendWebhook(message(`http://127.0.0.1:${port}/hook`), LOOPBACK);
    expect(outcome).toMatchObject({ kind: "retry", error: expect.stringContaining("ECONNREFUSED") });
    expect(outcome).not.toHaveProperty("status");
  });

  test("an endless body is read only so far: the status decides and the error quotes a little", async () => {
    const chunk = new TextEncoder().encode("x".repeat(65_536));
    const { url } = receiver(() => new Response(new ReadableStream({ pull: (controller) => controller.enqueue(chunk) }), { status: 500 }));
    // Reading to the end would never finish: the outcome would be "timed out", not the status.
    const outcome = await sendWebhook(message(url), { ...LOOPBACK, timeoutMs: 60_000 });
    expect(outcome).toEqual({ kind: "retry", status: 500, error: `HTTP 500: ${"x".repeat(200)}…` });
  });
});

describe("the connection goes where the guard looked", () => {
  test("to the address checked, not to a second lookup (DNS rebinding), with the URL's Host", async () => {
    // The checked answer is 127.0.0.2; any later lookup (ours again, or the system's for localhost) says 127.0.0.1.
    const elsewhere = receiver(() => new Response("wrong place"), "127.0.0.1");
    const checked = receiver(() => new Response("ok"), "127.0.0.2", elsewhere.port);
    const { lookup, calls } = lookupAnswering("127.0.0.2", "127.0.0.1");
    const outcome = await sendWebhook(message(`http://localhost:${checked.port}/hook`), { ...LOOPBACK, lookup });
    expect(outcome).toEqual({ kind: "delivered", status: 200 });
    expect(checked.received.map((request) => request.headers.host)).toEqual([`localhost:${checked.port}`]);
    expect(elsewhere.received).toHaveLength(0);
    expect(calls()).toBe(1);
  });

  test("over TLS the server name is the URL's host, the socket the checked address", async () => {
    let serverName: string | undefined;
    // No certificate: the handshake stops after the client's hello, which is all this test reads.
    const server = tls.createServer({
      SNICallback(name, callback) {
        serverName = name;
        callback(new Error("no certificate here"), undefined);
      },
    });
    server.on("tlsClientError", () => {});
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => void server.close());
    const { port } = server.address() as net.AddressInfo;
    const { lookup } = lookupAnswering("127.0.0.1");
    const outcome = await sendWebhook(message(`https://receiver.test:${port}/hook`), { ...LOOPBACK, lookup });
    expect(outcome).toMatchObject({ kind: "retry", error: expect.any(String) });
    expect(serverName).toBe("receiver.test");
  });

  test("the connection watch sees a connection when one is made (so its silence below means something)", async () => {
    const { url } = receiver(() => new Response("ok"));
    const attempts = watchConnections(true);
    expect(await sendWebhook(message(url), LOOPBACK)).toEqual({ kind: "delivered", status: 200 });
    expect(attempts.length).toBeGreaterThan(0);
  });

  test.each([
    ["http://internal.example:80/hook", "10.0.0.5", false, "private (10.0.0.0/8)"],
    ["https://internal.example/hook", "192.168.1.1", false, "private (192.168.0.0/16)"],
    ["http://metadata.example/latest", "169.254.169.254", true, "cloud metadata (169.254.169.254)"],
    ["http://internal.example/hook", "::ffff:10.0.0.1", false, "IPv4-mapped 10.0.0.1: private (10.0.0.0/8)"],
  ])("%s resolving to %s is refused without a socket (allowPrivate %p)", async (url, address, allowPrivate, reason) => {
    const attempts = watchConnections(false);
    const { lookup, calls } = lookupAnswering(address);
    const outcome = await sendWebhook(message(url), { allowPrivate, lookup });
    expect(outcome).toEqual({ kind: "refused", reason: `${new URL(url).hostname} resolves to ${address}: ${reason}` });
    expect(attempts).toEqual([]);
    expect(calls()).toBe(1);
  });

  test("a loopback literal without the allowance is refused without a socket", async () => {
    const { url, received } = receiver(() => new Response("ok"));
    const attempts = watchConnections(false);
    expect(await sendWebhook(message(url), { allowPrivate: false })).toEqual({ kind: "refused", reason: "loopback (127.0.0.0/8)" });
    expect(attempts).toEqual([]);
    expect(received).toHaveLength(0);
  });

  test("a lookup that fails is a retry, not a refusal", async () => {
    const lookup = async (): Promise<ResolvedAddress[]> => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND nowhere.example"), { code: "ENOTFOUND" });
    };
    expect(await sendWebhook(message("https://nowhere.example/"), { allowPrivate: false, lookup })).toEqual({
      kind: "retry",
      error: "DNS lookup failed: getaddrinfo ENOTFOUND nowhere.example",
    });
  });
});

describe("Retry-After", () => {
  const now = Date.UTC(2030, 0, 1);
  test.each([
    ["7", 7000],
    [" 120 ", 120_000],
    ["0", 0],
    [new Date(now + 30_000).toUTCString(), 30_000],
    [new Date(now - 30_000).toUTCString(), 0],
    ["Tue, 01 Jan 2030 00:01:00 GMT", 60_000],
    ["1.5", undefined],
    ["-3", undefined],
    ["soon", undefined],
    ["", undefined],
    [undefined, undefined],
  ])("%p is %p ms", (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe("backoffMs", () => {
  test("the ceiling starts at 5 s, doubles, and stops at 1 hour; a draw is below it, never under 1 s", () => {
    const ceilings = Array.from({ length: 14 }, (_, index) => backoffMs(index + 1, () => 1));
    expect(ceilings).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 1_280_000, 2_560_000, 3_600_000, 3_600_000, 3_600_000, 3_600_000]);
    expect(backoffMs(3, () => 0.5)).toBe(10_000);
    expect(backoffMs(3, () => 0)).toBe(1_000);
    expect(backoffMs(0, () => 1)).toBe(5_000);
    expect(backoffMs(5_000, () => 1)).toBe(3_600_000);
  });

  test("3 days hold 81 attempts when every wait is its ceiling (the fewest there can be)", () => {
    const horizon = 3 * 86_400_000;
    let elapsed = 0;
    let attempts = 1;
    while (elapsed + backoffMs(attempts, () => 1) <= horizon) elapsed += backoffMs(attempts++, () => 1);
    expect(attempts).toBe(81);
  });
});
