/**
 * Push delivery across real `ckg serve` processes: a server SIGKILLed while a webhook request is in
 * flight delivers that event after its restart, with the same webhook-id, and the events a scan
 * committed while it was down; two replicas sharing a
 * real PostgreSQL 15 deliver each event to each subscription, and any repeat carries one id. Scans
 * run as `ckg scan` processes, as the scheduler runs them.
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { selfCommand } from "../../src/runtime.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { addDays } from "../../src/time.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { snapshotOf } from "../signals/support.ts";
import { type ServerProcess, startServer } from "../support/server.ts";
import { postgresEngine } from "../support/state-engines.ts";
import { until } from "../support/until.ts";
import { type Receiver, distinct, startReceiver } from "../support/webhook-receiver.ts";

const engine = postgresEngine();
const servers: ServerProcess[] = [];
const receivers: Receiver[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
  for (const receiver of receivers) await receiver.stop();
  await engine.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const ENV = {
  CKG_LOG_LEVEL: "info",
  CKG_SCAN_CRON: "off",
  CKG_FIRST_SCAN: "false",
  CKG_RATE_LIMIT_PER_MINUTE: "0",
  CKG_PUSH_POLL_MS: "100",
  CKG_WEBHOOK_ALLOW_PRIVATE: "true",
  CKG_WEBHOOK_TIMEOUT_MS: "2000",
  CKG_WEBHOOK_FIRST_RETRY_MS: "200",
};

async function serve(dir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), { ...ENV, ...env });
  servers.push(server);
  await server.waitReady(120_000);
  return server;
}

async function subscribe(server: ServerProcess, body: unknown): Promise<{ subscription_id: string; secret: string }> {
  const answer = await fetch(`${server.url}/api/subscriptions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(answer.status).toBe(200);
  return (await answer.json()) as { subscription_id: string; secret: string };
}

async function scanProcess(dir: string, env: Record<string, string> = {}, args: string[] = []): Promise<void> {
  const child = Bun.spawn(selfCommand("scan", "--data-dir", dir, "--trigger", "test", ...args), { env: { ...process.env, ...ENV, ...env }, stdout: "ignore", stderr: "pipe" });
  const code = await child.exited;
  if (code !== 0) throw new Error(`ckg scan exited ${code}: ${await new Response(child.stderr).text()}`);
}

// Types the fixture world fires on both of its last two days.
const TYPES = ["revenue-momentum", "utilization-stress"];

test("a server killed (SIGKILL) mid-delivery delivers the event after its restart, with the same webhook-id, and what was committed while it was down", async () => {
  const dir = await copyOfFixture();
  dirs.push(dir);
  // The first request is held unanswered: the server is killed while it is in flight.
  let release: (() => void) | undefined;
  const receiver = startReceiver({
    answer: (got) => (got === receiver.received[0] ? new Promise<Response>((resolve) => (release = () => resolve(new Response("late")))) : new Response("ok")),
  });
  receivers.push(receiver);
  const first = await serve(dir);
  const made = await subscribe(first, { filters: { signals: { types: TYPES } }, webhook_url: `${receiver.url}/hook` });
  receiver.expect("/hook", [made.secret]);
  const asOf = snapshotOf(dir).manifest.as_of.slice(0, 10);
  await scanProcess(dir, {}, ["--as-of", addDays(asOf, -1)]);
  await until("the first webhook in flight", 60_000, () => receiver.received.length > 0);
  first.process.kill("SIGKILL");
  await first.process.exited;
  release?.();
  // While no server runs, a scan on newer data commits more events: the outbox keeps them.
  await scanProcess(dir, {}, ["--as-of", asOf]);

  const state = openSqliteState(join(dir, "state.sqlite"));
  try {
    const want = await state.all<{ signal_id: string }>(`SELECT signal_id FROM signal_events WHERE signal_type IN ('${TYPES.join("', '")}')`);
    expect(want.length).toBeGreaterThan(1);
    await serve(dir);
    await until("every event delivered after the restart", 90_000, async () => {
      const rows = await state.all<{ status: string }>("SELECT status FROM deliveries WHERE subscription_id = ?", [made.subscription_id]);
      return rows.length === want.length && rows.every((r) => r.status === "delivered");
    });
    const got = distinct(receiver.received, "/hook");
    expect([...got.values()].map((r) => r.body.data.signal_id).sort()).toEqual(want.map((w) => w.signal_id).sort());
    // The held one came again under its id: a repeat the receiver can tell.
    const heldId = receiver.received[0]!.msgId;
    expect(receiver.received.filter((r) => r.msgId === heldId).length).toBeGreaterThanOrEqual(2);
    expect(receiver.unverified).toBe(0);
  } finally {
    await state.close();
  }
});

test("a stopping server (SIGTERM) ends an open event stream with an end event and exits 0", async () => {
  const dir = await copyOfFixture();
  dirs.push(dir);
  const server = await serve(dir);
  const made = await subscribe(server, { stream: true });
  const stream = await fetch(`${server.url}/api/events?subscription_id=${made.subscription_id}`, { headers: { authorization: `Bearer ${made.secret}` } });
  expect(stream.status).toBe(200);
  const reader = stream.body!.getReader();
  let text = new TextDecoder().decode((await reader.read()).value);
  expect(text).toContain(": connected");
  server.process.kill("SIGTERM");
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
  expect(text).toContain("event: end");
  expect(text).toContain("the server is stopping");
  expect(await server.process.exited).toBe(0);
});

test.skipIf(!engine.available)("two replicas on PostgreSQL: each event reaches each subscription, repeats share one id", async () => {
  const url = await engine.freshUrl();
  const dir = await copyOfFixture();
  dirs.push(dir);
  const receiver = startReceiver();
  receivers.push(receiver);
  const env = { CKG_STATE_URL: url };
  const [a, b] = await Promise.all([serve(dir, env), serve(dir, env)]);
  const one = await subscribe(a!, { filters: { signals: { types: TYPES } }, webhook_url: `${receiver.url}/one` });
  const two = await subscribe(b!, { filters: { signals: {} }, webhook_url: `${receiver.url}/two` });
  receiver.expect("/one", [one.secret]);
  receiver.expect("/two", [two.secret]);
  await scanProcess(dir, env);

  const sql = new SQL(url, { max: 1, connection: { search_path: "ckg" } });
  try {
    const all = (await sql.unsafe("SELECT signal_id, signal_type FROM signal_events")) as { signal_id: string; signal_type: string }[];
    const wantOne = all.filter((e) => TYPES.includes(e.signal_type)).map((e) => e.signal_id).sort();
    const wantTwo = all.map((e) => e.signal_id).sort();
    expect(wantOne.length).toBeGreaterThan(0);
    await until("every event at both subscriptions", 90_000, () => distinct(receiver.received, "/one").size === wantOne.length && distinct(receiver.received, "/two").size === wantTwo.length, {
      seen: () => ({ one: distinct(receiver.received, "/one").size, two: distinct(receiver.received, "/two").size, wantOne: wantOne.length, wantTwo: wantTwo.length }),
    });
    expect([...distinct(receiver.received, "/one").values()].map((r) => r.body.data.signal_id).sort()).toEqual(wantOne);
    expect([...distinct(receiver.received, "/two").values()].map((r) => r.body.data.signal_id).sort()).toEqual(wantTwo);
    expect(receiver.unverified).toBe(0);
    // Both replicas ran the fan-out: each (subscription, event) was made one delivery, recorded delivered.
    const delivered = async () => ((await sql.unsafe("SELECT count(*)::int AS n FROM deliveries WHERE status = 'delivered'")) as { n: number }[])[0]!.n;
    await until("every delivery recorded delivered", 30_000, async () => (await delivered()) === wantOne.length + wantTwo.length, { seen: () => "" });
    const [rows] = (await sql.unsafe("SELECT count(*)::int AS n FROM deliveries")) as { n: number }[];
    expect(rows!.n).toBe(wantOne.length + wantTwo.length);
  } finally {
    await sql.close();
  }
});
