/**
 * The signal routes over real HTTP handling (app.handle), after real scans: spec shapes, filters,
 * errors in the documented shape, the free overview and catalog, entity insights and the batch.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addDays } from "../../src/time.ts";
import { DETECTORS } from "../../src/signals/detectors/index.ts";
import { ACTIONABILITY } from "../../src/signals/narratives.ts";
import { SYNTHETIC_MARK } from "../../src/signals/synthetic.ts";
import { type Running, json, startServices } from "../support/fixture.ts";
import { scan, snapshotOf } from "./support.ts";

let running: Running;

beforeAll(async () => {
  running = await startServices();
  const asOf = snapshotOf(running.dir).manifest.as_of.slice(0, 10);
  await scan(running.dir, running.services.state, addDays(asOf, -1));
  await scan(running.dir, running.services.state, asOf);
});

afterAll(async () => {
  await running.close();
});

const get = async (path: string) => json(await running.request("GET", path));

describe("GET /api/insights/signals/{slug}", () => {
  test("answers {signals, count} for each of the 28 slugs, strongest first", async () => {
    for (const { slug } of DETECTORS) {
      const { status, body } = await get(`/api/insights/signals/${slug}?qualification=all&limit=500`);
      expect(status).toBe(200);
      expect(body.count).toBe(body.signals.length);
      expect(body.count, slug).toBeGreaterThan(0);
      for (const s of body.signals) {
        expect(Object.keys(s)).toEqual(expect.arrayContaining(["signal_id", "signal_type", "synthetic", "entities", "score", "evidence", "created_at", "qualification"]));
        expect(s.signal_type).toBe(slug);
        // The fixture is demo data: every signal says so at its top and at the end of its summary.
        expect(s.synthetic).toBe(true);
        expect(s.evidence.summary).toEndWith(SYNTHETIC_MARK);
        expect(s.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      }
      const scores = body.signals.map((s: { score: number }) => s.score);
      expect(scores).toEqual([...scores].sort((a: number, b: number) => b - a));
    }
  });

  test("defaults to qualified signals; qualification filters; limit caps", async () => {
    const { body: qualified } = await get("/api/insights/signals/power-concentration");
    expect(qualified.signals.length).toBeGreaterThan(0);
    for (const s of qualified.signals) expect(s.qualification).toBe("qualified");
    const { body: all } = await get("/api/insights/signals/developer-network?qualification=all&limit=3");
    expect(all.count).toBe(3);
    expect(all.total).toBeGreaterThan(3);
    // One-day yield spikes wait screened for a second day: the filter keeps them and leaves the rest.
    const { body: spikes } = await get("/api/insights/signals/yield-anomaly?qualification=screened");
    expect(spikes.signals.length).toBeGreaterThan(0);
    for (const s of spikes.signals) expect(s.qualification).toBe("screened");
    const { body: screened } = await get("/api/insights/signals?qualification=screened&limit=500");
    const { body: every } = await get("/api/insights/signals?qualification=all&limit=500");
    for (const s of screened.signals) expect(s.qualification).toBe("screened");
    expect(every.total).toBeGreaterThan(screened.total);
  });

  test("an unknown slug is 404 unknown_signal_type; bad parameters are 400", async () => {
    const unknown = await get("/api/insights/signals/moon-signal");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("unknown_signal_type");
    for (const bad of ["limit=0", "limit=501", "since_hours=0", "qualification=maybe", "since_hours=abc"]) {
      const { status, body } = await get(`/api/insights/signals/yield-anomaly?${bad}`);
      expect(status).toBe(400);
      expect(body.error.code).toBe("invalid_request");
    }
  });
});

describe("GET /api/insights/signals (overview)", () => {
  test("lists across types with counts per type, filters by type and entity", async () => {
    const { status, body } = await get("/api/insights/signals?qualification=all&limit=20");
    expect(status).toBe(200);
    expect(body.count).toBe(20);
    expect(Object.keys(body.by_type).length).toBeGreaterThan(20);
    const one = await get("/api/insights/signals?signal_type=yield-anomaly&qualification=all");
    for (const s of one.body.signals) expect(s.signal_type).toBe("yield-anomaly");
    const uri = one.body.signals[0].entities[0];
    const byEntity = await get(`/api/insights/signals?qualification=all&entity=${encodeURIComponent(uri)}`);
    expect(byEntity.body.entity.uri).toBe(uri);
    expect(byEntity.body.signals.length).toBeGreaterThan(0);
    for (const s of byEntity.body.signals) expect(s.entities).toContain(uri);
    const unknown = await get("/api/insights/signals?entity=Nothing%20Such%20Coin");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("entity_not_found");
  });
});

describe("GET /api/insights/entity/{entity_name}", () => {
  test("returns the entity's active signals, narratives and a summary", async () => {
    const { body: top } = await get("/api/insights/signals/narrative-synthesis?qualification=all&limit=50");
    const entityNarrative = top.signals.find((s: { evidence: { scope: string } }) => s.evidence.scope !== "sector");
    const uri = entityNarrative.entities[0];
    const { status, body } = await get(`/api/insights/entity/${encodeURIComponent(uri)}`);
    expect(status).toBe(200);
    expect(body.entity.uri).toBe(uri);
    expect(body.signals.length).toBeGreaterThanOrEqual(2);
    expect(body.summary.signals).toBe(body.signals.length);
    expect(body.summary.text).toContain(body.entity.name);
    expect(body.narratives.length).toBeGreaterThanOrEqual(1);
    for (const n of body.narratives) {
      // The offline writer's title opens with the narrative's rating.
      expect(n.title).toStartWith(`${n.actionability[0].toUpperCase()}${n.actionability.slice(1)}:`);
      expect(n.synthetic).toBe(true);
      expect(n.text).toEndWith(SYNTHETIC_MARK);
    }
    // The summary rates the entity as the most urgent of its own narratives (not its sector's).
    const own = body.narratives.filter((n: { scope: string }) => n.scope !== "sector").map((n: { actionability: (typeof ACTIONABILITY)[number] }) => n.actionability);
    expect(own.length).toBeGreaterThan(0);
    expect(body.summary.actionability).toBe(ACTIONABILITY.find((a) => own.includes(a)));
    expect(body.summary.text).toContain(`Narratives rate it ${body.summary.actionability}.`);
    expect(body.summary.synthetic).toBe(true);
    expect(body.summary.text).toEndWith(SYNTHETIC_MARK);
    expect(body.summary.time_series_tables.length).toBeGreaterThan(0);
    // By name as well as by URI.
    const byName = await get(`/api/insights/entity/${encodeURIComponent(body.entity.name)}`);
    expect(byName.status).toBe(200);
  });

  test("an unknown entity is 404 with suggestions", async () => {
    const { status, body } = await get("/api/insights/entity/Aavee");
    expect(status).toBe(404);
    expect(body.error.code).toBe("entity_not_found");
    expect(Array.isArray(body.error.details.suggestions)).toBe(true);
  });
});

describe("POST /api/insights/batch", () => {
  test("analyses each entity; an unknown name gets its own not_found entry", async () => {
    const { status, body } = await json(await running.request("POST", "/api/insights/batch", { entities: ["Aave", "Nothing Such Coin"] }));
    expect(status).toBe(200);
    expect(body.count).toBe(2);
    expect(body.results[0].status).toBe("found");
    expect(body.results[0].analysis.entity.name).toBe("Aave");
    // Aave is real: the demo puts no figures on it, and the answer says there are none yet.
    expect(body.results[0].analysis.signals).toEqual([]);
    expect(body.results[0].analysis.summary).toMatchObject({ synthetic: false, time_series_tables: [] });
    expect(body.results[0].analysis.summary.text).toContain("No time-series data yet");
    expect(body.results[1]).toMatchObject({ query: "Nothing Such Coin", status: "not_found", error: { code: "entity_not_found" } });
  });

  test("more than 10 entities, or none, is 422 too_many_entities", async () => {
    for (const entities of [Array.from({ length: 11 }, (_, i) => `e${i}`), []]) {
      const { status, body } = await json(await running.request("POST", "/api/insights/batch", { entities }));
      expect(status).toBe(422);
      expect(body.error.code).toBe("too_many_entities");
    }
    const bad = await json(await running.request("POST", "/api/insights/batch", { entities: "Aave" }));
    expect(bad.status).toBe(400);
  });
});

describe("GET /api/signals/catalog", () => {
  test("has the 28 definitions with category, scoring criteria and evidence schema", async () => {
    const { status, body } = await get("/api/signals/catalog");
    expect(status).toBe(200);
    expect(body.count).toBe(28);
    expect(body.signal_types.map((t: { slug: string }) => t.slug)).toEqual(DETECTORS.map((d) => d.slug));
    for (const t of body.signal_types) {
      expect(t.description.length).toBeGreaterThan(20);
      expect(t.scoring.bands.high).toContain("score 75-100");
      expect(t.evidence_schema.type).toBe("object");
      expect(t.evidence_schema.required).toEqual(expect.arrayContaining(["severity", "metric", "value", "window", "data_points"]));
    }
  });
});
