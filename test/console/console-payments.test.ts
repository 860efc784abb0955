/**
 * The console when payments are on (a real local chain: anvil with an EIP-3009 USDC): an anonymous
 * visitor's paid calls are answered 402 and the console says so; a wrong token is 401; the
 * operator's token gives an HttpOnly session cookie under which the console's requests answer
 * without being charged (the pay-to balance and the ledger do not move); signing out ends it; the
 * token is never logged. Live on the signals page and the subscriptions form say a subscription's
 * price and that signing in makes it free; signed in, one is made free. Real `ckg serve`, real
 * Chromium.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { selfCommand } from "../../src/runtime.ts";
import { chromiumAvailable, launchBrowser, screenshot } from "../support/browser.ts";
import { type LocalChain, PAY_TO, SETTLER_KEY, startChain } from "../support/chain.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { type ServerProcess, startServer } from "../support/server.ts";
import { tempDir } from "../support/temp-dirs.ts";

// In-page callbacks (page.evaluate) run in the browser; the test program has no DOM types.
declare const document: any;

const available = chromiumAvailable();
const TOKEN = "operator-token-0123456789abcdef";

let chain: LocalChain;
let server: ServerProcess;
let browser: Browser;
let page: Page;
let dir: string;

beforeAll(async () => {
  if (!available) return;
  chain = await startChain();
  dir = await copyOfFixture();
  const keyFile = join(tempDir("ckg-key-"), "settler.key");
  writeFileSync(keyFile, SETTLER_KEY, { mode: 0o600 });
  server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), {
    CKG_LOG_LEVEL: "info",
    CKG_SCAN_CRON: "off",
    CKG_FIRST_SCAN: "false",
    CKG_RATE_LIMIT_PER_MINUTE: "0",
    CKG_PAY_TO: PAY_TO,
    CKG_NETWORK: "eip155:84532",
    CKG_RPC_URL: chain.rpcUrl,
    CKG_SETTLEMENT_KEY_FILE: keyFile,
    CKG_CONSOLE_TOKEN: TOKEN,
  });
  await server.waitReady(120_000);
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await chain?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const runSql = async () => {
  await page.goto(`${server.url}/#/sql`, { waitUntil: "domcontentloaded" });
  await page.waitForSelector(".cm-content");
  await page.click("button.primary");
  await page.waitForSelector(".results table tbody tr, .query-error", { timeout: 30_000 });
};

describe.skipIf(!available)("the console's sign-in, with payments on", () => {
  test("anonymous: paid calls are 402 and the console says so; the API stays paid", async () => {
    await runSql();
    expect(await page.$eval(".query-error", (e) => e.textContent)).toContain("402 payment_required");
    expect(await page.$eval(".session", (e) => e.textContent)).toContain("Sign in");
    await screenshot(page, "console-payment-required");
    const direct = await fetch(`${server.url}/api/timeseries`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ sql_query: "SELECT 1" }) });
    expect(direct.status).toBe(402);
    // The offer comes whatever the input, and says when the input would be refused anyway: the console passes that on.
    await page.click(".cm-content");
    await page.keyboard.down("Control");
    await page.keyboard.press("a");
    await page.keyboard.up("Control");
    await page.keyboard.press("Backspace");
    await page.evaluate((value) => document.execCommand("insertText", false, value), "DROP TABLE ts_synthetic_token");
    await page.click("button.primary");
    await page.waitForFunction(() => document.querySelector(".query-error")?.textContent.includes("refused anyway"));
    expect(await page.$eval(".query-error", (e) => e.textContent)).toContain("402 payment_required");
  }, 120_000);

  test("anonymous: Live and a new subscription are 402, and the console says the price and that signing in makes them free", async () => {
    await page.goto(`${server.url}/#/signals`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector(".live-control button");
    await page.click(".live-control button");
    const says = (text: string | null) => text?.includes("$1.00") && text.includes("Signing in as the operator makes");
    await page.waitForFunction(() => [...document.querySelectorAll(".error")].some((e: any) => e.textContent.includes("$1.00")));
    expect((await page.$$eval(".error", (es) => es.map((e) => e.textContent))).some(says)).toBe(true);
    expect(await page.$eval(".live-control button", (b) => b.getAttribute("aria-pressed"))).toBe("false");
    expect(await page.$eval(".live-state", (s) => s.getAttribute("data-state"))).toBe("off");

    await page.goto(`${server.url}/#/subscriptions`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector("#sub-types option");
    expect(await page.$eval("main", (m) => m.textContent)).toContain("Making a subscription is paid");
    await page.click("xpath/.//button[text()='Subscribe']");
    await page.waitForSelector("form.subscribe .error");
    const error = await page.$eval("form.subscribe .error", (e) => e.textContent);
    expect(error).toContain("402 payment_required");
    expect(says(error)).toBe(true);
    expect(await page.$(".secret-value")).toBeNull();
    await screenshot(page, "console-subscribe-payment-required");
  }, 120_000);

  test("a wrong token is 401, in the page and over HTTP; a forged cookie buys nothing", async () => {
    await page.goto(`${server.url}/#/signin`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector("#token");
    await page.type("#token", "not-the-operator-token");
    await page.click("button[type=submit]");
    await page.waitForSelector(".error");
    expect(await page.$eval(".error", (e) => e.textContent)).toContain("401 unauthorized");
    await screenshot(page, "console-sign-in-refused");
    const wrong = await fetch(`${server.url}/console/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: "nope" }) });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    expect(wrong.headers.get("set-cookie")).toBeNull();
    const forged = await fetch(`${server.url}/api/changes`, { headers: { cookie: `ckg_console=${Math.floor(Date.now() / 1000) + 3600}.forged` } });
    expect(forged.status).toBe(402);
  }, 120_000);

  test("the operator's token: an HttpOnly session, the console's requests answered and not charged; signing out ends it", async () => {
    const balance = await chain.balanceOf(PAY_TO);
    await page.goto(`${server.url}/#/signin`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector("#token");
    await page.click("#token", { count: 3 }); // what the last attempt left there, selected
    await page.keyboard.press("Backspace");
    await page.type("#token", TOKEN);
    await page.click("button[type=submit]");
    await page.waitForSelector("xpath/.//h1[text()='Signed in']");
    const cookie = (await page.cookies()).find((c) => c.name === "ckg_console")!;
    expect(cookie.httpOnly).toBe(true);
    // The operator is never asked to pay: bad input is its 4xx, as with payments off.
    const bad = await fetch(`${server.url}/api/timeseries`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `ckg_console=${cookie.value}` },
      body: JSON.stringify({ sql_query: "DROP TABLE ts_synthetic_token" }),
    });
    expect(bad.status).toBe(403);
    expect(bad.headers.get("payment-required")).toBeNull();
    expect(cookie.sameSite).toBe("Strict");
    expect(await page.evaluate(() => document.cookie)).not.toContain("ckg_console");

    await runSql();
    expect(await page.$$eval(".results tbody tr", (rows) => rows.length)).toBeGreaterThan(0);
    await page.goto(`${server.url}/#/signals`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector(".dashboard[data-ready='yes']");
    await screenshot(page, "console-signed-in");
    // A subscription is made without payment, its secret shown.
    await page.goto(`${server.url}/#/subscriptions`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector("#sub-types option");
    await page.click("xpath/.//button[text()='Subscribe']");
    await page.waitForSelector(".secret-value", { timeout: 30_000 });
    await page.waitForSelector("li.subscription [data-field='status']");
    expect(await page.$eval("li.subscription [data-field='status']", (d) => d.textContent)).toBe("active");
    expect(await chain.balanceOf(PAY_TO)).toBe(balance);
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { payments: { mode: string; ledger: Record<string, number> } };
    expect(ready.payments.ledger).toEqual({});

    await page.goto(`${server.url}/#/signin`, { waitUntil: "domcontentloaded" });
    await page.click("xpath/.//button[text()='Sign out']");
    await page.waitForSelector("xpath/.//h1[text()='Sign in']");
    await runSql();
    expect(await page.$eval(".query-error", (e) => e.textContent)).toContain("402 payment_required");
  }, 120_000);

  test("the token is never logged", () => {
    const logged = JSON.stringify(server.lines()) + server.stderr();
    expect(logged).not.toContain(TOKEN);
    expect(logged).toContain("/console/session");
  });
});
