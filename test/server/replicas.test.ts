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
  const deadline = performance.now() + 90_000;
  while (performance.now() < deadline && !servers.some((s) => said(s, SKIP).length > 0)) await Bun.sleep(100);
  const skipper = servers.find((s) => said(s, SKIP).length > 0);
  expect(skipper).toBeDefined();
  const scanned = servers.find((s) => s !== skipper)!;
  const skip = said(skipper!, SKIP)[0]!;
  const atThatFiring = (line: Record<string, unknown>) => Math.abs(Date.parse(String(line.time)) - Date.parse(String(skip.time))) < 2000;
  // The other replica scanned at that firing (its line may still be on its way through the pipe);
  // the one that skipped did not.
  const until = performance.now() + 10_000;
  while (performance.now() < until && !said(scanned, "signal scan starting").some(atThatFiring)) await Bun.sleep(100);
  expect(said(scanned, "signal scan starting").some(atThatFiring)).toBe(true);
  expect(said(skipper!, "signal scan starting").filter(atThatFiring)).toEqual([]);
  const skips = [skip];
  // The shared state database says who claimed that firing: the replica that scanned.
  const state = new Database(dataDir(dir).stateDb, { readonly: true });
  try {
    const claim = state.query<{ holder: string }, [string]>("SELECT holder FROM run_claims WHERE slot = ?").get(String(skips[0]!.slot));
    expect(claim?.holder).toBe(String(skips[0]!.holder));
    expect(claim?.holder).toEndWith(`:${scanned.process.pid}`);
  } finally {
    state.close();
  }
}, 240_000);
