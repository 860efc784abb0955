/**
 * subscriptions/listen (protocol 2026-07-28) on /mcp, with the official v2 client on a real port:
 * an agent that listens on ckg://signals/<type> hears that type's signals as a scan commits them,
 * and nothing of other types; each open listen stream is one listener of the event feed, given
 * back when the stream ends, whether the client closes it or the server ends it on shutdown.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { type Client, type McpSubscription, SUBSCRIPTION_ID_META_KEY } from "@modelcontextprotocol/client";
import { EVENT_META } from "../../src/mcp/listen.ts";
/** What a listen notification says of an event (mcp/listen.ts pointerOf). */
type Pointer = { id: string; type: string; timestamp: string; signal_id?: string; signal_type?: string };
import { encodeCursor } from "../../src/push/events.ts";
import { headCursor } from "../../src/push/feed.ts";
import { selfCommand } from "../../src/runtime.ts";
import { createServer } from "../../src/supervisor/assemble.ts";
import { type Running, copyOfFixture, startServices } from "../support/fixture.ts";
import { startServer } from "../support/server.ts";
import { until } from "../support/until.ts";
import { scan, snapshotOf } from "../signals/support.ts";
import { connectV2 } from "./clients.ts";

/** Two types the fixture's scan finds signals of (each of the 28 has some). */
const HEARD = "stablecoin-depeg";
const OTHER = "power-concentration";

let running: Running;
let app: ReturnType<typeof createServer>;
let url: string;
const clients: Client[] = [];

beforeAll(async () => {
  // No scan yet: the one below is what the listeners hear.
  running = await startServices({ port: 0 });
  let baseUrl: string | undefined;
  app = createServer(running.services, { baseUrl: () => baseUrl! });
  const listening = app.listen({ hostname: "127.0.0.1", port: 0 });
  baseUrl = `http://127.0.0.1:${listening.server!.port}`;
  url = `${baseUrl}/mcp`;
});

afterAll(async () => {
  for (const client of clients) await client.close();
  await app.endStreams();
  await app.stop();
  await running.close();
});

/** A v2 client pinned to 2026-07-28, and what its listen hears (the notifications' params). */
async function listener(uri: string): Promise<{ client: Client; subscription: McpSubscription; heard: { uri: string; _meta?: Record<string, unknown> }[] }> {
  const { client } = await connectV2(url, { mode: { pin: "2026-07-28" } });
  clients.push(client);
  const heard: { uri: string; _meta?: Record<string, unknown> }[] = [];
  client.setNotificationHandler("notifications/resources/updated", (notification) => void heard.push(notification.params));
  const subscription = await client.listen({ resourceSubscriptions: [uri] });
  return { client, subscription, heard };
}

const feed = () => running.services.events;
/** The feed's listeners besides push delivery's own (the server's webhook sender listens from the start). */
const listening = () => feed().listenerCount - 1;

test("the server offers resource subscriptions on 2026-07-28, and a listen is acknowledged for the URIs named", async () => {
  const { client, subscription } = await listener(`ckg://signals/${HEARD}`);
  expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
  expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
  expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [`ckg://signals/${HEARD}`] });
  await subscription.close();
  // ckg://changes, the other resource to listen on, reads as how to hear graph changes and where the feed stands.
  const changes = JSON.parse(String(((await client.readResource({ uri: "ckg://changes" })).contents[0] as { text: string }).text));
  expect(changes.position).toBe(encodeCursor(await headCursor(running.services.state)));
  expect(changes.listen).toContain("subscriptions/listen");
  expect(await subscription.closed).toBe("local");
});

test("a client closing its listen stream gives its listener of the event feed back", async () => {
  await until("no listen stream left open by the test before", 10_000, () => listening() === 0, { seen: listening });
  const { subscription } = await listener(`ckg://signals/${HEARD}`);
  await until("the stream's listener on the feed", 10_000, () => listening() === 1, { seen: listening });
  await subscription.close();
  await until("the listener given back", 10_000, () => listening() === 0, { seen: listening });
});

test("a listen on ckg://signals/<type> hears that type's signals as a scan commits them; a listen on another type hears none of them", async () => {
  const heard = await listener(`ckg://signals/${HEARD}`);
  const other = await listener(`ckg://signals/${OTHER}`);
  // Both streams follow the feed before the scan commits (a listen hears what is committed after it).
  await until("both streams listening on the feed", 10_000, () => listening() === 2, { seen: listening });

  await scan(running.dir, running.services.state, snapshotOf(running.dir).manifest.as_of.slice(0, 10));
  const expected = await running.services.state.all<{ signal_id: string }>("SELECT signal_id FROM signal_events WHERE signal_type = ? ORDER BY id", [HEARD]);
  expect(expected.length).toBeGreaterThan(0);
  await until(`the ${expected.length} ${HEARD} events`, 30_000, () => heard.heard.length >= expected.length, { seen: () => heard.heard.length });

  // Each notification is the resource's update with the event itself, on this subscription.
  const events = heard.heard.map((params) => {
    expect(params.uri).toBe(`ckg://signals/${HEARD}`);
    expect(params._meta?.[SUBSCRIPTION_ID_META_KEY]).toBeDefined();
    return params._meta![EVENT_META] as Pointer;
  });
  expect(events.map((e) => e.type)).toEqual(expected.map(() => "signal.new"));
  expect(events.map((e) => e.signal_id)).toEqual(expected.map((r) => r.signal_id));
  for (const event of events) expect(event.signal_type).toBe(HEARD);
  // A pointer: what happened to which signal, not its content (that is the paid tools').
  expect(Object.keys(events[0]!).sort()).toEqual(["id", "signal_id", "signal_type", "timestamp", "type"]);

  // Once the feed has handed out everything the scan wrote, ending the streams gracefully (as a
  // stopping server does) puts their end behind every notification already sent on them: what
  // the other listen heard by then is all it will hear of this scan.
  const head = encodeCursor(await headCursor(running.services.state));
  await until("the feed past the scan's events", 10_000, () => encodeCursor(feed().position()) === head, { seen: () => feed().position() });
  await app.endStreams();
  expect(await other.subscription.closed).toBe("graceful");
  expect(await heard.subscription.closed).toBe("graceful");
  const otherTypes = new Set(other.heard.map((params) => (params._meta![EVENT_META] as Pointer).signal_type));
  expect(otherTypes.has(HEARD)).toBe(false);
  const otherExpected = await running.services.state.all<{ signal_id: string }>("SELECT signal_id FROM signal_events WHERE signal_type = ? ORDER BY id", [OTHER]);
  expect(other.heard.map((params) => (params._meta![EVENT_META] as Pointer).signal_id)).toEqual(otherExpected.map((r) => r.signal_id));
  expect(other.heard.every((params) => params.uri === `ckg://signals/${OTHER}`)).toBe(true);
  // And the server's end gave both listeners back.
  await until("both listeners given back", 10_000, () => listening() === 0, { seen: listening });
});

test("ckg serve stopping (SIGTERM) ends an open listen stream gracefully and exits 0 (a listen never ends by itself)", async () => {
  const dir = await copyOfFixture();
  const server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), { CKG_LOG_LEVEL: "info", CKG_FIRST_SCAN: "false", CKG_SCAN_CRON: "off" });
  try {
    await server.waitReady(60_000);
    const { client } = await connectV2(`${server.url}/mcp`, { mode: { pin: "2026-07-28" } });
    clients.push(client);
    const subscription = await client.listen({ resourceSubscriptions: ["ckg://changes"] });
    server.process.kill("SIGTERM");
    expect(await subscription.closed).toBe("graceful");
    expect(await server.process.exited).toBe(0);
    await server.drained();
    expect(server.lines().some((l) => l.msg === "stopped")).toBe(true);
  } finally {
    server.process.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
