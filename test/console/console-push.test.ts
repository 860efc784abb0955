/**
 * Push delivery in the web console, in a real browser (Chromium through puppeteer-core) against a
 * real `ckg serve` on the test data, with no scan run yet: the signals page's Live makes a stream
 * subscription, and a `ckg scan` process's signals appear at the top of the list without a reload,
 * marked new; Live off closes the stream, Live on again reuses the subscription and resumes after
 * the last event; a subscription deleted elsewhere ends the stream (reconnecting, then ended). The subscriptions page makes a subscription from its form, shows the secret once,
 * lists it with its status, rotates its secret (the new one shown once) and deletes it. Each page
 * passes axe-core and the keyboard walk. The 402 when payments are on is in console-payments.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { Browser, Page } from "puppeteer-core";
import { selfCommand } from "../../src/runtime.ts";
import { checkPage as checkPageOf, chromiumAvailable, launchBrowser, openPage, screenshot } from "../support/browser.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { type ServerProcess, startServer } from "../support/server.ts";
import { until } from "../support/until.ts";

// In-page callbacks (page.evaluate) run in the browser; the test program has no DOM types.
declare const document: any;
declare const window: any;
declare const localStorage: { getItem(key: string): string | null };

const available = chromiumAvailable();
// A heartbeat each second: the stream of a deleted subscription ends within a second.
const ENV = { CKG_LOG_LEVEL: "info", CKG_SCAN_CRON: "off", CKG_FIRST_SCAN: "false", CKG_RATE_LIMIT_PER_MINUTE: "0", CKG_PUSH_POLL_MS: "100", CKG_EVENTS_HEARTBEAT_MS: "1000" };

interface Kept {
  subscription_id: string;
  secret: string;
  live_for?: string;
  last_event_id?: string;
}

let server: ServerProcess;
let browser: Browser;
let page: Page;
let dir: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!available) return;
  dir = await copyOfFixture();
  server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), ENV);
  await server.waitReady(120_000);
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  // Every EventSource the console opens, kept where the test can see its address and whether it is closed.
  await page.evaluateOnNewDocument(() => {
    const Native = window.EventSource;
    window.openedStreams = [];
    window.EventSource = class extends Native {
      constructor(url: string, init?: unknown) {
        super(url, init);
        window.openedStreams.push(this);
      }
    };
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const open = (hash: string, ready: string) => openPage(page, `${server.url}/${hash}`, ready);

const checkPage = (name: string) => checkPageOf(page, name);

const kept = async (): Promise<Kept[]> => JSON.parse((await page.evaluate(() => localStorage.getItem("ckg.subscriptions"))) ?? "[]") as Kept[];
const liveState = () => page.$eval(".live-state", (s) => s.getAttribute("data-state"));
const streams = () => page.evaluate(() => window.openedStreams.map((s: { url: string; readyState: number }) => ({ url: s.url, readyState: s.readyState }))) as Promise<{ url: string; readyState: number }[]>;

async function scanProcess(): Promise<void> {
  const child = Bun.spawn(selfCommand("scan", "--data-dir", dir, "--trigger", "test"), { env: { ...process.env, ...ENV }, stdout: "ignore", stderr: "pipe" });
  const code = await child.exited;
  if (code !== 0) throw new Error(`ckg scan exited ${code}: ${await new Response(child.stderr).text()}`);
}

async function getSubscription(id: string, secret: string): Promise<Response> {
  return fetch(`${server.url}/api/subscriptions/${id}`, { headers: { authorization: `Bearer ${secret}` } });
}

describe.skipIf(!available)("push delivery in the web console", () => {
  test("Live: a stream subscription for the page's filters; a scan's signals come to the top of the list without a reload, marked new", async () => {
    await open("#/signals?qualification=all&days=30", ".dashboard[data-ready='yes']");
    expect(await page.$eval(".dashboard", (d) => d.textContent)).toContain("No signals.");
    await page.evaluate(() => (window.sameDocument = true));
    expect(await liveState()).toBe("off");

    await page.click("xpath/.//button[text()='Live']");
    await page.waitForSelector(".live-state[data-state='live']", { timeout: 30_000 });
    expect(await page.$eval(".live-control button", (b) => b.getAttribute("aria-pressed"))).toBe("true");
    const [live] = await kept();
    expect(live?.live_for).toBe("{}"); // all types, any score, every state: no filter
    expect(((await (await getSubscription(live!.subscription_id, live!.secret)).json()) as { stream: boolean }).stream).toBe(true);

    await scanProcess();
    const scanned = (await (await fetch(`${server.url}/api/insights/signals?qualification=all&since_hours=24&limit=1`)).json()) as { total: number };
    expect(scanned.total).toBeGreaterThan(0);
    // One per signal (its latest event), the newest 200.
    const want = Math.min(200, scanned.total);
    let shown = 0;
    await until("the scan's signals on the page", 60_000, async () => (shown = (await page.$$(".signals > li.arrived")).length) === want, { every: 100, seen: () => ({ shown, want }) });
    expect(await page.evaluate(() => window.sameDocument)).toBe(true); // no reload
    const marks = await page.$$eval(".signals > li.arrived mark", (ms) => [...new Set(ms.map((m) => m.textContent))]);
    expect(marks).toEqual(["new"]);
    expect(await liveState()).toBe("live");
    const lastId = (await kept())[0]!.last_event_id;
    expect(lastId).toMatch(/^\d+-\d+$/);
    await checkPage("signals-live");

    // Off closes the stream.
    await page.click(".live-control button");
    await page.waitForSelector(".live-state[data-state='off']");
    expect((await streams()).map((s) => s.readyState)).toEqual([2]);

    // On again with the same filters: the same subscription, resumed after the last event this browser got.
    await page.click(".live-control button");
    await page.waitForSelector(".live-state[data-state='live']", { timeout: 30_000 });
    expect((await kept()).map((k) => k.subscription_id)).toEqual([live!.subscription_id]);
    const reopened = (await streams())[1]!;
    expect(new URL(reopened.url).searchParams.get("last_event_id")).toBe(lastId!);

    // Deleted elsewhere: the server ends the stream, EventSource tries again (reconnecting), is
    // refused, and the page says the subscription is gone instead of making a new one by itself.
    const deleted = await fetch(`${server.url}/api/subscriptions/${live!.subscription_id}`, { method: "DELETE", headers: { authorization: `Bearer ${live!.secret}` } });
    expect(deleted.status).toBe(200);
    await page.waitForSelector(".live-state[data-state='reconnecting']", { timeout: 30_000 });
    await page.waitForSelector(".live-state[data-state='ended']", { timeout: 30_000 });
    expect(await page.$eval("main .notice", (n) => n.textContent)).toContain("was deleted");
    expect(await kept()).toEqual([]);
    expect((await streams()).map((s) => s.readyState)).toEqual([2, 2]);
    await page.click(".live-control button");
    await page.waitForSelector(".live-state[data-state='off']");
    expect(pageErrors).toEqual([]);
  }, 240_000);

  test("the subscriptions page: made from the form, the secret shown once, listed with its status, its secret rotated, deleted", async () => {
    const [token] = (
      (await (
        await fetch(`${server.url}/api/timeseries`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ sql_query: "SELECT name FROM graph_entities WHERE type = 'Token' ORDER BY name LIMIT 1" }),
        })
      ).json()) as { data: { name: string }[] }
    ).data;

    await open("#/subscriptions", "#sub-types option");
    // Live's subscription, made and deleted in the test before, is not listed: this browser forgot it.
    expect(await page.$eval("main", (m) => m.textContent)).toContain("None yet.");
    // A new one is, marked as Live's; leaving the signals page closed its stream.
    await open("#/signals", ".live-control button");
    await page.click(".live-control button");
    await page.waitForSelector(".live-state[data-state='live']", { timeout: 30_000 });
    const opened = (await streams()).length;
    expect(opened).toBeGreaterThan(0);
    await open("#/subscriptions", "#sub-types option");
    await page.waitForSelector("li.subscription [data-field='status']");
    expect(await page.$eval("li.subscription h3", (h) => h.textContent)).toContain("made by Live");
    expect(await page.$eval("li.subscription [data-field='status']", (d) => d.textContent)).toBe("active");
    expect((await streams()).map((s) => s.readyState)).toEqual(Array(opened).fill(2));

    await page.select("#sub-types", "stablecoin-depeg", "yield-anomaly");
    await page.type("#sub-min-score", "50");
    await page.click("xpath/.//fieldset[legend[contains(., 'Qualification')]]//label[contains(., 'qualified')]/input");
    await page.type("#sub-entities", token!.name);
    await page.click("xpath/.//legend//label[contains(., 'Graph changes')]/input");
    await page.click("xpath/.//fieldset[legend[contains(., 'Operations')]]//label[contains(., 'CREATE')]/input");
    await page.click("xpath/.//button[text()='Subscribe']");
    const secret = await (await page.waitForSelector(".secret .secret-value", { timeout: 30_000 }))!.evaluate((c: any) => c.textContent as string);
    expect(secret).toMatch(/^whsec_/);
    const made = (await kept()).find((k) => k.secret === secret)!;
    expect(made.live_for).toBeUndefined();
    const item = `li.subscription[data-id='${made.subscription_id}']`;
    await page.waitForSelector(`${item} [data-field='status']`);
    expect(await page.$eval(`${item} [data-field='status']`, (d) => d.textContent)).toBe("active");
    expect(await page.$eval(`${item} [data-field='deliveries']`, (d) => d.textContent)).toBe("none yet");
    const text = await page.$eval(item, (li) => li.textContent!);
    expect(text).toMatch(/types (stablecoin-depeg, yield-anomaly|yield-anomaly, stablecoin-depeg); score ≥ 50; qualified; about /);
    expect(text).toContain("CREATE");
    const answer = (await (await getSubscription(made.subscription_id, secret)).json()) as { filters: { signals: { entities: string[]; min_score: number }; changes: { operations: string[] } } };
    expect(answer.filters.signals.min_score).toBe(50);
    expect(answer.filters.signals.entities).toHaveLength(1);
    expect(answer.filters.changes.operations).toEqual(["CREATE"]);
    await checkPage("subscriptions");

    // Shown once: back on the page, the subscription is listed and its secret is not.
    await open("#/status", "h1");
    await open("#/subscriptions", `${item} [data-field='status']`);
    expect(await page.$(".secret-value")).toBeNull();

    await page.click(`xpath/.//li[@data-id='${made.subscription_id}']//button[text()='Rotate secret']`);
    const rotated = await (await page.waitForSelector(`${item} .secret-value`))!.evaluate((c: any) => c.textContent as string);
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect((await kept()).find((k) => k.subscription_id === made.subscription_id)!.secret).toBe(rotated);
    expect((await getSubscription(made.subscription_id, rotated)).status).toBe(200);
    await screenshot(page, "subscription-rotated");

    await page.click(`xpath/.//li[@data-id='${made.subscription_id}']//button[text()='Delete']`);
    await page.click(`xpath/.//li[@data-id='${made.subscription_id}']//button[text()='Yes, delete']`);
    await page.waitForFunction((selector: string) => !document.querySelector(selector), {}, item);
    expect((await kept()).map((k) => k.subscription_id)).not.toContain(made.subscription_id);
    expect((await getSubscription(made.subscription_id, rotated)).status).toBe(404);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
