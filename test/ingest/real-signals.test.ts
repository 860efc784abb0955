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
import { ingest, type IngestReport } from "../../src/ingest/ingest.ts";
import { PROVIDER_IDS } from "../../src/config/providers.ts";
import { providerConfig } from "../../src/ingest/providers/index.ts";
import { silentLogger } from "../../src/log.ts";
import { signalCatalog } from "../../src/signals/catalog.ts";
import { OfflineNarrator } from "../../src/signals/narratives.ts";
import { type ScanReport, runScan } from "../../src/signals/scan.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { dataDir } from "../../src/store/data-dir.ts";
import { addDays } from "../../src/time.ts";
import { copyOfFixture, json, type Running, testConfig } from "../support/fixture.ts";
import { AS_OF } from "../support/replay/cast.ts";
import { haveRecordedDefillama } from "../support/replay/defillama.ts";
import { coingeckoRateLimit, type StandIn, startStandIn } from "../support/replay/stand-in.ts";
import { join } from "node:path";
import { createServer } from "../../src/server/app.ts";
import { Services } from "../../src/server/services.ts";

const DAYS = [addDays(AS_OF, -28), ...Array.from({ length: 17 }, (_, i) => addDays(AS_OF, i - 16))];
const HTTP = { retries: 2, backoffMs: 5, timeoutMs: 5000, maxRetryAfterMs: 5000 };

let standIn: StandIn;
let root: string;
const reports: IngestReport[] = [];
let scanReport: ScanReport;
let server: Running;

beforeAll(async () => {
  standIn = startStandIn();
  root = await copyOfFixture();
  const config = testConfig({ data_dir: root, ...standIn.settings(), ingest_detail_limit: 40, coingecko_details_limit: 40, blockscout_tokens: 12 });
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
  const services = await Services.open(testConfig({ data_dir: root }), silentLogger);
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
  standIn?.stop();
});

interface Signal {
  signal_id: string;
  signal_type: string;
  entities: { uri: string; name: string }[];
  score: number;
  evidence: Record<string, unknown> & { synthetic?: boolean; data_points?: { table: string; entity: string }[] };
}

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
    // No key: the paid raises list is skipped, said once, every day.
    for (const r of reports) expect(r.providers.find((p) => p.id === "defillama")!.skipped.map((s) => s.request)).toEqual(["raises"]);
    expect(scanReport.errors).toEqual([]);
  });

  test("every type fed by real data fires on a real entity", async () => {
    const fed = signalCatalog().signal_types.filter((t) => t.real_data !== "synthetic only");
    const missing: string[] = [];
    for (const type of fed) {
      const real = (await signalsOf(type.slug)).filter((s) => s.evidence.synthetic !== true);
      if (real.length === 0) missing.push(type.slug);
    }
    console.log(scanReport.types.map((t) => `${t.type}: ${t.found}`).join("\n"));
    if (process.env.DEBUG_REPLAY) {
      const { openDuck } = await import("../../src/store/duckdb.ts");
      const { snapshotOf } = await import("../signals/support.ts");
      const snap = snapshotOf(root);
      const duck = await openDuck();
      const c = await duck.connect();
      const rows = (await c.runAndReadAll(`SELECT subject_id, object, source FROM read_parquet('${snap.path}/facts.parquet') WHERE predicate = 'investedIn' AND source <> 'synthetic-demo'`)).getRowObjectsJS();
      console.log(rows.slice(0, 40));
      c.closeSync();
      duck.closeSync();
    }
    expect(missing).toEqual([]);
  });
});

void haveRecordedDefillama;
