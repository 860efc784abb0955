/**
 * Replicas sharing state in PostgreSQL (CKG_STATE_URL): two real `ckg serve` processes on one data
 * directory and one real PostgreSQL 15. Starting together they owe one first-start scan and run it
 * once; a replica cut off mid-scan (its process group stopped: alive, silent) loses the scan to the
 * other when its lease runs out; when it wakes, its scan finds itself taken over and writes nothing;
 * both then answer the same signals and changes. One writer (`ckg ingest`) publishes a snapshot
 * into the shared directory: both switch, and its changes are appended once. And PostgreSQL going
 * away and coming back.
 */
import { afterAll, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { SQL } from "bun";
import { selfCommand } from "../../src/runtime.ts";
import { currentSnapshotId, dataDir } from "../../src/store/data-dir.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { type ServerProcess, startServer } from "../support/server.ts";
import { providerEnv, startProviderFixtures } from "../support/provider-fixtures.ts";
import { postgresEngine } from "../support/state-engines.ts";
import { until } from "../support/until.ts";

const engine = postgresEngine();
const servers: ServerProcess[] = [];
let dir: string | undefined;
let sql: SQL | undefined;
afterAll(async () => {
  for (const server of servers) {
    try {
      process.kill(-server.process.pid, "SIGCONT");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error; // ESRCH: already gone
    }
    await server.stop();
  }
  await sql?.close();
  await engine.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type ScanRow = { scan_id: string; trigger: string; status: string; as_of: string; report: string | null };

test.skipIf(!engine.available)(
  "two replicas on PostgreSQL: one first-start scan, taken over when its replica is cut off, the same signals on both, one writer's snapshot reaching both",
  async () => {
    const url = await engine.freshUrl();
    dir = await copyOfFixture();
    const env = { CKG_LOG_LEVEL: "info", CKG_STATE_URL: url, CKG_SCAN_CRON: "off", CKG_FIRST_SCAN: "true", CKG_SCAN_LEASE_MS: "3000", CKG_RATE_LIMIT_PER_MINUTE: "0", CKG_SNAPSHOT_POLL_MS: "200" };
    // setsid: each replica leads its own process group, so stopping it stops its scan child too.
    servers.push(...(await Promise.all([0, 1].map(() => startServer(["setsid", ...selfCommand("serve", "--data-dir", dir!, "--port", "0")], env)))));
    sql = new SQL(url, { max: 2, connection: { search_path: "ckg" } });
    const scans = async () => (await sql!.unsafe("SELECT scan_id, trigger, status, as_of, report FROM scans ORDER BY started_at, scan_id")) as ScanRow[];

    // One replica claims the first-start scan (two days, a few seconds each): stopped the moment its
    // scan process shows, before it can finish. The scan process is in its server's process group.
    const running = await until("the first-start scan to start", 90_000, async () => (await scans()).find((s) => s.status === "running"));
    const pid = Number((await until("the scan's process", 10_000, async () => (await sql!.unsafe("SELECT pid FROM scans WHERE scan_id = $1", [running.scan_id]))[0]?.pid)) as number);
    const group = Number(readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ")[2]);
    const holder = servers.find((s) => s.process.pid === group)!;
    expect(holder).toBeDefined();
    // Cut the holder off mid-scan: alive but silent, its lease runs out and the other takes the scan over.
    process.kill(-holder.process.pid, "SIGSTOP");
    const other = servers.find((s) => s !== holder)!;
    const said = (server: ServerProcess, msg: string) => server.lines().some((l) => l.msg === msg);
    await until("the other replica to skip it", 30_000, async () => (said(other, "first-start scan runs on another replica") ? true : undefined));

    const handedOver = await until("the scan taken over to finish", 120_000, async () => {
      const rows = await scans();
      const redone = rows.filter((s) => s.trigger === "handover");
      return redone.length > 0 && redone.every((s) => s.status === "ok") ? redone : undefined;
    });
    // The scan that was running when the holder stopped (the first day's, or the second's if the
    // first had just finished) is recorded interrupted, and its days are scanned again.
    const left = (await scans()).find((s) => s.status === "interrupted")!;
    expect(left).toBeDefined();
    expect(left.report).toContain("stopped renewing its lease");
    expect(said(other, "a scan that no process runs any more is taken over here")).toBe(true);
    expect(handedOver.map((s) => s.as_of)).toContain(left.as_of);

    // The holder wakes: its scan finds itself taken over and writes nothing; nothing is left running.
    process.kill(-holder.process.pid, "SIGCONT");
    // Its claim was logged before it stopped; serve batches its log lines (up to 250 ms), so the line
    // may have been still in its buffer when it stopped: read once it runs again.
    await until("the holder's line", 10_000, async () => (said(holder, "catching up: first-start scan") ? true : undefined));
    await until("the woken scan to give up", 60_000, async () => (holder.stderr().includes("no longer running here") ? true : undefined));
    expect((await scans()).find((s) => s.scan_id === left.scan_id)!.status).toBe("interrupted");
    await until("no scan running", 60_000, async () => ((await scans()).some((s) => s.status === "running") ? undefined : true));

    // Both replicas answer from the same state.
    const answer = async (server: ServerProcess, path: string) => (await (await fetch(`${server.url}${path}`)).json()) as Record<string, unknown>;
    for (const path of ["/api/insights/signals?qualification=all&limit=500&since_hours=8760", "/api/changes?since_hours=8760&summary=true"]) {
      const [a, b] = await Promise.all(servers.map((s) => answer(s, path)));
      expect(a).toEqual(b);
    }
    const listing = await answer(other, "/api/insights/signals?qualification=all&limit=500&since_hours=8760");
    expect(listing.total as number).toBeGreaterThan(100);
    for (const server of servers) expect(((await answer(server, "/readyz")) as { state_store: string }).state_store).toBe("postgresql");

    // One writer publishes a snapshot into the shared directory: both replicas switch to it, and its
    // changes are appended to the shared feed once.
    const fake = startProviderFixtures();
    try {
      const writer = Bun.spawn(selfCommand("ingest"), {
        stdout: "ignore",
        stderr: "pipe",
        env: { ...process.env, ...providerEnv(fake.url), CKG_DATA_DIR: dir, CKG_STATE_URL: url, CKG_INGEST_PROVIDERS: "chains", CKG_LOG_LEVEL: "warn" },
      });
      expect(await writer.exited).toBe(0);
    } finally {
      fake.stop();
    }
    const published = currentSnapshotId(dataDir(dir))!;
    const snapshotOf = async (server: ServerProcess) => ((await answer(server, "/readyz")) as { snapshot?: { id: string } }).snapshot?.id;
    await until("both replicas on the published snapshot", 60_000, async () => ((await Promise.all(servers.map(snapshotOf))).every((id) => id === published) ? true : undefined));
    const applied = (await sql.unsafe("SELECT changes FROM applied_snapshots WHERE snapshot_id = $1", [published])) as { changes: number }[];
    expect(applied.length).toBe(1);
    expect(applied[0]!.changes).toBeGreaterThan(0);
    const fromIt = (await sql.unsafe("SELECT CAST(count(*) AS INTEGER) AS n FROM changes WHERE snapshot_id = $1", [published])) as { n: number }[];
    expect(fromIt[0]!.n).toBe(applied[0]!.changes);
    const ingests = (await sql.unsafe("SELECT status, snapshot_id FROM ingests")) as { status: string; snapshot_id: string }[];
    expect(ingests).toEqual([{ status: "ok", snapshot_id: published }]);
    const [a, b] = await Promise.all(servers.map((s) => answer(s, "/api/changes?since_hours=8760&summary=true")));
    expect(a).toEqual(b);
  },
  300_000,
);

test.skipIf(!engine.available)(
  "PostgreSQL away: /readyz says so, the routes that need the state answer 503, the others keep serving; back, everything answers",
  async () => {
    const url = await engine.freshUrl();
    const root = await copyOfFixture();
    const env = { CKG_LOG_LEVEL: "info", CKG_STATE_URL: url, CKG_SCAN_CRON: "off", CKG_FIRST_SCAN: "false", CKG_RATE_LIMIT_PER_MINUTE: "0" };
    const server = await startServer(selfCommand("serve", "--data-dir", root, "--port", "0"), env);
    servers.push(server);
    try {
      await server.waitReady(90_000);
      const get = async (path: string) => {
        const response = await fetch(`${server.url}${path}`);
        return { status: response.status, body: (await response.json()) as Record<string, unknown> & { error?: { code: string; message: string } } };
      };
      const search = () => fetch(`${server.url}/api/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "Aave" }) });
      expect((await get("/api/insights/signals")).status).toBe(200);

      const pg = await engine.server();
      pg.down();
      const ready = await get("/readyz");
      expect(ready.status).toBe(503);
      expect(String(ready.body.state_error)).toContain("the state store cannot be read");
      for (const path of ["/api/insights/signals", "/api/changes"]) {
        const answer = await get(path);
        expect(answer.status, path).toBe(503);
        expect(answer.body.error?.code).toBe("not_ready");
        expect(answer.body.error?.message).toContain("state store (PostgreSQL) cannot be reached");
      }
      expect((await search()).status).toBe(200);

      pg.up();
      await server.waitReady(30_000);
      expect((await get("/api/insights/signals")).status).toBe(200);
      expect((await get("/api/changes")).status).toBe(200);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
  180_000,
);
