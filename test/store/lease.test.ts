/**
 * The one way a scan's lease is held (store/runs.ts holdLease), by the scan's process and by the
 * server that started it: renewed on a timer for the process it names, on this machine, until
 * released; a released lease is renewed no more while another held beside it still is.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { HOST, holdLease } from "../../src/store/runs.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import type { StateStore } from "../../src/store/state.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { until } from "../support/until.ts";

const PAST = "2000-01-01T00:00:00Z";
let state: StateStore;

beforeAll(async () => {
  state = openSqliteState(`${tempDir("ckg-lease-")}/state.sqlite`);
  const scans: [string, number, string][] = [
    ["held", 4101, HOST],
    ["released", 4102, HOST],
    ["elsewhere", 4101, "other-machine"],
  ];
  for (const [id, pid, host] of scans) {
    await state.run("INSERT INTO scans (scan_id, started_at, snapshot_id, as_of, trigger, status, pid, host, lease_until) VALUES (?, 'then', 's', '2026-11-05', 'schedule', 'running', ?, ?, ?)", [
      id,
      pid,
      host,
      PAST,
    ]);
  }
});
afterAll(() => state.close());

const leaseOf = async (id: string) => (await state.get<{ lease_until: string }>("SELECT lease_until FROM scans WHERE scan_id = ?", [id]))!.lease_until;

/** Waits for one more renewal of the lease of `id`: put back in the past, then renewed. */
async function renewedAgain(id: string): Promise<void> {
  await state.run("UPDATE scans SET lease_until = ? WHERE scan_id = ?", [PAST, id]);
  await until(`the lease of ${id} renewed`, 10_000, async () => (await leaseOf(id)) > PAST);
}

test("a held lease is renewed until it is released; another process's, or another machine's, is left alone", async () => {
  // Renewed every 200 ms.
  const releaseHeld = holdLease(state, 4101, 600);
  const releaseOther = holdLease(state, 4102, 600);
  try {
    await until("both leases renewed", 10_000, async () => (await leaseOf("held")) > PAST && (await leaseOf("released")) > PAST);
    releaseOther();
    // Two renewals of the lease still held: a renewal of the released one that was under way is done.
    await renewedAgain("held");
    await renewedAgain("held");
    await state.run("UPDATE scans SET lease_until = ? WHERE scan_id = 'released'", [PAST]);
    // Two more: the released lease, were it still held, would have been renewed beside them.
    await renewedAgain("held");
    await renewedAgain("held");
    expect(await leaseOf("released")).toBe(PAST);
    expect(await leaseOf("elsewhere")).toBe(PAST);
  } finally {
    releaseHeld();
    releaseOther();
  }
}, 30_000);
