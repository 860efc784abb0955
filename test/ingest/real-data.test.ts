/**
 * Signals on real entities after ingests of provider answers replayed over HTTP (the stand-in,
 * test/support/replay/): several days of `ckg ingest` on the default data directory through the
 * ordinary URL settings (fetch, parse, resolve, publish), then a scan as of the last day. Every
 * type the catalog declares fed by real data ("yes" or "partial") must have a signal on a real
 * entity, its evidence pointing at a provider's data points and carrying nothing synthetic.
 *
 * Days: four weeks before the last (holder snapshots four weeks apart), then every day of the last
 * seventeen (daily holder snapshots give the flows of fifteen days and the last).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { ingest, type IngestReport } from "../../src/ingest/ingest.ts";
import { PROVIDER_IDS } from "../../src/config/providers/index.ts";
import { providerConfig } from "../../src/ingest/providers/index.ts";
import { silentLogger } from "../../src/log.ts";
import { signalCatalog } from "../../src/signals/catalog.ts";
import { OfflineNarrator } from "../../src/signals/narratives.ts";
import { type ScanReport, runScan } from "../../src/signals/scan.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { dataDir } from "../../src/store/data-dir.ts";
import { addDays } from "../../src/time.ts";
import { copyOfFixture, json, type Running, testConfig } from "../support/fixture.ts";
import { AS_OF, RUBY } from "../support/replay/cast.ts";
import { coingeckoRateLimit, type StandIn, startStandIn } from "../support/replay/stand-in.ts";
import { skipWithout } from "../support/shared-recordings.ts";
import { join } from "node:path";
import { SYNTHETIC_SOURCE } from "../../src/demo/synthetic/context.ts";
import { createServer } from "../../src/supervisor/assemble.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { openDuck, withConnection } from "../../src/store/duckdb.ts";
import { snapshotOf } from "../signals/support.ts";
import { type RealNameScore, realNameQueries, resolveExpected, scoreRealName, summarizeReal } from "../search/real-names.ts";

const DAYS = [addDays(AS_OF, -28), ...Array.from({ length: 17 }, (_, i) => addDays(AS_OF, i - 16))];
const HTTP = { retries: 2, backoffMs: 5, timeoutMs: 30_000, maxRetryAfterMs: 5000 };

let standIn: StandIn;
let root: string;
const reports: IngestReport[] = [];
let scanReport: ScanReport;
let server: Running;

beforeAll(async () => {
  standIn = startStandIn();
  root = await copyOfFixture();
  const config = testConfig({ data_dir: root, ...standIn.settings(), ingest_detail_limit: 40, coingecko_details_limit: 200, blockscout_tokens: 200 });
  // CoinGecko's free plan refuses the first markets page once (429, Retry-After: 1): asked again after the wait.
  standIn.refuse("/coingecko/api/v3/coins/markets", ...coingeckoRateLimit);
  for (const day of DAYS) {
    standIn.day = day;
    reports.push(
      await ingest({
        dir: dataDir(root),
        today: day,
        source: { kind: "fetch", providers: new Map(PROVIDER_IDS.map((id) => [id, providerConfig(config, id)])), detailLimit: config.ingest_detail_limit, http: HTTP },
        log: silentLogger,
      }),
    );
  }
  const state = openSqliteState(join(root, "state.sqlite"));
  scanReport = await runScan({ state, dir: dataDir(root), narrator: new OfflineNarrator(), log: silentLogger, trigger: "test", asOf: AS_OF });
  await state.close();
  const snapshot = snapshotOf(root);
  for (const t of snapshot.manifest.timeseries) if (snapshot.manifest.sources.find((x) => x.id === t.provenance)?.synthetic) world.syntheticTables.add(t.name);
  const duck = await openDuck();
  await withConnection(duck, async (c) => {
    for (const r of (await c.runAndReadAll(`SELECT id, name, source FROM read_parquet('${join(snapshot.path, snapshot.manifest.files.entities)}')`)).getRowObjectsJS() as { id: string; name: string; source: string }[]) {
      world.names.set(`${ENTITY}${r.id}`, r.name);
      world.sources.set(`${ENTITY}${r.id}`, r.source);
    }
  });
  duck.closeSync();
  world.nameOf = (uri) => world.names.get(uri) ?? uri;
  world.sourceOf = (uri) => world.sources.get(uri);
  const services = await Supervisor.open(testConfig({ data_dir: root }), silentLogger);
  await services.start();
  const app = createServer(services, { baseUrl: "http://127.0.0.1:8402" });
  server = {
    services,
    app,
    dir: root,
    request: (method, path) => app.handle(new Request(`http://127.0.0.1:8402${path}`, { method })),
    close: () => services.close(),
  };
}, 600_000);

afterAll(async () => {
  await server?.close();
  // KEEP_REPLAY=<dir> keeps the replayed data directory for a look (CKG_DATA_DIR=<dir> npm start).
  if (process.env.KEEP_REPLAY) cpSync(root, process.env.KEEP_REPLAY, { recursive: true });
  standIn?.stop();
});

interface Signal {
  signal_id: string;
  signal_type: string;
  synthetic: boolean;
  entities: string[];
  score: number;
  severity: string;
  evidence: Record<string, unknown> & { synthetic: boolean; sources: string[]; data_points: { table: string; entity: string }[] };
}

const ENTITY = "https://ckg.example/id/";
/** The live snapshot's entities (names, sources) and its demo tables, read once the replay is done. */
const world = { names: new Map<string, string>(), sources: new Map<string, string>(), syntheticTables: new Set<string>(), nameOf: (uri: string) => "", sourceOf: (uri: string) => "" as string | undefined };

async function signalsOf(type: string): Promise<Signal[]> {
  const answer = await json(await server.request("GET", `/api/insights/signals/${type}?qualification=all&limit=500`));
  expect(answer.status).toBe(200);
  return answer.body.signals as Signal[];
}

describe("signals on real data replayed over HTTP", () => {
  test("every ingest published; the refusals are skipped lines, the 429 was waited out", () => {
    expect(reports).toHaveLength(DAYS.length);
    for (const r of reports) expect(r.providers.map((p) => p.id)).toEqual([...PROVIDER_IDS]);
    const first = reports[0]!;
    expect(first.providers.find((p) => p.id === "coingecko")!.rate_limited).toBe(1);
    // No key: the paid raises list is skipped, said once, every day; nothing else was refused.
    for (const r of reports) {
      for (const p of r.providers) expect(p.skipped.map((s) => `${p.id} ${s.request}`), p.id).toEqual(p.id === "defillama" ? ["defillama raises"] : []);
    }
    expect(scanReport.errors).toEqual([]);
  });

  test("every type fed by real data fires on a real entity, its evidence on the providers' data points", async () => {
    const fed = signalCatalog().signal_types.filter((t) => t.real_data !== "synthetic only");
    expect(fed.length).toBeGreaterThanOrEqual(23);
    const missing: string[] = [];
    for (const type of fed) if ((await realSignals(type.slug)).length === 0) missing.push(type.slug);
    if (process.env.DEBUG_REPLAY) for (const type of signalCatalog().signal_types) console.log(type.slug, (await realSignals(type.slug)).map((s) => s.entities.map((u) => world.nameOf(u)).join("&")).join(" | "));
    expect(missing).toEqual([]);
  });

  test("a real signal carries nothing synthetic: no demo table among its data points or sources, no generated entity", async () => {
    let checked = 0;
    for (const type of signalCatalog().signal_types) {
      for (const signal of await signalsOf(type.slug)) {
        if (signal.synthetic) continue;
        checked++;
        const evidence = signal.evidence;
        expect(evidence.synthetic).toBe(false);
        for (const uri of signal.entities) if (uri.startsWith(ENTITY)) expect(world.sourceOf(uri), `${type.slug} ${uri}`).not.toBe(SYNTHETIC_SOURCE);
        for (const p of evidence.data_points) expect(world.syntheticTables.has(p.table), `${type.slug} ${p.table}`).toBe(false);
        for (const source of evidence.sources) expect(world.syntheticTables.has(source) || source === SYNTHETIC_SOURCE, `${type.slug} ${source}`).toBe(false);
      }
    }
    // At least one per fed type (the test above), and more where a type fires on several real entities.
    expect(checked).toBeGreaterThan(signalCatalog().signal_types.filter((t) => t.real_data !== "synthetic only").length);
  });

  test("developer networks: protocols of one family are one project; Compound and dYdX share developers; Lido's core rests on two", async () => {
    const found = await realSignals("developer-network");
    const names = (s: Signal) => s.entities.map((uri) => world.nameOf(uri)).sort();
    expect(found.filter((s) => names(s).join(" & ") === "Uniswap V2 & Uniswap V3")).toEqual([]);
    const pair = found.find((s) => names(s).join(" & ") === "Compound V3 & dYdX V4")!;
    expect(pair.evidence).toMatchObject({ kind: "shared_developers", developers: ["jflatow", "kevincheng96", "scott-silver", "torreyatcitty"].map((l) => expect.stringContaining(l)) });
    expect(found.find((s) => s.evidence.kind === "bus_factor" && names(s).join() === "Lido")).toBeDefined();
  });

  test("holders: the largest non-exchange holders of UNI own over 40%; Binance's tagged wallet and the burn address are left out", async () => {
    const uni = (await realSignals("power-concentration")).find((s) => world.nameOf(s.entities[0]!) === "Uniswap")!;
    expect(uni).toBeDefined();
    const wallets = (uni.evidence.holders as { wallet: string }[]).map((h) => h.wallet);
    expect(wallets[0]).toBe("eip155:1:0x1a9c8182c09f50c8318d769245bea52c32be35bc");
    expect(wallets).not.toContain("eip155:1:0x28c6c06298d514db089934071355e5743bf21d60");
    expect(wallets).not.toContain("eip155:1:0x000000000000000000000000000000000000dead");
    // Its timelock holds 15% less than four weeks before.
    const divergence = (await realSignals("smart-money-divergence")).find((s) => world.nameOf(s.entities[0]!) === "Uniswap")!;
    expect(divergence.evidence).toMatchObject({ direction: "distributing", wallet: "eip155:1:0x1a9c8182c09f50c8318d769245bea52c32be35bc" });
  });

  test("insider flows: a plain whale's are called a proxy; Aave's ecosystem reserve is a named insider", async () => {
    const found = await realSignals("insider-accumulation");
    const lido = found.find((s) => world.nameOf(s.entities[0]!) === "Lido DAO Token")!;
    expect(lido.evidence).toMatchObject({ direction: "buying", whale_proxy: true });
    expect(String(lido.evidence.summary)).toContain("whale proxy");
    const aave = found.find((s) => world.nameOf(s.entities[0]!) === "Aave")!;
    expect(aave.evidence).toMatchObject({ direction: "selling", whale_proxy: false });
    expect((aave.evidence.top_wallets as { role: string }[])[0]!.role).toBe("team");
    expect((await realSignals("flow-anomaly")).some((s) => world.nameOf(s.entities[0]!) === "Lido DAO Token" && s.evidence.whale_proxy === true)).toBe(true);
    expect((await realSignals("sector-rotation")).some((s) => s.evidence.sector === "Liquid Staking")).toBe(true);
  });

  test("the investment graph from the protocols' own raises: Paradigm bridges the networks; co-invested tokens unlock together", async () => {
    expect((await realSignals("bridge-fund")).map((s) => world.nameOf(s.entities[0]!))).toContain("Paradigm");
    const pairs = (await realSignals("co-investment-network")).map((s) => s.entities.map((uri) => world.nameOf(uri)).sort().join(" & "));
    expect(pairs).toContain("Compound & Uniswap");
    const cluster = (await realSignals("cluster-unlock-risk")).map((s) => s.entities.map((uri) => world.nameOf(uri)).sort().join(" & "));
    expect(cluster).toContain("Compound & dYdX");
  });

  test("treasuries, listings, lending, stablecoins: on the cast's real names", async () => {
    const treasury = (await realSignals("treasury-health")).find((s) => world.nameOf(s.entities[0]!) === "Uniswap")!;
    expect(treasury.severity).toBe("high");
    expect((await realSignals("exchange-liquidity-risk")).map((s) => world.nameOf(s.entities[0]!))).toContain("Alchemix");
    expect((await realSignals("stablecoin-depeg")).map((s) => world.nameOf(s.entities[0]!))).toContain("USDe");
    expect((await realSignals("stablecoin-supply-shift")).map((s) => world.nameOf(s.entities[0]!))).toContain("PayPal USD");
    expect((await realSignals("debt-ceiling-proximity")).length).toBeGreaterThan(0);
    expect((await realSignals("earnings-health")).map((s) => world.nameOf(s.entities[0]!))).toContain("Compound V3");
  });

  test.skipIf(skipWithout(`${RUBY}/coin_bitcoin.json`, "Bitcoin's recorded tickers in the replay"))("Bitcoin's recorded tickers (100 pairs, the widest spread 1.98%) say it is liquid", async () => {
    expect((await signalsOf("exchange-liquidity-risk")).some((s) => world.nameOf(s.entities[0]!) === "Bitcoin")).toBe(false);
  });

  test.skipIf(skipWithout("defillama/protocols.json", "DefiLlama's recorded lists in the replay (the shaped cast stands in)"))("DefiLlama's recorded lists reach the graph (their records beside the cast's)", async () => {
    const lido = await json(await server.request("GET", `/api/insights/entity/Lido`));
    expect(lido.status).toBe(200);
    expect(world.nameOf(`${ENTITY}protocol/robinhood`)).toBe("Robinhood");
  });
});

describe("real entities found by meaning on the ingested world", () => {
  test("the real-name set's questions: recall@3 of 0.8 and more, 0.75 and more on its held-out half", async () => {
    const queries = realNameQueries();
    const snapshot = snapshotOf(root);
    const expected = await resolveExpected(server.services.duck, snapshot.path, queries);
    const scores: RealNameScore[] = [];
    for (const [i, q] of queries.entries()) {
      const answer = await json(await server.app.handle(new Request("http://127.0.0.1:8402/api/search", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: q.query, entity_types: q.entity_types }) })));
      scores.push(scoreRealName(q, expected[i]!, answer.body));
    }
    const questions = summarizeReal(scores.filter((s) => s.query.kind === "question"));
    if (process.env.DEBUG_REPLAY) for (const s of scores.filter((x) => x.query.kind === "question" && !x.hit)) console.log("miss:", s.query.query, s.query.split);
    expect(questions.recallAt3).toBeGreaterThanOrEqual(0.8);
    expect(questions.bySplit.heldout!.recallAt3).toBeGreaterThanOrEqual(0.75);
    // Names, tickers and typos stay found.
    const all = summarizeReal(scores);
    for (const kind of ["name", "ticker", "typo"] as const) expect(all.byKind[kind]!.recallAt3, kind).toBeGreaterThanOrEqual(0.9);
  });
});

/** Signals of a type on real data only (not marked synthetic). */
async function realSignals(type: string): Promise<Signal[]> {
  return (await signalsOf(type)).filter((s) => !s.synthetic);
}

