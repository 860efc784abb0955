/**
 * History is append-or-correct (a later answer corrects a day; nothing stored is lost): `ckg
 * ingest` run five times in a row through the provider stand-in (test/support/replay/), each as of
 * a later day (one day skipped), and after each run the series tables of the snapshot it published
 * diffed against those of the snapshot it replaced: every (entity, day[, key]) row of a provider's
 * table is still there and every value that was set is still set; a demo row gives way only to a
 * provider's row of the same entity and kind. DefiLlama's price history of every stablecoin is
 * refused on the third day (403, as Cloudflare refuses) and answered in the wrong shape on the
 * fourth: a skipped line and a rejection, never a failed run, and the days they miss are asked
 * again. Earnings keep every day they had, and non-dollar stablecoins get the 30 days of prices
 * their peg median needs (signals/detectors/stablecoin-depeg.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { PROVIDER_IDS } from "../../src/config/providers/index.ts";
import { ProviderHttp } from "../../src/ingest/http.ts";
import { type IngestReport, ingest } from "../../src/ingest/ingest.ts";
import { rowKeys } from "../../src/ingest/keep-history.ts";
import { providerConfig } from "../../src/ingest/providers/index.ts";
import { PRICES_KEY, stablecoinPrices } from "../../src/ingest/providers/defillama/stablecoin-prices.ts";
import { RawStore } from "../../src/ingest/raw-store.ts";
import { ProviderOutput } from "../../src/ingest/records.ts";
import { silentLogger } from "../../src/log.ts";
import { dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openDuck, sqlString, withConnection } from "../../src/store/duckdb.ts";
import { type SnapshotManifest, readManifest } from "../../src/store/manifest.ts";
import { KINDS, type Kind } from "../../src/timeseries/kinds.ts";
import { addDays } from "../../src/time.ts";
import { copyOfFixture, testConfig } from "../support/fixture.ts";
import { AS_OF } from "../support/replay/cast.ts";
import { haveRecordedDefillama } from "../support/replay/defillama.ts";
import { type StandIn, startStandIn } from "../support/replay/stand-in.ts";
import { tempDir } from "../support/temp-dirs.ts";

const DAYS = [addDays(AS_OF, -6), addDays(AS_OF, -5), addDays(AS_OF, -4), addDays(AS_OF, -2), AS_OF];
const REFUSED_ON = 2;
const MISSHAPEN_ON = 3;
const PRICES_PATH = "/defillama/stablecoins/stablecoinprices";
const HTTP = { retries: 2, backoffMs: 5, timeoutMs: 30_000, maxRetryAfterMs: 5000 };

interface Snapshot {
  dir: string;
  manifest: SnapshotManifest;
}

let standIn: StandIn;
let root: string;
const reports: IngestReport[] = [];
/** Per ingest after the first: what the published snapshot lost of the one it replaced. */
const losses: string[][] = [];
let last: Snapshot;

beforeAll(async () => {
  standIn = startStandIn();
  root = await copyOfFixture();
  const config = testConfig({ data_dir: root, ...standIn.settings(), ingest_detail_limit: 40, coingecko_details_limit: 40, blockscout_tokens: 40 });
  const duck = await openDuck();
  try {
    for (const [i, day] of DAYS.entries()) {
      standIn.day = day;
      if (i === REFUSED_ON) standIn.refuse(PRICES_PATH, 403, "error code: 1015");
      if (i === MISSHAPEN_ON) standIn.refuse(PRICES_PATH, 200, JSON.stringify({ message: "internal error" }));
      const report = await ingest({
        dir: dataDir(root),
        today: day,
        source: { kind: "fetch", providers: new Map(PROVIDER_IDS.map((id) => [id, providerConfig(config, id)])), detailLimit: config.ingest_detail_limit, http: HTTP },
        log: silentLogger,
      });
      reports.push(report);
      const now = snapshotOf(report.snapshot_id);
      if (i > 0) losses.push(await withConnection(duck, (c) => lostBetween(c, snapshotOf(report.base_snapshot_id), now)));
      last = now;
    }
  } finally {
    duck.closeSync();
  }
}, 600_000);

afterAll(() => standIn?.stop());

function snapshotOf(id: string): Snapshot {
  const dir = snapshotPath(dataDir(root), id);
  return { dir, manifest: readManifest(dir) };
}

const q = (column: string) => `"${column}"`;
const file = (s: Snapshot, name: string) => {
  const t = s.manifest.timeseries.find((x) => x.name === name);
  return t && sqlString(join(s.dir, t.file));
};

/**
 * What `later` lost of `earlier`, one line per table and kind of loss: a provider table gone, its
 * rows gone (by their key), its values turned null (by column); a demo row gone while no provider
 * table of its kind holds its entity.
 */
async function lostBetween(c: DuckDBConnection, earlier: Snapshot, later: Snapshot): Promise<string[]> {
  const lost: string[] = [];
  const synthetic = new Set(earlier.manifest.sources.filter((s) => s.synthetic).map((s) => s.id));
  for (const table of earlier.manifest.timeseries) {
    const kind = table.kind as Kind;
    const before = file(earlier, table.name)!;
    const after = file(later, table.name);
    if (!after) {
      if (!synthetic.has(table.provenance)) lost.push(`${table.name}: the table is gone`);
      continue;
    }
    const keys = rowKeys(kind);
    const match = keys.map((k) => `e.${q(k)} IS NOT DISTINCT FROM l.${q(k)}`).join(" AND ");
    const gone = `FROM read_parquet(${before}) e WHERE NOT EXISTS (SELECT 1 FROM read_parquet(${after}) l WHERE ${match})`;
    if (synthetic.has(table.provenance)) {
      const real = later.manifest.timeseries.filter((t) => t.kind === kind && !synthetic.has(t.provenance)).map((t) => file(later, t.name)!);
      const replaced = real.length > 0 ? ` AND e.entity_id NOT IN (SELECT entity_id FROM read_parquet([${real.join(", ")}]))` : "";
      const n = await count(c, `SELECT count(*)::INTEGER AS n ${gone}${replaced}`);
      if (n > 0) lost.push(`${table.name}: ${n} demo rows gone without a provider's rows of their entity`);
      continue;
    }
    const missing = await count(c, `SELECT count(*)::INTEGER AS n ${gone}`);
    if (missing > 0) {
      const example = (await c.runAndReadAll(`SELECT ${keys.map((k) => `e.${q(k)}::VARCHAR AS ${q(k)}`).join(", ")} ${gone} LIMIT 1`)).getRowObjectsJS()[0];
      lost.push(`${table.name}: ${missing} rows gone, e.g. ${JSON.stringify(example)}`);
    }
    const values = KINDS[kind].columns.map((col) => col.name).filter((col) => !keys.includes(col));
    const nulled = (
      await c.runAndReadAll(
        `SELECT ${values.map((v) => `count(*) FILTER (WHERE e.${q(v)} IS NOT NULL AND l.${q(v)} IS NULL)::INTEGER AS ${q(v)}`).join(", ")}
         FROM read_parquet(${before}) e JOIN read_parquet(${after}) l ON ${match}`,
      )
    ).getRowObjectsJS()[0] as Record<string, number>;
    for (const [column, n] of Object.entries(nulled)) if (n > 0) lost.push(`${table.name}.${column}: ${n} values turned null`);
  }
  return lost;
}

async function count(c: DuckDBConnection, sql: string): Promise<number> {
  return (await c.runAndReadAll(sql)).getRowObjectsJS()[0]!.n as number;
}

async function query<T>(sql: string): Promise<T[]> {
  const duck = await openDuck();
  try {
    return (await withConnection(duck, async (c) => (await c.runAndReadAll(sql)).getRowObjectsJS())) as T[];
  } finally {
    duck.closeSync();
  }
}

describe("daily ingests in a row keep what they stored", () => {
  test("every ingest published; the refused price history is a skipped line, the misshapen one a rejection", () => {
    expect(reports).toHaveLength(DAYS.length);
    const defillama = reports.map((r) => r.providers.find((p) => p.id === "defillama")!);
    expect(defillama.map((p) => p.skipped.map((s) => s.request).sort())).toEqual(DAYS.map((_, i) => (i === REFUSED_ON ? ["raises", PRICES_KEY] : ["raises"])));
    expect(defillama[REFUSED_ON]!.skipped.find((s) => s.request === PRICES_KEY)).toMatchObject({ status: 403 });
    expect(defillama[MISSHAPEN_ON]!.rejected).toBeGreaterThan(defillama[MISSHAPEN_ON - 1]!.rejected);
    // Asked once a run (a refusal at 403 is not asked again within the run).
    expect(standIn.requests.filter((r) => r === `GET ${PRICES_PATH}`)).toHaveLength(DAYS.length);
  });

  test("no stored value turns null and no series gets shorter, from each snapshot to the next", () => {
    expect(losses).toHaveLength(DAYS.length - 1);
    expect(losses).toEqual(losses.map(() => []));
  });

  test("earnings: every day that had them keeps them, so the 30-day mean rests on 30 days", async () => {
    const protocol = file(last, "ts_defillama_protocol")!;
    const perProtocol = await query<{ id: string; days: number; first: string }>(
      `SELECT entity_id AS id, count(*) FILTER (WHERE "earningsUsd" IS NOT NULL AND date > DATE '${AS_OF}' - 30)::INTEGER AS days, min(date)::VARCHAR AS first
       FROM read_parquet(${protocol}) GROUP BY 1 HAVING count("earningsUsd") > 0 ORDER BY 1`,
    );
    // The cast's protocols whose pools pay rewards (and so have incentives and earnings).
    expect(perProtocol.length).toBeGreaterThan(0);
    for (const p of perProtocol) expect(p.days, p.id).toBe(30);
  });

  test("stablecoin prices: every coin priced once is priced on every later day, the refused and misshapen days included", async () => {
    const stablecoin = file(last, "ts_defillama_stablecoin")!;
    const gaps = await query<{ id: string; unpriced: number }>(
      `WITH first AS (SELECT entity_id, min(date) AS d FROM read_parquet(${stablecoin}) WHERE price IS NOT NULL GROUP BY 1)
       SELECT s.entity_id AS id, count(*)::INTEGER AS unpriced FROM read_parquet(${stablecoin}) s JOIN first f USING (entity_id)
       WHERE s.date >= f.d AND s.price IS NULL GROUP BY 1`,
    );
    expect(gaps).toEqual([]);
    const days = await query<{ n: number }>(`SELECT count(DISTINCT date)::INTEGER AS n FROM read_parquet(${stablecoin}) WHERE price IS NOT NULL AND date >= DATE '${AS_OF}' - 30`);
    expect(days[0]!.n).toBe(31);
  });

  test.skipIf(!haveRecordedDefillama())("non-dollar stablecoins have the 30 days of prices their peg median needs, the median near today's price", async () => {
    const stablecoin = file(last, "ts_defillama_stablecoin")!;
    // The depeg check's peg of a non-dollar coin: its median price over the 30 days before the day.
    const pegs = await query<{ id: string; currency: string; days: number; fx: number; price: number }>(
      `WITH pegs AS (SELECT entity_id, count(price)::INTEGER AS days, median(price) AS fx FROM read_parquet(${stablecoin}) WHERE date >= DATE '${AS_OF}' - 30 AND date < DATE '${AS_OF}' GROUP BY 1)
       SELECT s.entity_id AS id, s."pegCurrency" AS currency, p.days, p.fx, s.price FROM read_parquet(${stablecoin}) s JOIN pegs p USING (entity_id)
       WHERE s.date = DATE '${AS_OF}' AND s."pegCurrency" <> 'USD' AND s.price IS NOT NULL ORDER BY 1`,
    );
    // The recorded list's Mento, BRLA and Wrapped coins that have a price: CAD, AUD, COP, JPY, REAL, ...
    expect(new Set(pegs.map((p) => p.currency)).size).toBeGreaterThanOrEqual(8);
    for (const p of pegs) {
      expect(p.days, p.id).toBe(30);
      expect(Math.abs(p.price / p.fx - 1), p.id).toBeLessThan(0.005);
    }
  });
});

describe("DefiLlama's price history of every stablecoin", () => {
  const SAMPLE = join(import.meta.dir, "..", "..", "..", "shared", "real-history", "defillama", "stablecoinprices.reshaped-from-csv.json");

  test.skipIf(!existsSync(SAMPLE))("read in DefiLlama's shape: each coin of the list priced by its gecko_id, USDC's March 2023 depeg in it", () => {
    const raw = new RawStore(tempDir("ckg-prices-"));
    raw.save("defillama", PRICES_KEY, { day: "2023-07-31", since: null, body: JSON.parse(readFileSync(SAMPLE, "utf8")) });
    const coin = (id: string, gecko_id: string | null) => [id, { id, name: id, symbol: id, gecko_id, pegType: "peggedUSD" }] as const;
    const out = new ProviderOutput("defillama", silentLogger);
    const prices = stablecoinPrices(raw, out, new Map([coin("2", "usd-coin"), coin("5", "dai"), coin("6", "frax"), coin("99", null)]));
    expect(out.rejected).toEqual([]);
    expect([...prices.keys()].sort()).toEqual(["2", "5", "6"]);
    const usdc = prices.get("2")!;
    expect(usdc.size).toBe(943);
    expect(usdc.get("2023-03-10")).toBe(1);
    expect(usdc.get("2023-03-12")).toBeLessThan(0.97);
    expect(prices.get("5")!.get("2023-03-12")).toBeLessThan(0.97);
  });

  test("a misshapen day or price is left out with its reason; the rest is read", () => {
    const raw = new RawStore(tempDir("ckg-prices-"));
    raw.save("defillama", PRICES_KEY, {
      day: "2025-01-10",
      since: "2025-01-07",
      body: [
        { date: 1736208000, prices: { tether: 1.001 } }, // 2025-01-07: not after since
        { date: "soon", prices: { tether: 1 } },
        { date: 1736294400, prices: "none" },
        { date: 1736380800, prices: { tether: "0.9991", "usd-coin": -1, dai: null } },
      ],
    });
    const out = new ProviderOutput("defillama", silentLogger);
    const prices = stablecoinPrices(raw, out, new Map([["1", { id: "1", name: "Tether", symbol: "USDT", gecko_id: "tether", pegType: "peggedUSD" }]]));
    expect([...prices.get("1")!]).toEqual([["2025-01-09", 0.9991]]);
    expect(out.rejected.map((r) => r.reason)).toEqual(["not a time", expect.stringContaining("prices")]);
  });
});

describe("DefiLlama's pace", () => {
  test("paced by default at its published rate: requests at once are spaced by the interval", async () => {
    const { minIntervalMs } = providerConfig(testConfig({}), "defillama");
    // About 10 a second allowed; 120 ms apart is 8.3.
    expect(minIntervalMs).toBeGreaterThanOrEqual(100);
    const standIn = startStandIn();
    try {
      const http = new ProviderHttp("defillama", { log: silentLogger, minIntervalMs });
      const started = performance.now();
      await Promise.all(Array.from({ length: 6 }, () => http.getJson(`${standIn.url}/defillama/api/v2/chains`)));
      // Pacing is a matter of time, so this bounds time, from below only: a busy machine can only
      // lengthen the run, never make a paced client look unpaced (5 gaps of the interval at least).
      expect(performance.now() - started).toBeGreaterThanOrEqual(5 * minIntervalMs - 5);
    } finally {
      standIn.stop();
    }
  });
});
