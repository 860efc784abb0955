/**
 * A real browser for the console's tests and bench: Debian's Chromium (`apt-get install chromium`;
 * `.ci/run` installs it), driven by puppeteer-core (no browser download). Screenshots go to
 * test-results/screenshots/ (or CKG_SCREENSHOTS_DIR); axe-core checks accessibility in the page.
 */
import { expect } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { engineAvailable } from "./engines.ts";

// In-page callbacks (page.evaluate) run in the browser; the test program has no DOM types.
declare const document: any;
declare function getComputedStyle(element: unknown): { visibility: string };

const CHROMIUM = "/usr/bin/chromium";

/** Whether Chromium is here; its absence skips the browser tests with a warning, or fails them under CKG_REQUIRE_ENGINES=1. */
export function chromiumAvailable(): boolean {
  return engineAvailable("chromium", existsSync(CHROMIUM), "the console's browser tests", "apt-get install chromium; .ci/run installs it");
}

export async function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
}

const SCREENSHOTS = resolve(process.env.CKG_SCREENSHOTS_DIR ?? join(import.meta.dir, "..", "..", "test-results", "screenshots"));

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

const axeSource = await Bun.file(createRequire(import.meta.url).resolve("axe-core/axe.min.js")).text();

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's WCAG 2 A/AA rules on the page as it is now. */
async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const result = await (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
}

const FOCUSABLE = "a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea, summary, [tabindex]:not([tabindex='-1']), .cm-content";

/**
 * Presses Tab through the page from its first control and returns the controls it could not
 * reach: every visible link, button, field and focusable element must take the focus from the
 * keyboard alone.
 */
async function unreachableByKeyboard(page: Page): Promise<string[]> {
  const controls = await page.evaluate((selector) => {
    const state = globalThis as unknown as { reached: Set<unknown>; visibleControls: any[] };
    // Shown: it has a box, and no closed <details> around it (a summary belongs to its own details).
    const shown = (el: any) => {
      const outer = el.tagName === "SUMMARY" ? el.parentElement?.parentElement : el;
      return el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden" && !outer?.closest("details:not([open])");
    };
    state.visibleControls = [...document.querySelectorAll(selector)].filter(shown);
    state.reached = new Set();
    document.addEventListener("focusin", (e: { target: unknown }) => state.reached.add(e.target), true);
    state.visibleControls[0]?.focus();
    return state.visibleControls.length;
  }, FOCUSABLE);
  for (let i = 0; i < controls + 10; i++) await page.keyboard.press("Tab");
  return page.evaluate(() => {
    const state = globalThis as unknown as { reached: Set<unknown>; visibleControls: any[] };
    // A radio group is one stop (arrow keys move within it): reaching one of its buttons reaches all.
    const groups = new Set([...state.reached].filter((el: any) => el?.type === "radio").map((el: any) => el.name));
    return state.visibleControls.filter((el) => !state.reached.has(el) && !(el.type === "radio" && groups.has(el.name))).map((el: any) => `${el.tagName.toLowerCase()} ${el.textContent?.trim().slice(0, 40) ?? ""} ${el.id ? `#${el.id}` : ""}`);
  });
}

/** Opens a console address and waits for the page's own content. */
export async function openPage(page: Page, url: string, ready: string): Promise<void> {
  await page.goto(url, { waitUntil: "domcontentloaded" });
  await page.waitForSelector(ready, { timeout: 30_000 });
}

/** A screenshot, axe-core and the keyboard walk: what every page of the console must pass. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  const serious = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join("; ")})`)).toEqual([]);
  expect(await unreachableByKeyboard(page)).toEqual([]);
}
