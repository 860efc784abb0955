/**
 * `limit` caps every answer that takes one (the spec: "maximum results"), whatever the limit and
 * however many entities tie: a property test sends random limits (seeded, so a failure repeats)
 * to search, the changes feed and both signal listings, over real HTTP after real scans. Ties are
 * broken by the documented ranking, so an answer at limit L is the first L of the same answer at
 * the largest limit.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Rng } from "../../src/rng.ts";
import { addDays } from "../../src/time.ts";
import { type Running, json, startServices } from "../support/fixture.ts";
import { scan, snapshotOf } from "../signals/support.ts";

let run: Running;
beforeAll(async () => {
  run = await startServices();
  const asOf = snapshotOf(run.dir).manifest.as_of.slice(0, 10);
  await scan(run.dir, run.services.state, addDays(asOf, -1));
  await scan(run.dir, run.services.state, asOf);
});
afterAll(() => run.close());

const rng = new Rng("limit-property");
/** Random limits in [1, max], the bounds included. */
const limits = (max: number, n = 12) => [1, max, ...Array.from({ length: n }, () => rng.int(1, max))];

const search = async (query: string, limit: number) => {
  const { status, body } = await json(await run.request("POST", "/api/search", { query, limit }));
  expect(status).toBe(200);
  return body as { results: { uri: string; similarity: number }[]; total_count: number };
};

describe("limit holds", () => {
  test("search: names that many entities share exactly (USDC, Bitcoin, Ethereum) answer `limit` results, the same first ones every time", async () => {
    for (const query of ["usdc", "bitcoin", "ethereum", "uniswap"]) {
      const all = await search(query, 100);
      // The exact matches alone outnumber small limits: before the fix "usdc" with limit 3 answered 14.
      expect(all.total_count, query).toBeGreaterThan(3);
      for (const limit of limits(100)) {
        const page = await search(query, limit);
        expect(page.results.length, `${query} limit ${limit}`).toBe(Math.min(limit, all.results.length));
        expect(page.results.map((r) => r.uri), `${query} limit ${limit}`).toEqual(all.results.slice(0, limit).map((r) => r.uri));
        expect(page.total_count).toBe(all.total_count);
      }
    }
  });

  test("search: questions answered by meaning never exceed `limit`", async () => {
    for (const query of ["lending protocol on arbitrum", "stablecoin", "korean crypto exchange", "eth staking pool"]) {
      for (const limit of limits(100, 6)) {
        const page = await search(query, limit);
        expect(page.results.length, `${query} limit ${limit}`).toBeLessThanOrEqual(limit);
        expect(page.results.length, `${query} limit ${limit}`).toBeGreaterThan(0);
        const similarities = page.results.map((r) => r.similarity);
        expect(similarities).toEqual([...similarities].sort((a, b) => b - a));
      }
    }
  });

  test("the changes feed: `limit` changes, the newest first, each page the start of the largest", async () => {
    const all = (await json(await run.request("GET", "/api/changes?since_hours=8760&limit=1000"))).body as { changes: { entity_uri: string; ts: string }[] };
    expect(all.changes.length).toBeGreaterThan(20);
    for (const limit of limits(1000)) {
      const page = (await json(await run.request("GET", `/api/changes?since_hours=8760&limit=${limit}`))).body as typeof all;
      expect(page.changes.length, `limit ${limit}`).toBe(Math.min(limit, all.changes.length));
      expect(page.changes, `limit ${limit}`).toEqual(all.changes.slice(0, limit));
    }
  });

  test("signals, by type and overview: `limit` signals, the strongest first, each page the start of the largest", async () => {
    for (const path of ["/api/insights/signals/developer-network", "/api/insights/signals/co-investment-network", "/api/insights/signals"]) {
      const all = (await json(await run.request("GET", `${path}?qualification=all&since_hours=8760&limit=500`))).body as { signals: { signal_id: string }[] };
      expect(all.signals.length, path).toBeGreaterThan(10);
      for (const limit of limits(500)) {
        const page = (await json(await run.request("GET", `${path}?qualification=all&since_hours=8760&limit=${limit}`))).body as typeof all;
        expect(page.signals.length, `${path} limit ${limit}`).toBe(Math.min(limit, all.signals.length));
        expect(page.signals.map((s) => s.signal_id), `${path} limit ${limit}`).toEqual(all.signals.slice(0, limit).map((s) => s.signal_id));
      }
    }
  });
});
