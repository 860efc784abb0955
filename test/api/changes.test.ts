import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Running, json, startServices } from "../support/fixture.ts";

let run: Running;
beforeAll(async () => {
  run = await startServices();
});
afterAll(() => run.close());

const changes = (query = "") => run.request("GET", `/api/changes${query}`).then(json);

describe("GET /api/changes", () => {
  test("lists the recent history newest first, with the documented fields", async () => {
    const { status, body } = await changes();
    expect(status).toBe(200);
    expect(body.count).toBeGreaterThan(0);
    expect(body.count).toBeLessThanOrEqual(100);
    const first = body.changes[0];
    expect(Object.keys(first).sort()).toEqual(
      ["changed_fields", "entity_name", "entity_type", "entity_uri", "id", "operation", "source", "timestamp"].sort(),
    );
    const times = body.changes.map((c: any) => c.timestamp);
    expect([...times].sort().reverse()).toEqual(times);
    const since = new Date(body.since).getTime();
    for (const c of body.changes) expect(new Date(c.timestamp).getTime()).toBeGreaterThanOrEqual(since);
  });

  test("pages by cursor without gaps or repeats", async () => {
    const all = await changes("?since_hours=200&limit=1000");
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await changes(`?since_hours=200&limit=37${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.body.changes.map((c: any) => c.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.body.changes.map((c: any) => c.id));
    expect(new Set(seen).size).toBe(seen.length);
  });

  test("filters by operation and by entity", async () => {
    const updates = await changes("?since_hours=200&operation=UPDATE");
    expect(updates.body.changes.every((c: any) => c.operation === "UPDATE")).toBe(true);
    const uri = updates.body.changes[0].entity_uri;
    const one = await changes(`?since_hours=200&entity_uri=${encodeURIComponent(uri)}`);
    expect(one.body.count).toBeGreaterThan(0);
    expect(one.body.changes.every((c: any) => c.entity_uri === uri)).toBe(true);
  });

  test("summary=true counts by operation and entity type, matching the list", async () => {
    const list = await changes("?since_hours=200&limit=1000");
    const { body } = await changes("?since_hours=200&summary=true");
    expect(body.summary.total).toBe(list.body.count);
    expect(body.summary.by_operation.CREATE + body.summary.by_operation.UPDATE).toBe(body.summary.total);
    const types = Object.values<Record<string, number>>(body.summary.by_entity_type);
    expect(types.reduce((sum, t) => sum + (t.CREATE ?? 0) + (t.UPDATE ?? 0), 0)).toBe(body.summary.total);
  });

  test("a narrower window holds fewer changes", async () => {
    const week = await changes("?since_hours=200&summary=true");
    const hour = await changes("?since_hours=1&summary=true");
    expect(hour.body.summary.total).toBeLessThan(week.body.summary.total);
  });

  test.each([
    ["?limit=0", "limit"],
    ["?limit=1001", "limit"],
    ["?limit=abc", "limit"],
    ["?since_hours=0", "since_hours"],
    ["?since_hours=9000", "since_hours"],
    ["?operation=DELETE", "operation"],
    ["?summary=maybe", "summary"],
    ["?cursor=not-a-cursor", "cursor"],
    ["?colour=blue", "colour"],
    ["?limit=5&limit=6", "limit"],
  ])("%s is 400 naming %s", async (query, field) => {
    const { status, body } = await changes(query);
    expect(status).toBe(400);
    expect(body.error.code).toBe("invalid_request");
    expect(JSON.stringify(body.error)).toContain(field);
  });

  test("an unknown entity_uri is 404", async () => {
    const { status, body } = await changes(`?entity_uri=${encodeURIComponent("https://ckg.example/id/token/nope")}`);
    expect(status).toBe(404);
    expect(body.error.code).toBe("entity_not_found");
  });
});
