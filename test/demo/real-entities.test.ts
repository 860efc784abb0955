/**
 * Real data, told truly, on the world `npm start` builds (default scale, seed 42): no synthetic
 * entity takes a real entity's name or ticker; no made-up series row or planted anomaly is about a
 * real entity; insights and explore for real entities (Aave, USDT/Tether, Arbitrum One) carry no
 * synthetic figures and say there are none yet; every signal of the demo says it is synthetic, at
 * its top and at the end of its summary. Real build, real DuckDB, real scan, HTTP via app.handle.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createServer } from "../../src/supervisor/assemble.ts";
import { loadReferenceData } from "../../src/demo/reference.ts";
import { SYNTHETIC_SOURCE } from "../../src/demo/synthetic/context.ts";
import { silentLogger } from "../../src/log.ts";
import { normalizeName } from "../../src/entities/name-index.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { SYNTHETIC_MARK } from "../../src/signals/synthetic.ts";
import { openDuck, sqlString, withConnection } from "../../src/store/duckdb.ts";
import { copyOf, defaultWorldDataDir, json, testConfig } from "../support/fixture.ts";
import { groundTruth, scan, snapshotOf } from "../signals/support.ts";

interface EntityRow {
  id: string;
  name: string;
  symbol: string | null;
  aliases: string[];
  source: string;
}

let root: string;
let entities: EntityRow[];
let services: Supervisor;
let app: ReturnType<typeof createServer>;

beforeAll(async () => {
  root = copyOf(await defaultWorldDataDir());
  const { path, manifest } = snapshotOf(root);
  const duck = await openDuck();
  entities = await withConnection(duck, async (c) =>
    (await c.runAndReadAll(`SELECT id, name, symbol, aliases, source FROM read_parquet(${sqlString(join(path, manifest.files.entities))})`)).getRowObjectsJS() as unknown as EntityRow[],
  );
  duck.closeSync();
  services = await Supervisor.open(testConfig({ data_dir: root }), silentLogger);
  await services.start();
  await scan(root, services.state, manifest.as_of.slice(0, 10));
  app = createServer(services, { baseUrl: "http://127.0.0.1:8402" });
});

afterAll(async () => {
  await services.close();
  rmSync(root, { recursive: true, force: true });
});

async function request(method: string, path: string, body?: unknown) {
  const init: RequestInit = { method, headers: { "content-type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  return json(await app.handle(new Request(`http://127.0.0.1:8402${path}`, init)));
}
const isReal = (e: EntityRow) => e.source !== SYNTHETIC_SOURCE;

describe("names", () => {
  test("no synthetic entity shares a normalised name or symbol with a real entity, the reference files or data/aliases.tsv", async () => {
    const real = new Set<string>();
    const add = (...texts: (string | null | undefined)[]) => {
      for (const t of texts) if (t) real.add(normalizeName(t));
    };
    for (const e of entities.filter(isReal)) add(e.name, e.symbol, ...e.aliases);
    const ref = await loadReferenceData();
    for (const c of ref.chains) add(c.name, c.native_symbol, c.native_name, c.short_name, ...c.aliases);
    for (const t of ref.tokens) add(t.name, t.symbol);
    for (const x of ref.exchanges) add(x.name, x.key);
    for (const m of ref.aaveMarkets) add(m.name, ...m.assets.map((a) => a.symbol));
    for (const a of ref.aliases) add(a.alias);
    const clashes = entities.filter((e) => !isReal(e) && (real.has(normalizeName(e.name)) || (e.symbol !== null && real.has(normalizeName(e.symbol)))));
    expect(clashes.map((e) => `${e.id} ${e.name} ${e.symbol ?? ""}`)).toEqual([]);
    // The world still has synthetic tokens with tickers, and real ones such as The Graph's GRT keep theirs alone.
    expect(entities.filter((e) => !isReal(e) && e.symbol).length).toBeGreaterThan(5000);
    const grt = entities.filter((e) => e.symbol === "GRT");
    expect(grt.length).toBeGreaterThan(0);
    for (const e of grt) expect(isReal(e)).toBe(true);
  });

  test("the only real protocols are Aave and its versions; every other protocol is synthetic and named after no real entity", () => {
    const protocols = entities.filter((e) => e.id.startsWith("protocol/"));
    expect(protocols.filter(isReal).map((e) => e.name).sort()).toEqual(expect.arrayContaining(["Aave", "Aave V2", "Aave V3"]));
    for (const p of protocols.filter(isReal)) expect(p.name).toMatch(/^Aave( V\d)?$/);
    expect(protocols.filter((e) => !isReal(e)).length).toBeGreaterThan(400);
  });
});

describe("figures", () => {
  test("every ts_synthetic_* row is about a generated entity, and so are the protocols, holders and treasury tokens it names", async () => {
    const { path, manifest } = snapshotOf(root);
    const synthetic = new Set(entities.filter((e) => !isReal(e)).map((e) => e.id));
    // Columns naming where or what a generated entity relates to (chain_id, asset_id, exchange_id) may be real:
    // a synthetic pool on Ethereum, a synthetic market lending USDC, a synthetic token listed on a real venue.
    const owners = ["entity_id", "protocol_id", "holder_id", "token_id"];
    const duck = await openDuck();
    try {
      await withConnection(duck, async (c) => {
        expect(manifest.timeseries.length).toBe(13);
        for (const table of manifest.timeseries) {
          expect(table.name.startsWith("ts_synthetic_")).toBe(true);
          const columns = (await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlString(join(path, table.file))})`)).getRowObjectsJS().map((r) => r.column_name as string);
          for (const column of owners.filter((o) => columns.includes(o))) {
            const ids = (await c.runAndReadAll(`SELECT DISTINCT "${column}" AS id FROM read_parquet(${sqlString(join(path, table.file))}) WHERE "${column}" IS NOT NULL`))
              .getRowObjectsJS()
              .map((r) => r.id as string);
            expect(ids.length, `${table.name}.${column}`).toBeGreaterThan(0);
            expect(ids.filter((id) => !synthetic.has(id)), `${table.name}.${column}`).toEqual([]);
          }
        }
      });
    } finally {
      duck.closeSync();
    }
  });

  test("no planted anomaly names a real entity, and every type is still planted", () => {
    const truth = groundTruth(root);
    expect(truth.skipped).toEqual([]);
    expect(new Set(truth.anomalies.map((a) => a.signal_type)).size).toBe(22);
    const byId = new Map(entities.map((e) => [e.id, e]));
    for (const anomaly of truth.anomalies) {
      for (const id of anomaly.entities) {
        if (id.startsWith("eip155:")) continue; // a whale's wallet, not an entity of the graph
        expect(byId.get(id)?.source, `${anomaly.signal_type} ${anomaly.band} ${id}`).toBe(SYNTHETIC_SOURCE);
      }
    }
  });

  test("insights for real entities carry no synthetic figures and say there is no time-series data yet", async () => {
    for (const name of ["Aave", "USDT", "Tether", "Arbitrum One"]) {
      const { status, body } = await request("GET", `/api/insights/entity/${encodeURIComponent(name)}`);
      expect(status, name).toBe(200);
      expect(isReal(entities.find((e) => `https://ckg.example/id/${e.id}` === body.entity.uri)!), name).toBe(true);
      expect(body.signals, name).toEqual([]);
      expect(body.narratives, name).toEqual([]);
      expect(body.summary.synthetic, name).toBe(false);
      expect(body.summary.time_series_tables, name).toEqual([]);
      expect(body.summary.text, name).toContain("No time-series data yet for this entity; run `ckg ingest`");
      expect(body.summary.text, name).not.toContain(SYNTHETIC_MARK);
    }
    const batch = await request("POST", "/api/insights/batch", { entities: ["Aave", "Uniswap"] });
    expect(batch.status).toBe(200);
    expect(batch.body.results).toHaveLength(2);
    for (const result of batch.body.results) expect(result.analysis.signals).toEqual([]);
  });

  test("explore of a real entity shows no figures, says why, and keeps its synthetic links labelled", async () => {
    const aave = await request("POST", "/api/explore", { entity_name: "Aave", entity_type: "Protocol" });
    expect(aave.body.entity.synthetic).toBe(false);
    const money = aave.body.relationships.financial_metrics;
    expect(money.figures).toBeUndefined();
    expect(money.figures_note).toContain("No time-series data yet");
    const usdt = await request("POST", "/api/explore", { entity_name: "USDT", focus: ["market", "defi"] });
    expect(usdt.body.relationships.market.figures).toBeUndefined();
    expect(usdt.body.relationships.market.figures_note).toContain("`ckg ingest`");
    // Synthetic pools holding USDT are the pools' facts, shown with their source, and the block says so.
    const defi = usdt.body.relationships.defi;
    expect(defi.items.some((i: { source: string }) => i.source === SYNTHETIC_SOURCE)).toBe(true);
    expect(defi.synthetic).toBe(true);
  });
});

describe("signals", () => {
  test("every signal of the demo is synthetic at its top, its summary ends with the mark, and it names generated entities only", async () => {
    const real = new Set(entities.filter(isReal).map((e) => `https://ckg.example/id/${e.id}`));
    const { body } = await request("GET", "/api/insights/signals?qualification=all&limit=500&since_hours=8760");
    expect(body.total).toBeGreaterThan(500);
    const rows = await services.state.all<{ evidence: string; entities: string; signal_type: string }>("SELECT evidence, entities, signal_type FROM signals");
    expect(rows.length).toBe(body.total);
    expect(rows.some((r) => r.signal_type === "narrative-synthesis")).toBe(true);
    for (const s of body.signals) {
      expect(s.synthetic).toBe(true);
      expect(s.evidence.summary.endsWith(SYNTHETIC_MARK)).toBe(true);
    }
    for (const row of rows) {
      const evidence = JSON.parse(row.evidence);
      expect(evidence.synthetic, row.signal_type).toBe(true);
      expect(evidence.summary.endsWith(` ${SYNTHETIC_MARK}`), evidence.summary).toBe(true);
      if (row.signal_type === "narrative-synthesis") expect(evidence.text.endsWith(` ${SYNTHETIC_MARK}`)).toBe(true);
      expect((JSON.parse(row.entities) as string[]).filter((uri) => real.has(uri)), row.signal_type).toEqual([]);
    }
  });

  test("an entity's insights put synthetic first: on the summary, each signal and each narrative", async () => {
    const { body: narratives } = await request("GET", "/api/insights/signals/narrative-synthesis?qualification=all&limit=50");
    const uri = narratives.signals.find((s: { evidence: { scope: string } }) => s.evidence.scope !== "sector").entities[0];
    const { body } = await request("GET", `/api/insights/entity/${encodeURIComponent(uri)}`);
    expect(body.summary.synthetic).toBe(true);
    expect(body.summary.text.endsWith(SYNTHETIC_MARK)).toBe(true);
    // The mark ends the summary once, not after each sentence quoted in it.
    expect(body.summary.text.split(SYNTHETIC_MARK).length).toBe(2);
    expect(body.summary.time_series_tables.length).toBeGreaterThan(0);
    expect(body.signals.length).toBeGreaterThan(0);
    for (const s of body.signals) expect(s.synthetic).toBe(true);
    expect(body.narratives.length).toBeGreaterThan(0);
    for (const n of body.narratives) {
      expect(n.synthetic).toBe(true);
      expect(n.text.endsWith(SYNTHETIC_MARK)).toBe(true);
    }
  });
});
