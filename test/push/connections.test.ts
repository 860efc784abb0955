/**
 * Kept-alive connections per destination (push/connections.ts) through real sends: many webhooks
 * to one receiver share a few connections, each opened to the address the guard checked; when the
 * name resolves elsewhere the next send gets a connection of its own to the new checked address
 * (never a kept socket to the old one); a request given up at its time limit does not leave its
 * connection in the pool; and redirects are still not followed. Receivers on loopback only.
 */
import { afterEach, expect, test } from "bun:test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Connections } from "../../src/push/connections.ts";
import { sendWebhook, type WebhookMessage } from "../../src/push/webhook-send.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A node:http receiver that counts the connections it accepts and the requests on them. */
async function receiver(host: string, port: number, answer: (request: http.IncomingMessage, response: http.ServerResponse) => void) {
  const seen = { connections: 0, requests: 0 };
  const server = http.createServer((request, response) => {
    seen.requests++;
    request.resume();
    request.on("end", () => answer(request, response));
  });
  server.on("connection", () => seen.connections++);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { seen, port: (server.address() as AddressInfo).port };
}

const ok = (_: http.IncomingMessage, response: http.ServerResponse) => response.end("ok");

function message(url: string): WebhookMessage {
  return { url, msgId: "msg_1", timestamp: new Date(), body: JSON.stringify({ type: "signal.new", data: {} }), secrets: [`whsec_${Buffer.alloc(24, 7).toString("base64")}`] };
}

test("many webhooks to one destination share its kept-alive connections, opened to the checked address", async () => {
  const checked = await receiver("127.0.0.2", 0, ok);
  const elsewhere = await receiver("127.0.0.1", checked.port, ok);
  // The guard's lookup says 127.0.0.2; the system's would say 127.0.0.1 for localhost.
  const lookup = async () => [{ address: "127.0.0.2", family: 4 }];
  const connections = new Connections(4);
  cleanups.push(() => connections.close());
  const options = { allowPrivate: true, lookup, agent: (target: Parameters<Connections["agentFor"]>[0]) => connections.agentFor(target) };
  const url = `http://localhost:${checked.port}/hook`;
  const outcomes = [];
  for (let wave = 0; wave < 25; wave++) outcomes.push(...(await Promise.all(Array.from({ length: 4 }, () => sendWebhook(message(url), options)))));
  expect(outcomes.every((o) => o.kind === "delivered")).toBe(true);
  expect(checked.seen.requests).toBe(100);
  expect(checked.seen.connections).toBeLessThanOrEqual(4);
  expect(elsewhere.seen.requests).toBe(0);
  expect(connections.size).toBe(1);
});

test("a name that now resolves elsewhere gets its own connection to the new checked address, not a kept one", async () => {
  const first = await receiver("127.0.0.2", 0, ok);
  const second = await receiver("127.0.0.3", first.port, ok);
  let address = "127.0.0.2";
  const connections = new Connections(4);
  cleanups.push(() => connections.close());
  const options = { allowPrivate: true, lookup: async () => [{ address, family: 4 }], agent: (target: Parameters<Connections["agentFor"]>[0]) => connections.agentFor(target) };
  const url = `http://receiver.test:${first.port}/hook`;
  expect(await sendWebhook(message(url), options)).toEqual({ kind: "delivered", status: 200 });
  address = "127.0.0.3";
  expect(await sendWebhook(message(url), options)).toEqual({ kind: "delivered", status: 200 });
  expect(await sendWebhook(message(url), options)).toEqual({ kind: "delivered", status: 200 });
  expect([first.seen.requests, second.seen.requests]).toEqual([1, 2]);
  expect(second.seen.connections).toBe(1);
  expect(connections.size).toBe(2);
});

test("a request given up at its time limit leaves no connection behind: the next one opens its own; redirects stay unfollowed", async () => {
  let count = 0;
  const target = await receiver("127.0.0.1", 0, (_, response) => {
    count++;
    if (count === 1) return; // never answered
    if (count === 2) {
      response.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" }).end();
      return;
    }
    response.end("ok");
  });
  const connections = new Connections(1);
  cleanups.push(() => connections.close());
  const options = { allowPrivate: true, timeoutMs: 300, agent: (t: Parameters<Connections["agentFor"]>[0]) => connections.agentFor(t) };
  const url = `http://127.0.0.1:${target.port}/hook`;
  expect(await sendWebhook(message(url), options)).toMatchObject({ kind: "retry", error: "timed out" });
  expect(await sendWebhook(message(url), options)).toMatchObject({ kind: "retry", status: 302, error: expect.stringContaining("redirect not followed") });
  expect(await sendWebhook(message(url), options)).toEqual({ kind: "delivered", status: 200 });
  expect(target.seen.requests).toBe(3);
  // The timed-out request's socket was closed; the redirect's answer was read whole, so its socket carried the third.
  expect(target.seen.connections).toBe(2);
});
