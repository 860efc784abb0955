/**
 * The web console in a real browser (Debian's Chromium through puppeteer-core) against a real
 * `ckg serve` on the test data: search -> entity page -> a chart with points; SPARQL and SQL
 * queries -> a table and a CSV download, an error at its line and column; the signals dashboard
 * filtered and a signal's evidence opened; the changes feed and the status page. Every page is
 * saved as a screenshot (test-results/screenshots/), checked with axe-core (no serious or critical
 * violation) and walked with the keyboard alone (every control reachable). Sign-in, with payments
 * on, is in console-payments.test.ts; Live and the subscriptions page in console-push.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { selfCommand } from "../../src/runtime.ts";
import { checkPage as checkPageOf, chromiumAvailable, launchBrowser, openPage, screenshot } from "../support/browser.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { type ServerProcess, startServer } from "../support/server.ts";
import { until } from "../support/until.ts";

// In-page callbacks (page.evaluate) run in the browser; the test program has no DOM types.
declare const document: any;
declare function getComputedStyle(element: unknown): { visibility: string };

const available = chromiumAvailable();

let server: ServerProcess;
let browser: Browser;
let page: Page;
let dir: string;
const downloads = mkdtempSync(join(tmpdir(), "ckg-downloads-"));
const pageErrors: string[] = [];

async function post<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return (await response.json()) as T;
}

beforeAll(async () => {
  if (!available) return;
  dir = await copyOfFixture();
  server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), { CKG_LOG_LEVEL: "info", CKG_SCAN_CRON: "off", CKG_FIRST_SCAN: "true", CKG_RATE_LIMIT_PER_MINUTE: "0" });
  await server.waitReady(120_000);
  // The first scan (two days) runs in the background: the dashboard needs its signals.
  let scans: unknown;
  await until(
    "the first-start scans (two days) to finish ok",
    120_000,
    async () => {
      const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { scans: { running: unknown; recent: { status: string }[] } };
      scans = ready.scans;
      return ready.scans.running === null && ready.scans.recent.filter((s) => s.status === "ok").length >= 2;
    },
    { every: 200, seen: () => scans },
  );
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  const cdp = await browser.target().createCDPSession();
  await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: downloads });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  rmSync(downloads, { recursive: true, force: true });
});

const open = (hash: string, ready: string) => openPage(page, `${server.url}/${hash}`, ready);

const checkPage = (name: string) => checkPageOf(page, name);

/** What the editor offers (Ctrl+Space) at the end of `text`. */
async function completionsOf(text: string): Promise<(string | null)[]> {
  await typeQuery(text);
  await page.keyboard.down("Control");
  await page.keyboard.press("Space");
  await page.keyboard.up("Control");
  await page.waitForSelector(".cm-tooltip-autocomplete li");
  return page.$$eval(".cm-tooltip-autocomplete li", (items) => items.map((i) => i.textContent));
}

/** Replaces the editor's text as a person would: focus, select all, type. */
async function typeQuery(text: string): Promise<void> {
  await page.waitForSelector(".cm-content");
  await page.click(".cm-content");
  await page.keyboard.down("Control");
  await page.keyboard.press("a");
  await page.keyboard.up("Control");
  await page.keyboard.press("Backspace");
  // CodeMirror closes brackets and indents as it is typed into: insert the text whole instead.
  await page.evaluate((value) => document.execCommand("insertText", false, value), text);
}

describe.skipIf(!available)("the web console in Chromium", () => {
  test("search as you type -> the entity page -> its time-series charted with points, over a chosen range", async () => {
    const [row] = (await post<{ data: { name: string }[] }>("/api/timeseries", {
      sql_query: "SELECT e.name FROM graph_entities e JOIN ts_synthetic_protocol t ON t.entity_id = e.id GROUP BY e.name ORDER BY e.name LIMIT 1",
    })).data;
    await open("", "#q");
    await page.type("#q", row!.name);
    const link = await page.waitForSelector(`xpath/.//ol[contains(@class,'hits')]//a[normalize-space(text())='${row!.name}']`, { timeout: 15_000 });
    expect(page.url()).toContain(`q=${encodeURIComponent(row!.name).replaceAll("%20", "+")}`);
    await checkPage("search");
    const clicked = performance.now();
    await link!.click();
    await page.waitForSelector("article[data-ready='yes'] .chart [data-points]", { timeout: 30_000 });
    // Measured, not asserted (scripts/bench/console.ts measures the full data's largest protocol).
    console.log(`entity page of ${row!.name} interactive ${Math.round(performance.now() - clicked)} ms after the click`);
    const points = async () => Number(await page.$eval(".chart [data-points]", (el) => el.getAttribute("data-points")));
    expect(await points()).toBeGreaterThan(60); // 90 days by default
    expect(await page.$eval("h1", (h) => h.textContent)).toContain(row!.name);
    expect(await page.$$eval(".synthetic", (marks) => marks.length)).toBeGreaterThan(0);
    await page.click("xpath/.//label[contains(., '30 days')]/input");
    await page.waitForFunction(() => Number(document.querySelector(".chart [data-points]")?.getAttribute("data-points")) <= 31);
    expect(page.url()).toContain("range=30");
    await checkPage("entity");
  }, 120_000);

  test("a SPARQL query -> a paged table and a CSV download; a syntax error shown at its line and column", async () => {
    await open("#/sparql", ".cm-content");
    await typeQuery("SELECT ?c ?name WHERE {\n  ?c a ckg:Chain ;\n     schema:name ?name .\n} ORDER BY ?name LIMIT 120");
    await page.click("button.primary");
    await page.waitForSelector(".results table tbody tr");
    expect(await page.$eval(".results [role=status]", (s) => s.textContent)).toContain("120 rows");
    expect(await page.$$eval(".results tbody tr", (rows) => rows.length)).toBe(50);
    await page.click("xpath/.//nav[@aria-label='result pages']//button[text()='Next']");
    expect(await page.$eval(".pager span", (s) => s.textContent)).toBe("page 2 of 3");
    await page.click("xpath/.//button[text()='Download CSV']");
    const csv = await waitForDownload("ckg-sparql.csv");
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toBe("c,name");
    expect(lines.length).toBe(121);
    await checkPage("sparql");

    // Prefixed terms complete from /api/schema.
    expect(await completionsOf("SELECT ?c WHERE { ?c a ckg:Cha")).toContain("ckg:Chain");

    await typeQuery("SELECT ?c WHERE {\n  ?c a ckg:Chain\n} LIMIT");
    await page.keyboard.down("Control");
    await page.keyboard.press("Enter");
    await page.keyboard.up("Control");
    await page.waitForSelector(".query-error .where");
    expect(await page.$eval(".query-error", (e) => e.textContent)).toContain("400 invalid_sparql");
    expect(await page.$eval(".query-error .where", (e) => e.textContent)).toMatch(/line 3, column \d+/);
    await screenshot(page, "sparql-error");

    // CONSTRUCT and DESCRIBE: the graph's triples, a row each.
    await typeQuery("DESCRIBE <chain/ethereum>");
    await page.click("button.primary");
    await page.waitForFunction(() => document.querySelector(".results thead")?.textContent?.includes("predicate"));
    const triples = await page.$$eval(".results tbody tr", (rows) => rows.map((r) => [...r.querySelectorAll("td")].map((c) => c.textContent)));
    expect(triples).toContainEqual(["https://ckg.example/id/chain/ethereum", "http://schema.org/name", '"Ethereum"']);
  }, 120_000);

  test("a SQL query -> a table and a CSV download; an error at its line and column", async () => {
    await open("#/sql", ".cm-content");
    await typeQuery("SELECT type, count(*) AS n\nFROM graph_entities\nGROUP BY type ORDER BY n DESC");
    await page.click("button.primary");
    await page.waitForSelector(".results table tbody tr");
    const types = await page.$$eval(".results tbody tr td:first-child", (cells) => cells.map((c) => c.textContent));
    expect(types).toContain("Protocol");
    expect(page.url()).toContain("q=SELECT");
    await page.click("xpath/.//button[text()='Download JSON']");
    const json = JSON.parse(await waitForDownload("ckg-sql.json")) as { type: string; n: number }[];
    expect(json.map((r) => r.type)).toEqual(types as string[]);
    await checkPage("sql");

    // Table names complete from /api/schema.
    expect(await completionsOf("SELECT * FROM ts_synthetic_po")).toContain("ts_synthetic_pool");

    await typeQuery("SELECT date\nFROM ts_synthetic_token WHER x");
    await page.click("button.primary");
    await page.waitForSelector(".query-error .where");
    expect(await page.$eval(".query-error .where", (e) => e.textContent)).toContain("line 2, column");
  }, 120_000);

  test("the signals dashboard: counts by type, a filter kept in the address, a signal's evidence opened and charted", async () => {
    await open("#/signals", ".dashboard[data-ready='yes']");
    const types = await page.$$eval("#by-type + table th", (cells) => cells.map((c) => c.textContent!));
    expect(types.length).toBeGreaterThan(5);
    await checkPage("signals");
    await page.select("#signal-type", "yield-anomaly");
    await page.waitForFunction(() => [...document.querySelectorAll("#by-type + table th")].map((c) => c.textContent).join() === "yield-anomaly");
    expect(page.url()).toContain("type=yield-anomaly");
    await page.click(".signals > li summary");
    await page.waitForSelector(".signals > li details[open] .evidence");
    expect(await page.$eval(".signals > li .evidence", (e) => e.textContent)).toContain("first found");
    // A yield spike's data points (the pool's APY and TVL that day) charted in their month of series, the point marked.
    const chart = await page.waitForSelector(".signals > li .evidence [data-points]", { timeout: 15_000 });
    expect(Number(await chart!.evaluate((el: any) => el.getAttribute("data-points")))).toBeGreaterThan(20);
    expect(await page.$eval(".signals > li .evidence figcaption", (c) => c.textContent)).toContain("apy of pool/");
    await screenshot(page, "signal-evidence");
    // The address alone brings the same view back.
    await page.goto(`${server.url}/#/signals?type=yield-anomaly&qualification=all`, { waitUntil: "domcontentloaded" });
    await page.reload({ waitUntil: "domcontentloaded" });
    await page.waitForSelector(".dashboard[data-ready='yes']");
    expect(await page.$eval("#signal-type", (s) => (s as unknown as { value: string }).value)).toBe("yield-anomaly");
  }, 120_000);

  test("without payments or a console token: nothing to sign in to, every page free", async () => {
    expect(await (await fetch(`${server.url}/console/session`)).json()).toEqual({ signed_in: false, sign_in: false, payments: "off" });
    await open("#/signin", "h1");
    expect(await page.$eval("main", (m) => m.textContent)).toContain("no console token");
    expect(await page.$eval(".session", (e) => e.textContent)).not.toContain("Sign in");
    await checkPage("signin-off");
    const refused = await fetch(`${server.url}/console/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: "x".repeat(20) }) });
    expect(refused.status).toBe(404);
  }, 60_000);

  test("the changes feed and the status page, synthetic data marked", async () => {
    await open("#/changes", "table tbody tr");
    expect(await page.$$eval("table tbody tr", (rows) => rows.length)).toBeGreaterThan(10);
    await checkPage("changes");
    await open("#/status", "h2");
    const text = await page.$eval("main", (m) => m.textContent!);
    expect(text).toContain("SYNTHETIC DEMO DATA");
    expect(text).toContain("synthetic-demo");
    expect(await page.$eval(".banner", (b) => b.textContent)).toContain("SYNTHETIC");
    await checkPage("status");
    expect(pageErrors).toEqual([]);
  }, 120_000);
});

/** A download's text once Chromium has written it whole (no partial file left, the size settled). */
async function waitForDownload(name: string): Promise<string> {
  let last = -1;
  return until(
    `${name} to be downloaded whole`,
    10_000,
    () => {
      const files = readdirSync(downloads);
      if (!files.includes(name) || files.some((f) => f.endsWith(".crdownload"))) return undefined;
      const text = readFileSync(join(downloads, name), "utf8");
      const settled = text.length > 0 && text.length === last;
      last = text.length;
      return settled ? text : undefined;
    },
    { every: 100, seen: () => readdirSync(downloads) },
  );
}
