/**
 * Scans that recover, with real processes: a server whose whole process group is killed (SIGKILL)
 * during its first scan comes back, marks that scan interrupted and scans again, and the planted
 * signals are there; a scheduled scan that fell while the server was down is run at start; SIGTERM
 * during a scan lets it finish within the grace period or records it interrupted.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { isAlive, selfCommand } from "../../src/runtime.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { startServer } from "../support/server.ts";
import { until } from "../support/until.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

type ScanRow = { scan_id: string; status: string; trigger: string; pid: number | null; as_of: string };
const scansIn = (dir: string): ScanRow[] => {
  const db = new Database(join(dir, "state.sqlite"), { readonly: true });
  try {
    return db.query<ScanRow, []>("SELECT scan_id, status, trigger, pid, as_of FROM scans ORDER BY started_at").all();
  } finally {
    db.close();
  }
};

const serverEnv = (extra: Record<string, string> = {}) => ({ CKG_LOG_LEVEL: "info", CKG_SCAN_CRON: "off", CKG_FIRST_SCAN: "true", ...extra });

describe("scans that recover", () => {
  test("SIGKILL of the server's process group during the first scan: the restart marks it interrupted and scans again", async () => {
    const dir = await copyOfFixture();
    dirs.push(dir);
    // setsid: the server leads a process group of its own, so the kill takes its scan child too.
    const first = await startServer(["setsid", ...selfCommand("serve", "--data-dir", dir, "--port", "0")], serverEnv());
    const running = await until("the first scan to start", 60_000, () => scansIn(dir).find((s) => s.status === "running"));
    process.kill(-first.process.pid, "SIGKILL");
    await first.process.exited;
    await until("the scan process to die", 10_000, () => !isAlive(running.pid!));
    expect(scansIn(dir).find((s) => s.scan_id === running.scan_id)?.status).toBe("running"); // as the killed process left it

    const second = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), serverEnv());
    try {
      await second.waitReady(60_000);
      const recent = await until("the redone first-start scans", 60_000, async () => {
        const ready = (await (await fetch(`${second.url}/readyz`)).json()) as { scans: { running: unknown; recent: { scan_id: string; status: string; trigger: string; errors: { message: string }[] }[] } };
        const done = ready.scans.recent.filter((s) => s.trigger === "first-start" && s.status === "ok");
        return ready.scans.running === null && done.length >= 2 ? ready.scans.recent : undefined;
      });
      const interrupted = recent.find((s) => s.scan_id === running.scan_id)!;
      expect(interrupted.status).toBe("interrupted");
      expect(interrupted.errors[0]!.message).toContain("was gone when noticed");
      expect(scansIn(dir).some((s) => s.status === "running")).toBe(false);
      // The planted anomalies of the day are found again (these three were once missing).
      for (const type of ["stablecoin-depeg", "yield-anomaly", "smart-money-divergence"]) {
        const answer = (await (await fetch(`${second.url}/api/insights/signals/${type}?qualification=all`)).json()) as { count: number };
        expect(answer.count, type).toBeGreaterThan(0);
      }
    } finally {
      await second.stop();
    }
  }, 240_000);

  test("a scheduled scan that fell while the server was down runs at start", async () => {
    const dir = await copyOfFixture();
    dirs.push(dir);
    const scan = Bun.spawnSync(selfCommand("scan", "--data-dir", dir), { env: { ...process.env, CKG_LOG_LEVEL: "silent" } });
    expect(scan.exitCode).toBe(0);
    // As if that scan ran two days ago and the server was down at every 06:00 since.
    const db = new Database(join(dir, "state.sqlite"));
    db.query("UPDATE scans SET started_at = ?, finished_at = ?").run(...[2, 2].map((d) => new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 19) + "Z"));
    db.close();
    const server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), serverEnv({ CKG_SCAN_CRON: "0 6 * * *" }));
    try {
      await server.waitReady(60_000);
      await until("the catch-up scan", 60_000, () => scansIn(dir).find((s) => s.trigger === "catch-up" && s.status === "ok"));
      const logged = server.lines().find((l) => l.msg === "catching up: catch-up scan");
      expect(String(logged?.why)).toContain("was missed");
    } finally {
      await server.stop();
    }
  }, 180_000);

  test.each([
    ["finishes within the grace period", "60000", "ok"],
    ["is stopped past the grace period and recorded interrupted", "0", "interrupted"],
  ])("SIGTERM during a scan: it %s; the server exits 0", async (_, grace, status) => {
    const dir = await copyOfFixture();
    dirs.push(dir);
    const server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), serverEnv({ CKG_RUN_GRACE_MS: grace }));
    const running = await until("a scan to start", 60_000, () => scansIn(dir).find((s) => s.status === "running"));
    server.process.kill("SIGTERM");
    expect(await server.process.exited).toBe(0);
    expect(scansIn(dir).find((s) => s.scan_id === running.scan_id)?.status).toBe(status);
    expect(scansIn(dir).some((s) => s.status === "running")).toBe(false);
  }, 180_000);
});
