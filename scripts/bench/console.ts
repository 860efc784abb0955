/**
 * The web console's entity page on the full data. Run by hand:
 *   bun scripts/bench/console.ts [--data-dir /tmp/ckg-full2] [--runs 10]
 *
 * Serves a working copy of the data directory, picks the protocol with the most facts that has
 * time-series, and opens its entity page in Chromium (puppeteer-core, Debian's chromium) `--runs`
 * times, each in a fresh tab with an empty cache: time from navigation to interactive (the page's
 * data-ready: attributes, relationships, signals and every chart drawn), p50 and max, and the size
 * of the page's script as sent and gzipped. The floor beside it: the same API calls the page makes
 * (explore, entity insights, the series), made with fetch from here in the same order.
 */
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { selfCommand } from "../../src/runtime.ts";
import { dataDir } from "../../src/store/data-dir.ts";
import { launchBrowser } from "../../test/support/browser.ts";
import { startServer } from "../../test/support/server.ts";
import { percentile, printTable } from "./stats.ts";
import { workingCopy } from "./working-copy.ts";

const { values } = parseArgs({ options: { "data-dir": { type: "string", default: "/tmp/ckg-full2" }, runs: { type: "string", default: "10" } } });
const runs = Number(values.runs);
const copy = workingCopy(dataDir(values["data-dir"]!), "ckg-console-bench-");
const server = await startServer(selfCommand("serve", "--data-dir", copy.root, "--port", "0"), { CKG_LOG_LEVEL: "info", CKG_SCAN_CRON: "off", CKG_FIRST_SCAN: "false", CKG_RATE_LIMIT_PER_MINUTE: "0" });
const browser = await launchBrowser();
try {
  await server.waitReady(600_000);
  const post = async <T>(path: string, body: unknown) =>
    (await (await fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json()) as T;
  // The protocol with the most facts, its own and those naming it (its page shows the most), among those with series.
  const answer = await post<{ data?: { name: string; id: string; facts: number }[]; error?: unknown }>("/api/timeseries", {
    sql_query:
      "SELECT e.name, e.id, sum(f.n) AS facts FROM (SELECT subject_id AS id, count(*) AS n FROM graph_facts GROUP BY 1 " +
      "UNION ALL SELECT object, count(*) FROM graph_facts WHERE object_kind = 'entity' GROUP BY 1) f JOIN graph_entities e ON e.id = f.id " +
      "WHERE e.type = 'Protocol' AND e.id IN (SELECT DISTINCT entity_id FROM ts_synthetic_protocol) GROUP BY e.name, e.id ORDER BY facts DESC LIMIT 1",
  });
  const top = answer.data?.[0];
  if (!top) throw new Error(`no protocol with series found: ${JSON.stringify(answer)}`);
  console.log(`entity: ${top.name} (${top.id}, ${top.facts} facts)`);

  const floor: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const [, analysis] = await Promise.all([
      post("/api/explore", { entity_name: top.name }),
      fetch(`${server.url}/api/insights/entity/${encodeURIComponent(top.name)}?since_hours=8760`).then((r) => r.json() as Promise<{ summary: { time_series_tables: string[] } }>),
    ]);
    await Promise.all(analysis.summary.time_series_tables.map((t) => post("/api/timeseries", { sql_query: `SELECT * FROM ${t} WHERE entity_id = '${top.id}' ORDER BY date` })));
    floor.push(performance.now() - t0);
  }

  const times: number[] = [];
  let script = { bytes: 0, gzip: 0 };
  for (let i = 0; i < runs; i++) {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    page.on("response", async (response) => {
      if (response.url().endsWith(".js") && script.bytes === 0) {
        const body = await response.buffer();
        script = { bytes: body.length, gzip: Bun.gzipSync(new Uint8Array(body)).length };
      }
    });
    const t0 = performance.now();
    await page.goto(`${server.url}/#/entity/${encodeURIComponent(top.name)}`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector("article[data-ready='yes'] .chart [data-points]", { timeout: 60_000 });
    times.push(performance.now() - t0);
    await context.close();
  }
  const ms = (n: number) => `${n.toFixed(0)} ms`;
  printTable(`entity page of ${top.name}, ${runs} runs, fresh tab and cache each`, [
    ["navigation to interactive, p50 / max", `${ms(percentile(times, 50))} / ${ms(Math.max(...times))}`],
    ["floor: its API calls by fetch, p50 / max", `${ms(percentile(floor, 50))} / ${ms(Math.max(...floor))}`],
    ["ratio (p50)", `x${(percentile(times, 50) / percentile(floor, 50)).toFixed(2)}`],
    ["page script (first load)", `${(script.bytes / 1024).toFixed(0)} KB sent, ${(script.gzip / 1024).toFixed(0)} KB gzipped`],
  ]);
} finally {
  await browser.close();
  await server.stop();
  rmSync(copy.root, { recursive: true, force: true });
}
