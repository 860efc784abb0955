/**
 * Real data replayed (recorded provider answers ingested, then scanned). Run by hand: `bun scripts/bench/replay.ts [--out DIR]`.
 *
 * Serves the provider stand-in of the tests (test/support/replay/: recorded answers where public
 * recordings exist, a shaped cast of real entities otherwise) and ingests its days into a copy of
 * the default data directory, as test/ingest/real-data.test.ts does, then scans as of the last day.
 * Prints: the requests and time of each ingest; signals per type on real entities (and all); the
 * types the catalog declares fed by real data; and the real-name set's recall@3 and MRR by kind on
 * the default world before and on the ingested world after. `--out DIR` keeps the ingested data
 * directory there (to serve or query it).
 */
import { cpSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PROVIDER_IDS } from "../../src/config/providers/index.ts";
import { ingest } from "../../src/ingest/ingest.ts";
import { providerConfig } from "../../src/ingest/providers/index.ts";
import { silentLogger } from "../../src/log.ts";
import { createServer } from "../../src/supervisor/assemble.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { signalCatalog } from "../../src/signals/catalog.ts";
import { OfflineNarrator } from "../../src/signals/narratives.ts";
import { runScan } from "../../src/signals/scan.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { addDays } from "../../src/time.ts";
import { copyOf, defaultWorldDataDir, testConfig } from "../../test/support/fixture.ts";
import { AS_OF } from "../../test/support/replay/cast.ts";
import { startStandIn } from "../../test/support/replay/stand-in.ts";
import { realNameQueries, resolveExpected, scoreRealName, summarizeReal, type RealNameQuality } from "../../test/search/real-names.ts";
import type { SearchAnswer } from "../../src/search/search.ts";
import { printTable } from "./stats.ts";

const { values } = parseArgs({ options: { out: { type: "string" } } });
const DAYS = [addDays(AS_OF, -28), ...Array.from({ length: 17 }, (_, i) => addDays(AS_OF, i - 16))];

async function realNames(root: string): Promise<RealNameQuality> {
  const services = await Supervisor.open(testConfig({ data_dir: root, search_cache_entries: 0 }), silentLogger);
  await services.start();
  const app = createServer(services, { baseUrl: "http://127.0.0.1:8402" });
  const queries = realNameQueries();
  const path = snapshotPath(dataDir(root), currentSnapshotId(dataDir(root))!);
  const expected = await resolveExpected(services.duck, path, queries);
  const scores = [];
  for (const [i, q] of queries.entries()) {
    const response = await app.handle(new Request("http://127.0.0.1:8402/api/search", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: q.query, entity_types: q.entity_types }) }));
    scores.push(scoreRealName(q, expected[i]!, (await response.json()) as SearchAnswer));
  }
  await services.close();
  return summarizeReal(scores);
}

const base = await defaultWorldDataDir();
const before = await realNames(copyOf(base));

const root = values.out ?? copyOf(base);
if (values.out) {
  if (existsSync(root)) rmSync(root, { recursive: true, force: true });
  cpSync(base, root, { recursive: true });
}
const standIn = startStandIn();
const config = testConfig({ data_dir: root, ...standIn.settings(), ingest_detail_limit: 40, coingecko_details_limit: 200, blockscout_tokens: 200 });
const ingestRows: [string, string][] = [];
for (const day of DAYS) {
  standIn.day = day;
  const asked = standIn.requests.length;
  const started = performance.now();
  const report = await ingest({
    dir: dataDir(root),
    today: day,
    source: { kind: "fetch", providers: new Map(PROVIDER_IDS.map((id) => [id, providerConfig(config, id)])), detailLimit: config.ingest_detail_limit, http: { retries: 2, backoffMs: 5, timeoutMs: 30_000 } },
    log: silentLogger,
  });
  ingestRows.push([`ingest of ${day}`, `${standIn.requests.length - asked} requests, ${((performance.now() - started) / 1000).toFixed(1)} s (${Object.entries(report.steps_ms).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`).join(", ")})`]);
}
standIn.stop();
printTable("Ingests of the replayed days (the stand-in on localhost: no rate limits)", ingestRows);

const state = openSqliteState(join(root, "state.sqlite"));
const scan = await runScan({ state, dir: dataDir(root), narrator: new OfflineNarrator(), log: silentLogger, trigger: "bench", asOf: AS_OF });
const perType: [string, string][] = [];
for (const t of signalCatalog().signal_types) {
  const rows = await state.all<{ synthetic: number; n: number }>(`SELECT json_extract(evidence, '$.synthetic') AS synthetic, CAST(count(*) AS INTEGER) AS n FROM signals WHERE signal_type = ? GROUP BY 1`, [t.slug]);
  const real = rows.find((r) => !r.synthetic)?.n ?? 0;
  const all = rows.reduce((sum, r) => sum + r.n, 0);
  perType.push([`${t.slug} (${t.real_data})`, `${real} real of ${all}`]);
}
await state.close();
printTable(`Signals per type, scan as of ${AS_OF} (${(scan.duration_ms / 1000).toFixed(1)} s)`, perType);

const after = await realNames(root);
const row = (label: string, a: { recallAt3: number; mrr: number } | undefined, b: { recallAt3: number; mrr: number } | undefined): [string, string] => [
  label,
  `before recall@3 ${a?.recallAt3.toFixed(3)} MRR ${a?.mrr.toFixed(3)}  |  after recall@3 ${b?.recallAt3.toFixed(3)} MRR ${b?.mrr.toFixed(3)}`,
];
const kinds = Object.keys(after.byKind) as (keyof RealNameQuality["byKind"])[];
const questionsOf = (q: RealNameQuality, split: "tune" | "heldout") => summarizeReal(q.scores.filter((s) => s.query.kind === "question" && s.query.split === split));
printTable("Real-name set: the default world before, the ingested world after", [
  row("all", before, after),
  ...kinds.map((k) => row(`  ${k} (${after.byKind[k]!.queries})`, before.byKind[k], after.byKind[k])),
  row("  question, tune half", questionsOf(before, "tune"), questionsOf(after, "tune")),
  row("  question, held-out half", questionsOf(before, "heldout"), questionsOf(after, "heldout")),
]);
for (const s of after.scores.filter((x) => x.query.kind === "question" && !x.hit)) console.log(`  question missed after: ${s.query.query} (${s.query.split})`);
if (!values.out) rmSync(root, { recursive: true, force: true });
process.exit(0);
