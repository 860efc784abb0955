/**
 * Scans as the server runs them: the first start of a never-scanned data directory runs `ckg scan`
 * in a child process (the day before and the day), signal routes answer 503 meanwhile and have
 * content after, /readyz shows each scan's start, end, per-type counts and errors. And `ckg scan`
 * on the command line.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { selfCommand } from "../../src/runtime.ts";
import { DETECTORS } from "../../src/signals/detectors/index.ts";
import { type Running, copyOfFixture, json, startServices } from "../support/fixture.ts";
import { until } from "../support/until.ts";

let running: Running;

beforeAll(async () => {
  running = await startServices({ first_scan: true });
});

afterAll(async () => {
  await running.close();
});

test("the first start scans in a child process; routes wait for it, then have content", async () => {
  expect(running.services.scheduler.scanning).toBe(true);
  const waiting = await json(await running.request("GET", "/api/insights/signals/yield-anomaly"));
  expect(waiting.status).toBe(503);
  expect(waiting.body.error.code).toBe("not_ready");
  expect(waiting.headers.get("retry-after")).toBe("5");
  // Other routes answer meanwhile.
  expect((await running.request("GET", "/api/signals/catalog")).status).toBe(200);

  await until("the first-start scans to end", 90_000, () => !running.services.scheduler.scanning);

  const ready = await json(await running.request("GET", "/readyz"));
  const scans = ready.body.scans;
  expect(scans.cron).toBe("off");
  expect(scans.running).toBeNull();
  expect(scans.recent.length).toBe(2);
  const [last, first] = scans.recent;
  expect(first.as_of < last.as_of).toBe(true);
  for (const scan of scans.recent) {
    expect(scan).toMatchObject({ trigger: "first-start", status: "ok", errors: [] });
    expect(Object.keys(scan.per_type)).toEqual(DETECTORS.map((d) => d.slug));
    expect(scan.finished_at >= scan.started_at).toBe(true);
  }
  const { status, body } = await json(await running.request("GET", "/api/insights/signals?limit=5"));
  expect(status).toBe(200);
  expect(body.count).toBe(5);
  for (const s of body.signals) expect(s.qualification).toBe("qualified");
});

test("ckg scan runs one now, prints a summary per type, and refuses bad options", async () => {
  const dir = await copyOfFixture();
  try {
    const env = { ...process.env, CKG_LOG_LEVEL: "silent" };
    const ok = Bun.spawnSync(selfCommand("scan", "--data-dir", dir, "--types", "yield-anomaly,power-concentration"), { env });
    expect(ok.exitCode).toBe(0);
    const out = ok.stdout.toString();
    expect(out).toContain("yield-anomaly");
    expect(out).toContain("power-concentration");
    expect(out).not.toContain("bridge-fund");
    const bad = Bun.spawnSync(selfCommand("scan", "--data-dir", dir, "--types", "moon"), { env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.toString()).toContain("unknown signal type");
    expect(Bun.spawnSync(selfCommand("scan", "--data-dir", dir, "--as-of", "yesterday"), { env }).exitCode).toBe(2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
