/**
 * The state store's contract (src/store/state.ts), the same assertions on both engines: SQLite (the
 * data directory's state.sqlite) and a real PostgreSQL 15, where two stores on one database are two
 * replicas. SQLite gets one store: each process holds one connection, and two connections in one
 * process would wait for each other's lock synchronously (processes sharing the file are tested
 * for real in test/supervisor/replicas.test.ts). Scans, ingests, claims, leases, the changes feed
 * and transactions; signals and their moves run on both in test/signals/detection.test.ts, the
 * payment ledger in test/payments/ledger.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { Cron } from "croner";
import { queryChanges } from "../../src/graph/change-log.ts";
import { PaidAnswers } from "../../src/payments/idempotency.ts";
import { SignInAccess } from "../../src/payments/sign-in.ts";
import { SIGN_IN_WITH_X, type SIWxExtension, createSIWxPayload, encodeSIWxHeader } from "@x402/extensions/sign-in-with-x";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { handoverPlan, ingestOwed, planScans } from "../../src/supervisor/catch-up.ts";
import { HOST, claimRun, cronSlot, markInterrupted, renewLease } from "../../src/store/runs.ts";
import { type StateStore, inList, insertRows } from "../../src/store/state.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { openPostgresState } from "../../src/store/state-postgres.ts";
import { addDays } from "../../src/time.ts";
import { stateEngines } from "../support/state-engines.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { until } from "../support/until.ts";

for (const engine of stateEngines()) {
  describe.skipIf(!engine.available)(`the state store on ${engine.name}`, () => {
    /** Two replicas on one database (PostgreSQL); the same store twice for SQLite. */
    let first: StateStore;
    let second: StateStore;
    let root: string;

    beforeAll(async () => {
      root = tempDir("ckg-state-store-");
      if (engine.name === "SQLite") {
        first = second = openSqliteState(`${root}/state.sqlite`);
      } else {
        const url = await engine.freshUrl();
        [first, second] = await Promise.all([openPostgresState(url), openPostgresState(url)]);
      }
    }, 60_000);

    afterAll(async () => {
      await first?.close();
      if (second !== first) await second?.close();
      await engine.stop();
      rmSync(root, { recursive: true, force: true });
    });

    const insertScan = (scan: { id: string; asOf: string; status?: string; startedAt?: string; pid?: number | null; host?: string | null; leaseUntil?: string | null }) =>
      first.run("INSERT INTO scans (scan_id, started_at, finished_at, snapshot_id, as_of, trigger, status, pid, host, lease_until) VALUES (?, ?, ?, 's', ?, 'schedule', ?, ?, ?, ?)", [
        scan.id,
        scan.startedAt ?? `${scan.asOf}T06:00:00Z`,
        scan.status === "running" ? null : `${scan.asOf}T06:01:00Z`,
        scan.asOf,
        scan.status ?? "ok",
        scan.pid ?? null,
        scan.host ?? null,
        scan.leaseUntil ?? null,
      ]);
    const statusOf = async (id: string) => (await second.get<{ status: string }>("SELECT status FROM scans WHERE scan_id = ?", [id]))?.status;

    test("an IN list rounded up to a power of two (the last value repeated) answers what the exact list does", async () => {
      const names = ["in-a", "in-b", "in-c", "in-d", "in-e"];
      await first.batch(insertRows("push_dispatch", ["name", "signal_event", "change"], names.map((name, i) => [name, i, 0])));
      const asked = ["in-a", "in-c", "in-e"];
      const list = inList(asked);
      expect(list.sql).toBe("(?, ?, ?, ?)");
      expect(list.params).toEqual([...asked, "in-e"]);
      const rows = await second.all<{ name: string }>(`SELECT name FROM push_dispatch WHERE name IN ${list.sql} ORDER BY name`, list.params);
      expect(rows.map((r) => r.name)).toEqual(asked);
      expect(inList(["in-b"]).sql).toBe("(?)");
      await first.run(`DELETE FROM push_dispatch WHERE name IN ${inList(names).sql}`, inList(names).params);
    });

    test("missed as-of days are scanned oldest first, at most seven; replicas planning from the same state owe the same slot", async () => {
      const asOf = "2026-11-20";
      expect((await planScans(first, { asOf, cron: undefined, firstScan: true }))?.slot).toBe("scan@first-start:2026-11-20");
      expect((await planScans(first, { asOf, cron: undefined, firstScan: true }))?.args).toEqual(["--as-of", asOf, "--days", "2"]);
      expect(await planScans(first, { asOf, cron: undefined, firstScan: false })).toBeUndefined();
      await insertScan({ id: "plan-1", asOf: addDays(asOf, -10) });
      expect((await planScans(second, { asOf, cron: undefined, firstScan: true }))?.args).toEqual(["--as-of", asOf, "--days", "7"]);
      await insertScan({ id: "plan-2", asOf: addDays(asOf, -3) });
      expect((await planScans(second, { asOf, cron: undefined, firstScan: true }))?.args).toEqual(["--as-of", asOf, "--days", "3"]);
      const owed = await planScans(first, { asOf, cron: undefined, firstScan: true });
      expect((await planScans(second, { asOf, cron: undefined, firstScan: true }))?.slot).toBe(owed!.slot);
      await insertScan({ id: "plan-3", asOf });
      expect(await planScans(second, { asOf, cron: undefined, firstScan: true })).toBeUndefined();
    });

    test("ingests are owed only with a schedule; an interrupted import is not redone as a fetch", async () => {
      const cron = new Cron("0 5 * * *", { paused: true, timezone: "UTC" });
      const ingest = (id: string, trigger: string, status: string, startedAt: string) =>
        first.run("INSERT INTO ingests (ingest_id, started_at, trigger, status, pid) VALUES (?, ?, ?, ?, 1)", [id, startedAt, trigger, status]);
      const now = new Date();
      const recent = new Date(now.getTime() - 60_000).toISOString();
      await ingest("a", "schedule", "interrupted", recent);
      expect(await ingestOwed(second, undefined)).toBeUndefined();
      expect((await ingestOwed(second, cron, now))?.why).toContain("was interrupted");
      await ingest("b", "import", "interrupted", new Date(now.getTime() - 30_000).toISOString());
      expect((await ingestOwed(second, cron, now))?.why).toContain("the ingest started at " + recent);
      cron.stop();
    });

    test("a running scan is interrupted when its process here is gone or its lease ran out, never while both hold", async () => {
      const past = new Date(Date.now() - 60_000).toISOString();
      const future = new Date(Date.now() + 60_000).toISOString();
      await insertScan({ id: "dead-here", asOf: "2026-11-01", status: "running", pid: 11, host: HOST });
      await insertScan({ id: "alive-here", asOf: "2026-11-02", status: "running", pid: 12, host: HOST });
      await insertScan({ id: "elsewhere-leased", asOf: "2026-11-03", status: "running", pid: 11, host: "other-machine", leaseUntil: future });
      await insertScan({ id: "elsewhere-expired", asOf: "2026-11-04", status: "running", pid: 12, host: "other-machine", leaseUntil: past });
      await insertScan({ id: "alive-here-expired", asOf: "2026-11-05", status: "running", pid: 12, host: HOST, leaseUntil: past });
      // pid 12 is alive on this machine; any pid on another machine means nothing here.
      const noticed = await markInterrupted(second, (pid) => pid === 12);
      // A lapsed lease is taken over even when its process here lives: it is stuck or stopped.
      expect(noticed.scans.map((s) => s.scan_id).sort()).toEqual(["alive-here-expired", "dead-here", "elsewhere-expired"]);
      expect(noticed.scans.find((s) => s.scan_id === "elsewhere-expired")?.as_of).toBe("2026-11-04");
      expect(await statusOf("alive-here")).toBe("running");
      expect(await statusOf("elsewhere-leased")).toBe("running");
      const report = await first.get<{ report: string }>("SELECT report FROM scans WHERE scan_id = 'elsewhere-expired'");
      expect(report!.report).toContain("its replica on other-machine stopped renewing its lease");
      await first.run("UPDATE scans SET status = 'ok' WHERE status = 'running'");
    });

    test("of two replicas noticing a dead scan at once, exactly one records it (and takes it over)", async () => {
      for (let i = 0; i < 5; i++) await insertScan({ id: `race-${i}`, asOf: "2026-11-06", status: "running", pid: 1, host: "gone-machine", leaseUntil: "2000-01-01T00:00:00Z" });
      const [a, b] = await Promise.all([markInterrupted(first, () => true), markInterrupted(second, () => true)]);
      const ids = [...a.scans, ...b.scans].map((s) => s.scan_id).sort();
      expect(ids).toEqual(["race-0", "race-1", "race-2", "race-3", "race-4"]);
    });

    test("a lease is renewed for the scan a child process of this machine runs, and only that one", async () => {
      await insertScan({ id: "leased-mine", asOf: "2026-11-07", status: "running", pid: 4242, host: HOST, leaseUntil: "2000-01-01T00:00:00Z" });
      await insertScan({ id: "leased-other", asOf: "2026-11-07", status: "running", pid: 4242, host: "other-machine", leaseUntil: "2000-01-01T00:00:00Z" });
      const until = new Date(Date.now() + 120_000);
      await renewLease(second, 4242, until);
      const leases = await first.all<{ scan_id: string; lease_until: string }>("SELECT scan_id, lease_until FROM scans WHERE scan_id LIKE 'leased-%' ORDER BY scan_id");
      expect(leases).toEqual([
        { scan_id: "leased-mine", lease_until: until.toISOString().slice(0, 19) + "Z" },
        { scan_id: "leased-other", lease_until: "2000-01-01T00:00:00Z" },
      ]);
      await first.run("UPDATE scans SET status = 'ok' WHERE status = 'running'");
    });

    test("a cron firing is claimed by one of two replicas firing it at once", async () => {
      const firedAt = new Date("2026-11-26T06:00:00Z");
      const claims = await Promise.all([claimRun(first, cronSlot("scan", firedAt)), claimRun(second, cronSlot("scan", firedAt))]);
      // Both stores are this process here: the holder is one, and the slot was inserted once.
      expect(claims[0].slot).toBe("scan@2026-11-26T06:00");
      expect(claims[0].holder).toBe(claims[1].holder);
      expect((await first.all("SELECT slot FROM run_claims WHERE slot = 'scan@2026-11-26T06:00'")).length).toBe(1);
    });

    test("a claim whose process on this machine is gone passes to the next claimant; a live one holds", async () => {
      await first.run("INSERT INTO run_claims (slot, holder, claimed_at) VALUES ('scan@first-start:2026-11-26', ?, 'then')", [`${HOST}:99999`]);
      expect((await claimRun(second, "scan@first-start:2026-11-26", () => true)).claimed).toBe(false);
      expect(await claimRun(second, "scan@first-start:2026-11-26", () => false)).toMatchObject({ claimed: true, holder: `${HOST}:${process.pid}` });
      await first.run("INSERT INTO run_claims (slot, holder, claimed_at) VALUES ('scan@2026-11-26T08:00', 'other-machine:1', 'then')");
      expect((await claimRun(second, "scan@2026-11-26T08:00", () => false)).claimed).toBe(false);
    });

    test("transactions under one lock never interleave, across stores", async () => {
      // Each reads how many rows there are, then writes the next number: interleaved, two would write the same.
      const next = (store: StateStore) =>
        store.transaction(
          async (tx) => {
            const { n } = (await tx.get<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM run_claims WHERE slot LIKE 'seq-%'"))!;
            await Bun.sleep(5); // not an ordering: it widens the gap another transaction would slip into without the lock
            await tx.run("INSERT INTO run_claims (slot, holder, claimed_at) VALUES (?, 'test', 'now')", [`seq-${n}`]);
          },
          { lock: "test-seq" },
        );
      await Promise.all(Array.from({ length: 10 }, (_, i) => next(i % 2 ? first : second)));
      const slots = (await first.all<{ slot: string }>("SELECT slot FROM run_claims WHERE slot LIKE 'seq-%'")).map((r) => r.slot).sort();
      expect(slots).toEqual(Array.from({ length: 10 }, (_, i) => `seq-${i}`).sort());
    });

    test("a write made while a transaction is open is not part of it: a rollback keeps it", async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let opened!: () => void;
      const open = new Promise<void>((resolve) => (opened = resolve));
      const failing = first.transaction(async (tx) => {
        await tx.run("INSERT INTO run_claims (slot, holder, claimed_at) VALUES ('in-tx', 'test', 'now')");
        opened();
        await held;
        throw new Error("rolled back");
      });
      await open; // the transaction is open and has written
      let written = false;
      const outside = first.run("INSERT INTO run_claims (slot, holder, claimed_at) VALUES ('outside', 'test', 'now')").then((n) => {
        written = true;
        return n;
      });
      // PostgreSQL writes it beside the transaction, on another connection, while the transaction
      // is still open; SQLite's one connection has it wait for the transaction to end.
      if (engine.name === "PostgreSQL") await until("the write beside the open transaction", 10_000, () => written);
      release();
      await expect(failing).rejects.toThrow("rolled back");
      expect(await outside).toBe(1);
      const slots = (await second.all<{ slot: string }>("SELECT slot FROM run_claims WHERE slot IN ('in-tx', 'outside')")).map((r) => r.slot);
      expect(slots).toEqual(["outside"]);
    });

    test("paid answers under a payment identifier: claimed once, kept for retries across replicas, refused for another request", async () => {
      const [a, b] = [new PaidAnswers(first), new PaidAnswers(second)];
      const id = `pay_${crypto.randomUUID().replaceAll("-", "")}`;
      expect(await a.claim(id, "search {q}")).toEqual({ claimed: true });
      await expect(b.claim(id, "search {q}")).rejects.toThrow("is running");
      const settlement = { success: true, transaction: "0xtx", network: "eip155:84532" as const, payer: "0xpayer" };
      await a.keep(id, { answer: { results: [1] }, settlement });
      expect(await b.claim(id, "search {q}")).toEqual({ claimed: false, kept: { answer: { results: [1] }, settlement }, payer: "0xpayer" });
      await expect(b.claim(id, "search {other}")).rejects.toThrow("was used for another request");
      // Released (nothing charged): the identifier is free again; a kept answer is never released.
      const other = `${id}_2`;
      await a.claim(other, "explore {x}");
      await b.release(other);
      expect(await a.claim(other, "explore {y}")).toEqual({ claimed: true });
      await b.release(id);
      expect((await a.claim(id, "search {q}")).claimed).toBe(false);
      // A kept answer lasts a day; a claim its process never finished frees itself after ten minutes.
      expect((await a.claim(id, "search {q}", Date.now() + 25 * 3600_000)).claimed).toBe(true);
      const left = `${id}_3`;
      await a.claim(left, "search {q}");
      await expect(b.claim(left, "search {q}", Date.now() + 60_000)).rejects.toThrow("is running");
      expect(await b.claim(left, "search {q}", Date.now() + 11 * 60_000)).toEqual({ claimed: true });
    });

    test("sign-in access: a payment recorded on one replica lets its wallet sign in on the other, once per message, within the window", async () => {
      const base = "http://127.0.0.1:8402";
      const [a, b] = [new SignInAccess(first, base, 3600, ["eip155:84532"]), new SignInAccess(second, base, 3600, ["eip155:84532"])];
      const wallet = privateKeyToAccount(generatePrivateKey());
      const resource = `${base}/api/search/${crypto.randomUUID()}`;
      const message = async () => {
        const declared = (await a.declare(resource, [{ scheme: "exact", network: "eip155:84532", asset: "0x", amount: "1", payTo: "0x", maxTimeoutSeconds: 60, extra: {} }]))[SIGN_IN_WITH_X] as SIWxExtension;
        return encodeSIWxHeader(await createSIWxPayload({ ...declared.info, chainId: "eip155:84532", type: "eip191" }, wallet, resource));
      };
      expect(await b.grant(await message(), resource)).toMatchObject({ granted: false, reason: expect.stringContaining("has not paid") });
      await a.record(resource, wallet.address, Date.now() - 1800_000);
      const signed = await message();
      expect(await b.grant(signed, resource)).toEqual({ granted: true, payer: wallet.address.toLowerCase() });
      expect(await a.grant(signed, resource)).toMatchObject({ granted: false, reason: expect.stringContaining("used already") });
      // A settlement finishing late with an earlier time never shortens the window (one row, the later time).
      await b.record(resource, wallet.address, Date.now() - 3700_000);
      expect(await a.grant(await message(), resource)).toMatchObject({ granted: true });
      expect(await first.all("SELECT payer FROM siwx_access WHERE resource = ?", [new URL(resource).pathname])).toHaveLength(1);
      // Past the window: no access, and pruning forgets it.
      await a.prune(Date.now() + 3600_000);
      expect(await a.grant(await message(), resource)).toMatchObject({ granted: false, reason: expect.stringContaining("within the last 3600 s") });
    });

    test("the changes feed pages newest first by cursor and sums by operation and type", async () => {
      const now = new Date();
      const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000).toISOString().slice(0, 19) + "Z";
      const rows = Array.from({ length: 25 }, (_, i) => [at(i), `https://ckg.example/id/e${i % 7}`, `E${i % 7}`, i % 2 ? "Token" : "Protocol", i % 3 ? "UPDATE" : "CREATE", JSON.stringify(["tvl"]), "test", "snap"]);
      await first.batch(insertRows("changes", ["ts", "entity_uri", "entity_name", "entity_type", "operation", "fields", "source", "snapshot_id"], rows));
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await queryChanges(second, { since_hours: 72, limit: 10, summary: false, ...(cursor ? { cursor } : {}) }, now);
        if (!("changes" in page)) throw new Error("a page was expected");
        seen.push(...page.changes.map((c) => c.timestamp));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      expect(seen.length).toBe(25);
      expect(seen).toEqual([...seen].sort().reverse());
      const summary = await queryChanges(second, { since_hours: 72, limit: 10, summary: true, operation: "CREATE" }, now);
      if (!("summary" in summary)) throw new Error("a summary was expected");
      expect(summary.summary.total).toBe(9);
      expect(summary.summary.by_operation).toEqual({ CREATE: 9, UPDATE: 0 });
    });
  });
}

test("a scan taken over scans its day again, and every day after it up to the live snapshot's, at most seven", () => {
  expect(handoverPlan({ scan_id: "s1", as_of: "2026-11-19" }, "2026-11-20")).toMatchObject({ trigger: "handover", args: ["--as-of", "2026-11-20", "--days", "2"] });
  expect(handoverPlan({ scan_id: "s2", as_of: "2026-11-20" }, "2026-11-20").args).toEqual(["--as-of", "2026-11-20", "--days", "1"]);
  expect(handoverPlan({ scan_id: "s3", as_of: "2026-10-01" }, "2026-11-20").args).toEqual(["--as-of", "2026-11-20", "--days", "7"]);
  // A backfill of a day after the live snapshot's (an older replica's view) is redone as it was.
  expect(handoverPlan({ scan_id: "s4", as_of: "2026-11-21" }, "2026-11-20").args).toEqual(["--as-of", "2026-11-21", "--days", "1"]);
});
