/**
 * The console's Quality page in a real browser (Chromium through puppeteer-core) against a real
 * `ckg serve` on the test data: the per-type table (all 28 types) under the backtest's window,
 * labels, world and horizon; each labelled event with a chart marking the days each type fired
 * (screened and unscreened told apart, the event's day marked); the controls. First with the
 * shipped report (no series: the marks alone on a day axis, and a note saying why), then with a
 * report of the data directory's own (what `ckg backtest --publish` writes) whose first event has a
 * series: the chart draws it. The page passes axe-core and the keyboard walk.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { selfCommand } from "../../src/runtime.ts";
import type { Catalog } from "../../src/signals/catalog.ts";
import type { QualityReport } from "../../src/signals/quality.ts";
import { checkPage, chromiumAvailable, launchBrowser, openPage, screenshot } from "../support/browser.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { type ServerProcess, startServer } from "../support/server.ts";
import { until } from "../support/until.ts";

const available = chromiumAvailable();

let server: ServerProcess;
let browser: Browser;
let page: Page;
let dir: string;
const pageErrors: string[] = [];

const catalog = async () => (await (await fetch(`${server.url}/api/signals/catalog`)).json()) as Catalog;
const open = (hash: string) => openPage(page, `${server.url}/${hash}`, ".quality[data-ready='yes']");
const chart = (id: string) => `[data-event='${id}'] svg[data-marks]`;

beforeAll(async () => {
  if (!available) return;
  dir = await copyOfFixture();
  server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), { CKG_LOG_LEVEL: "info", CKG_SCAN_CRON: "off", CKG_FIRST_SCAN: "false", CKG_RATE_LIMIT_PER_MINUTE: "0" });
  await server.waitReady(120_000);
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!available)("the Quality page in Chromium", () => {
  test("the shipped report: 28 types in the table under its window, labels, world and horizon; each event's fires marked on a day axis; the controls", async () => {
    const { signal_types: types, quality } = await catalog();
    expect(types.length).toBe(28);
    await open("#/quality");
    expect(await page.$$eval(".quality-types tbody tr", (rows) => rows.length)).toBe(28);
    const about = await page.$eval(".quality .about", (dl) => dl.textContent!);
    for (const said of [quality.window.from, quality.window.to, quality.labels.files[0]!, quality.world, `${quality.horizon_days} days`]) expect(about).toContain(said);
    const depeg = types.find((t) => t.slug === "stablecoin-depeg")!.quality;
    const row = await page.$eval(".quality-types tr[data-type='stablecoin-depeg']", (tr) => tr.textContent!);
    expect(row).toContain(`${depeg.detection!.caught} of ${depeg.detection!.events}`);
    expect(row).toContain(`${Math.round(depeg.alarms.precision! * 100)}% (${depeg.alarms.confirmed} of ${depeg.alarms.episodes})`);

    // Every labelled event is there; one whose type fired failing a screen shows both kinds of mark.
    expect(await page.$$eval("article.event", (events) => events.length)).toBe(quality.events.length);
    const event = quality.events.find((e) => e.fired.some((f) => f.days.length > f.screened_days.length)) ?? quality.events.find((e) => e.fired.length > 0)!;
    const days = event.fired.flatMap((f) => f.days).length;
    const screened = event.fired.flatMap((f) => f.screened_days).length;
    expect(days).toBeGreaterThan(0);
    const svg = chart(event.id);
    expect(Number(await page.$eval(svg, (s) => s.getAttribute("data-marks")))).toBe(days);
    expect(await page.$$eval(`${svg} .mark.screened`, (m) => m.length)).toBe(screened);
    expect(await page.$$eval(`${svg} .mark.unscreened`, (m) => m.length)).toBe(days - screened);
    expect(await page.$$eval(`${svg} .fires`, (rows) => rows.map((r) => r.getAttribute("data-type")))).toEqual(event.fired.map((f) => f.type));
    expect(await page.$$eval(`${svg} line.event-day`, (l) => l.length)).toBe(1);
    // No series in the shipped report: the marks alone, and the page says why.
    expect(await page.$eval(svg, (s) => s.getAttribute("data-points"))).toBe("0");
    expect(await page.$$eval(`${svg} path.line`, (p) => p.length)).toBe(0);
    expect(await page.$eval(".quality .notice", (n) => n.textContent)).toContain("carries no series");
    const description = await page.$eval(`${svg} desc`, (d) => d.textContent!);
    for (const f of event.fired) expect(description).toContain(`${f.type} fired on ${f.days.length} day`);
    expect(await page.$eval(`${svg} title`, (t) => t.textContent)).toContain("(no series)");

    expect(await page.$$eval("#controls + p + table tbody tr", (rows) => rows.length)).toBe(quality.controls.length);
    await checkPage(page, "quality");
    expect(pageErrors).toEqual([]);
  }, 120_000);

  test("a data directory's own report with series: the event's chart draws the series and marks the fires on it", async () => {
    const { signal_types: types, quality } = await catalog();
    const event = quality.events.find((e) => e.fired.length > 0)!;
    // A report of this directory's own, as `ckg backtest --publish` writes it; the first event's series
    // is made up here (a dip on the day), since the recorded providers' figures are not the project's to commit.
    const points: [string, number | null][] = Array.from({ length: 45 }, (_, i) => {
      const day = new Date(Date.parse(`${event.day}T00:00:00Z`) + (i - 30) * 86_400_000).toISOString().slice(0, 10);
      return [day, i === 33 ? null : i < 30 ? 1 : 1 - 0.1 / (i - 29)];
    });
    const report: QualityReport = {
      ...quality,
      types: types.map((t) => t.quality),
      events: quality.events.map((e) => (e.id === event.id ? { ...e, series: { table: "ts_made_up_by_the_test", column: "price", points } } : e)),
    };
    writeFileSync(join(dir, "quality.json"), JSON.stringify(report));
    // The server looks for a newer report every 10 s.
    await until("the published report to be served", 30_000, async () => (await catalog()).quality.events.some((e) => e.series !== null), { every: 500 });

    // A fresh load (going from #/quality to #/quality/<id> is the same document, which keeps its answer).
    await page.goto("about:blank");
    await open(`#/quality/${event.id}`);
    const svg = chart(event.id);
    await page.waitForSelector(`${svg}[data-points='44']`);
    // 45 days, one without a value: two runs of line.
    expect(await page.$eval(`${svg} path.line`, (p) => p.getAttribute("d")!.match(/M/g)!.length)).toBe(2);
    expect(Number(await page.$eval(svg, (s) => s.getAttribute("data-marks")))).toBe(event.fired.flatMap((f) => f.days).length);
    expect(await page.$eval(`${svg} title`, (t) => t.textContent)).toContain(`price (ts_made_up_by_the_test) of ${event.name}`);
    expect(await page.$$eval(".quality .notice", (n) => n.length)).toBe(0);
    // Events without a series say so on their own.
    const other = quality.events.find((e) => e.id !== event.id)!;
    expect(await page.$eval(`[data-event='${other.id}']`, (a) => a.textContent)).toContain("No series of this entity");
    await screenshot(page, "quality-series");
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
