/**
 * Subscriptions over real HTTP handling (app.handle) on real services: made, read, rotated and
 * deleted with their secret; refused with the documented errors; the outbox a scan writes in its
 * own transaction; and the event stream read by a client no one here wrote (the `eventsource`
 * package, as browsers' EventSource behaves), resuming after dropped connections with no gap.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EventSource } from "eventsource";
import { addDays } from "../../src/time.ts";
import { type Running, json, startServices } from "../support/fixture.ts";
import { republish } from "../support/republish.ts";
import { until } from "../support/until.ts";
import { scan, snapshotOf } from "../signals/support.ts";

let run: Running;
let asOf: string;

beforeAll(async () => {
  run = await startServices({ push_poll_ms: 50, snapshot_poll_ms: 100 });
  asOf = snapshotOf(run.dir).manifest.as_of.slice(0, 10);
});
afterAll(() => run.close());

const subscribe = async (body: unknown) => json(await run.request("POST", "/api/subscriptions", body));
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

describe("POST, GET, DELETE /api/subscriptions", () => {
  test("made with its secret shown once; read, rotated and deleted only with a secret", async () => {
    const made = await subscribe({ filters: { signals: { types: ["stablecoin-depeg"], min_score: 40, entities: ["USD Coin"] } } });
    expect(made.status).toBe(200);
    const { subscription_id: id, secret } = made.body;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(made.body.stream).toBe(true); // no webhook: the stream
    expect(made.body.filters.signals.entities).toEqual([expect.stringMatching(/^https?:\/\//)]);
    expect(Date.parse(made.body.expires_at) - Date.parse(made.body.created_at)).toBe(30 * 86_400_000);

    const read = await json(await run.request("GET", `/api/subscriptions/${id}`, undefined, bearer(secret)));
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty("secret");
    expect(read.body).toMatchObject({ subscription_id: id, status: "active", deliveries: { counts: {}, last_error: null } });

    const wrong = await json(await run.request("GET", `/api/subscriptions/${id}`, undefined, bearer("whsec_not-the-secret")));
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("unauthorized");
    expect((await json(await run.request("GET", `/api/subscriptions/${id}`))).status).toBe(401);
    expect((await json(await run.request("GET", `/api/subscriptions/sub_doesnotexist000`, undefined, bearer(secret)))).status).toBe(404);

    const rotated = await json(await run.request("POST", `/api/subscriptions/${id}/secret`, {}, bearer(secret)));
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(secret);
    // Both sign for a day: both read it.
    for (const s of [secret, rotated.body.secret]) expect((await run.request("GET", `/api/subscriptions/${id}`, undefined, bearer(s))).status).toBe(200);

    const deleted = await json(await run.request("DELETE", `/api/subscriptions/${id}`, undefined, bearer(rotated.body.secret)));
    expect(deleted.body).toEqual({ subscription_id: id, status: "deleted" });
    expect((await run.request("GET", `/api/subscriptions/${id}`, undefined, bearer(secret))).status).toBe(404);
  });

  test("refused before it is made (and so before any payment): unknown type or entity, no delivery, a webhook to loopback", async () => {
    const cases: [unknown, number, string][] = [
      [{ filters: { signals: { types: ["no-such-type"] } } }, 404, "unknown_signal_type"],
      [{ filters: { signals: { entities: ["Nothing Named This Way"] } } }, 404, "entity_not_found"],
      [{ stream: false }, 400, "invalid_request"],
      [{ webhook_url: "http://127.0.0.1:9/hook" }, 400, "invalid_request"],
      [{ webhook_url: "ftp://example.com/hook" }, 400, "invalid_request"],
      [{ filters: { signals: { min_score: 101 } } }, 400, "invalid_request"],
      [{ filters: { colour: "red" } }, 400, "invalid_request"],
    ];
    for (const [body, status, code] of cases) {
      const answer = await subscribe(body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body.error.code, JSON.stringify(body)).toBe(code);
    }
    const count = await run.services.state.get<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM subscriptions");
    expect(count!.n).toBe(1); // the first test's, deleted; none of these
  });
});

describe("the outbox and the event stream", () => {
  test("a scan's events are written with its signals, one per signal found, and the stream replays and follows them with no gap across dropped connections", async () => {
    const made = await subscribe({ filters: { signals: {} }, stream: true });
    const { subscription_id: id, secret } = made.body;

    // The client: EventSource, which reconnects with Last-Event-ID by itself. Its transport is the
    // app's real handler; every connection is cut after 25 events, as a proxy dropping it would.
    const received: { id: string; type: string; signal_id: string }[] = [];
    let connections = 0;
    const lastEventIds: (string | null)[] = [];
    const source = new EventSource(`http://127.0.0.1:8402/api/events?subscription_id=${id}`, {
      fetch: async (url, init) => {
        connections++;
        const headers = new Headers(init?.headers);
        lastEventIds.push(headers.get("last-event-id"));
        headers.set("authorization", `Bearer ${secret}`);
        const response = await run.app.handle(new Request(String(url), { ...init, headers }));
        return new Response(cutAfter(response.body!, 25), { status: response.status, headers: response.headers });
      },
    });
    for (const type of ["signal.new", "signal.updated", "signal.ended"]) {
      source.addEventListener(type, (e) => received.push({ id: e.lastEventId, type, signal_id: JSON.parse(e.data).data.signal_id }));
    }
    try {
      await until("the stream to open", 10_000, () => connections > 0 && source.readyState === EventSource.OPEN);
      await scan(run.dir, run.services.state, addDays(asOf, -1));
      const scanId = (await run.services.state.get<{ scan_id: string }>("SELECT scan_id FROM scans ORDER BY started_at DESC LIMIT 1"))!.scan_id;
      // One event per signal the scan made: its signals and their events committed together.
      const signals = await run.services.state.get<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM signal_moves WHERE scan_id = ? AND from_state IS NULL", [scanId]);
      const events = await run.services.state.all<{ signal_id: string; type: string }>("SELECT signal_id, type FROM signal_events WHERE scan_id = ? ORDER BY id", [scanId]);
      expect(signals!.n).toBeGreaterThan(10);
      expect(events.length).toBe(signals!.n);
      expect(new Set(events.map((e) => e.type))).toEqual(new Set(["signal.new"]));

      await until(`all ${events.length} events on the stream`, 60_000, () => received.length >= events.length, { seen: () => received.length });
      expect(received.map((r) => r.signal_id)).toEqual(events.map((e) => e.signal_id));
      // Cut every 25 events, it reconnected each time from the last id it had.
      expect(connections).toBeGreaterThanOrEqual(Math.floor(events.length / 25));
      expect(lastEventIds[0]).toBeNull();
      for (let i = 1; i < lastEventIds.length; i++) expect(lastEventIds[i]).not.toBeNull();
      expect(new Set(received.map((r) => r.id)).size).toBe(received.length);
    } finally {
      source.close();
    }
  });

  test("an id that is not a cursor is a 400; a stream on a subscription without one is refused", async () => {
    const made = await subscribe({ stream: true });
    const bad = await run.request("GET", `/api/events?subscription_id=${made.body.subscription_id}`, undefined, { ...bearer(made.body.secret), "last-event-id": "yesterday" });
    expect(bad.status).toBe(400);
    const none = await run.request("GET", `/api/events?subscription_id=${made.body.subscription_id}&secret=wrong-secret-here`);
    expect(none.status).toBe(401);
  });
});

test("graph changes reach a stream that asked for them, by operation; signals do not when it said signals: false", async () => {
  const made = await subscribe({ filters: { signals: false, changes: { operations: ["CREATE"] } }, stream: true });
  const response = await run.request("GET", `/api/events?subscription_id=${made.body.subscription_id}`, undefined, bearer(made.body.secret));
  const reader = response.body!.getReader();
  const events: { type: string; data: { operation: string; snapshot_id: string; entity_uri: string } }[] = [];
  let text = "";
  const reading = (async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += new TextDecoder().decode(chunk.value);
      const blocks = text.split("\n\n");
      text = blocks.pop()!;
      for (const block of blocks) {
        const data = block.split("\n").find((line) => line.startsWith("data: "));
        if (data) events.push(JSON.parse(data.slice(6)));
      }
    }
  })();
  try {
    const id = await republish(run);
    await scan(run.dir, run.services.state, addDays(asOf, 1));
    const want = await run.services.state.all<{ entity_uri: string }>("SELECT entity_uri FROM changes WHERE snapshot_id = ? AND operation = 'CREATE' ORDER BY id", [id]);
    expect(want.length).toBeGreaterThan(0);
    await until(`the ${want.length} CREATE changes on the stream`, 60_000, () => events.length >= want.length, { seen: () => events.length });
    expect(events.map((e) => e.data.entity_uri)).toEqual(want.map((w) => w.entity_uri));
    expect(new Set(events.map((e) => `${e.type} ${e.data.operation} ${e.data.snapshot_id}`))).toEqual(new Set([`change CREATE ${id}`]));
  } finally {
    await reader.cancel();
    await reading.catch(() => undefined);
  }
});

/**
 * The stream, ended after `n` SSE events, as a dropped connection would end it; the server's
 * reconnection hint (2 s) is shortened so the client comes back at once.
 */
function cutAfter(body: ReadableStream<Uint8Array>, n: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let seen = 0;
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      const text = decoder.decode(value, { stream: true }).replace(/^retry: \d+$/m, "retry: 10");
      controller.enqueue(encoder.encode(text));
      seen += text.match(/^id: /gm)?.length ?? 0;
      if (seen >= n) {
        await reader.cancel();
        controller.close();
      }
    },
  });
}

describe("POST /api/subscriptions/{id}/secret", () => {
  test("rotating a secret with no body is an empty input, as {} is: the id is in the path, the secret in Authorization", async () => {
    const made = await subscribe({ stream: true });
    let secret: string = made.body.secret;
    const id: string = made.body.subscription_id;
    for (const body of [undefined, "", "  \n"]) {
      const rotated = await json(await run.request("POST", `/api/subscriptions/${id}/secret`, body, bearer(secret)));
      expect(rotated.status).toBe(200);
      expect(rotated.body).toEqual({ subscription_id: id, secret: expect.stringMatching(/^whsec_/) });
      expect((await run.request("GET", `/api/subscriptions/${id}`, undefined, bearer(rotated.body.secret))).status).toBe(200);
      secret = rotated.body.secret;
    }
    // Still judged as any input: no secret is 401, a body that is not an object is 400; a POST with fields of its own still needs a body.
    expect((await run.request("POST", `/api/subscriptions/${id}/secret`)).status).toBe(401);
    expect((await json(await run.request("POST", `/api/subscriptions/${id}/secret`, "[1]", bearer(secret)))).status).toBe(400);
    const openapi = (await json(await run.request("GET", "/openapi.json"))).body;
    expect(openapi.paths["/api/subscriptions/{subscription_id}/secret"].post.requestBody.required).toBe(false);
    expect(openapi.paths["/api/subscriptions"].post.requestBody.required).toBe(true);
    expect((await json(await run.request("POST", "/api/explore", ""))).body.error.details).toEqual({ body: "empty" });
  });
});
