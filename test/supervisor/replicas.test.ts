/**
 * Replicas sharing one data directory (and so one state database): each scheduled scan runs on one
 * of them. Two real `ckg serve` processes on a copy of the fixture, their cron firing at the same
 * instants: one claims the firing and scans, the other logs that another replica runs it.
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { Database } from "bun:sqlite";
import { selfCommand } from "../../src/runtime.ts";
import { dataDir } from "../../src/store/data-dir.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { type ServerProcess, startServer } from "../support/server.ts";
import { until } from "../support/until.ts";

const servers: ServerProcess[] = [];
let dir: string | undefined;
afterAll(async () => {
  for (const server of servers) await server.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a scheduled scan runs on one replica of two", async () => {
  dir = await copyOfFixture();
  // Every 20 seconds, so the test waits at most that long; no first scan, no rate limit.
  const env = { CKG_LOG_LEVEL: "info", CKG_SCAN_CRON: "*/20 * * * * *", CKG_FIRST_SCAN: "false", CKG_RATE_LIMIT_PER_MINUTE: "0" };
  for (let i = 0; i < 2; i++) servers.push(await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), env));
  await Promise.all(servers.map((s) => s.waitReady(120_000)));
  const said = (server: ServerProcess, msg: string) => server.lines().filter((l) => l.msg === msg);
  const SKIP = "scheduled scan runs on another replica";
  // A firing both schedulers saw (they start a moment apart): one of them skipped it.
  const skipper = await until("a replica to skip a firing", 90_000, () => servers.find((s) => said(s, SKIP).length > 0));
  const scanned = servers.find((s) => s !== skipper)!;
  const skip = said(skipper, SKIP)[0]!;
  // Firings are claimed by the minute (store/runs.ts cronSlot): in the skipped firing's minute the
  // other replica holds the claim and scans; the skipper, not holding it, scans at none of them.
  const minute = String(skip.slot).slice("scan@".length);
  const inThatMinute = (line: Record<string, unknown>) => line.trigger === "schedule" && String(line.time).startsWith(minute);
  // Its line may still be on its way through the pipe (log lines are batched).
  await until(`the other replica's scan in ${minute}`, 30_000, () => said(scanned, "signal scan starting").some(inThatMinute));
  expect(said(skipper, "signal scan starting").filter(inThatMinute)).toEqual([]);
  // The shared state database says who claimed that firing: the replica that scanned.
  const state = new Database(dataDir(dir).stateDb, { readonly: true });
  try {
    const claim = state.query<{ holder: string }, [string]>("SELECT holder FROM run_claims WHERE slot = ?").get(String(skip.slot));
    expect(claim?.holder).toBe(String(skip.holder));
    expect(claim?.holder).toEndWith(`:${scanned.process.pid}`);
  } finally {
    state.close();
  }
}, 240_000);
