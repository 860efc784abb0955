/**
 * First-ingest benchmark through the provider stand-in (how long a first real ingest takes). Run by
 * hand: `bun scripts/bench/first-ingest.ts [--detail-limit N] [--rounds N] [--unpaced]`.
 *
 * A copy of the small fixture world takes one first ingest (no cursors) of every provider, served
 * by the stand-in (test/support/replay/: recorded DefiLlama lists, the shaped cast) as of its day.
 * DefiLlama runs at its configured pace (the setting's default, as a real run would), so the
 * figure shows what pacing costs (`--unpaced` leaves it unpaced, as the tests run it, to show the
 * rest); CoinGecko and Blockscout run unpaced as the stand-in sets them
 * (their free tiers' pace is minutes of waiting, measured in scripts/bench/ingest.ts). Prints, per
 * round, each provider's requests and fetch time and the whole ingest's wall time, then the
 * medians. scripts/bench/ingest.ts measures sizes and parse rates on the older fixtures; this one
 * measures what a first ingest asks of the providers the replay serves.
 */
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { PROVIDER_IDS } from "../../src/config/providers/index.ts";
import { ingest } from "../../src/ingest/ingest.ts";
import { providerConfig } from "../../src/ingest/providers/index.ts";
import { silentLogger } from "../../src/log.ts";
import { dataDir } from "../../src/store/data-dir.ts";
import { copyOfFixture, testConfig } from "../../test/support/fixture.ts";
import { AS_OF } from "../../test/support/replay/cast.ts";
import { startStandIn } from "../../test/support/replay/stand-in.ts";
import { removeTempDirs } from "../../test/support/temp-dirs.ts";

const { values } = parseArgs({ options: { "detail-limit": { type: "string", default: "200" }, rounds: { type: "string", default: "1" }, unpaced: { type: "boolean", default: false } } });
const detailLimit = Number(values["detail-limit"]);
const rounds = Number(values.rounds);
const HTTP = { retries: 2, backoffMs: 5, timeoutMs: 30_000, maxRetryAfterMs: 5000 };

const standIn = startStandIn();
standIn.day = AS_OF;
// DefiLlama at its own default pace unless asked otherwise: the stand-in's settings leave it unpaced for the tests.
const { defillama_min_interval_ms: unpaced, ...paced } = standIn.settings() as Record<string, string>;
const settings = values.unpaced && unpaced !== undefined ? { ...paced, defillama_min_interval_ms: unpaced } : paced;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const walls: number[] = [];
const byProvider = new Map<string, { requests: number[]; fetch: number[] }>();
try {
  for (let round = 1; round <= rounds; round++) {
    const root = await copyOfFixture();
    const config = testConfig({ data_dir: root, ...settings, ingest_detail_limit: detailLimit });
    const asked = standIn.requests.length;
    const started = performance.now();
    const report = await ingest({
      dir: dataDir(root),
      today: AS_OF,
      source: { kind: "fetch", providers: new Map(PROVIDER_IDS.map((id) => [id, providerConfig(config, id)])), detailLimit, http: HTTP },
      log: silentLogger,
    });
    const wall = performance.now() - started;
    walls.push(wall);
    console.log(`round ${round}: ${standIn.requests.length - asked} requests reached the stand-in, ${(wall / 1000).toFixed(1)} s wall (${Object.entries(report.steps_ms).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`).join(", ")})`);
    for (const p of report.providers) {
      const entry = byProvider.get(p.id) ?? { requests: [], fetch: [] };
      entry.requests.push(p.requests);
      entry.fetch.push(p.fetch_ms);
      byProvider.set(p.id, entry);
      console.log(`  ${p.id.padEnd(11)} ${String(p.requests).padStart(5)} requests, fetch ${(p.fetch_ms / 1000).toFixed(1)} s, ${p.rows} rows, ${p.skipped.length} skipped`);
    }
    rmSync(root, { recursive: true, force: true });
  }
} finally {
  standIn.stop();
  // The fixture world it built (bun test's preload removes it for tests; a script must itself).
  removeTempDirs();
}
console.log(`\nfirst ingest through the stand-in, detail limit ${detailLimit}, DefiLlama ${values.unpaced ? "unpaced" : "at its default pace"}, ${rounds} round(s), medians:`);
for (const [id, e] of byProvider) console.log(`  ${id.padEnd(11)} ${String(median(e.requests)).padStart(5)} requests, fetch ${(median(e.fetch) / 1000).toFixed(1)} s`);
console.log(`  total       ${String([...byProvider.values()].reduce((n, e) => n + median(e.requests), 0)).padStart(5)} requests, wall ${(median(walls) / 1000).toFixed(1)} s`);
process.exit(0);
