/**
 * Signal listings never sort every signal: one that did held the event loop 750 ms per request on
 * the full data's 72,615 signals (a soak once stalled on it). With no type or entity
 * filter they walk the signals_by_score index to their limit; a type filter reads that type's
 * signals by their index. Counts by type (the overview) read one index and no signal row: counting
 * the qualified ones read every row (260 ms). The plan is checked for each filter a route can send.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type SignalQuery, countingSql, listingSql } from "../../src/signals/store.ts";
import type { SqlValue } from "../../src/store/state.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "ckg-plan-"));
const state = openSqliteState(join(dir, "state.sqlite"));
const db = state.database;
afterAll(async () => {
  await state.close();
  rmSync(dir, { recursive: true, force: true });
});

const base: SignalQuery = { qualification: "all", since: "2026-01-01T00:00:00Z", limit: 20 };
const planOf = (query: SignalQuery, sqlOf: (query: SignalQuery) => { sql: string; params: SqlValue[] } = (q) => listingSql(q, "sqlite")) => {
  const { sql, params } = sqlOf(query);
  return db
    .query<{ detail: string }, SqlValue[]>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...params)
    .map((row) => row.detail)
    .join(" | ");
};

const unfiltered: Record<string, SignalQuery> = {
  "no filter": base,
  "one qualification": { ...base, qualification: "qualified" },
  "active only": { ...base, activeOnly: true },
};
for (const [name, query] of Object.entries(unfiltered)) {
  test(`listing (${name}) reads signals in score order, with no sort of its own`, () => {
    const plan = planOf(query);
    expect(plan).toContain("signals_by_score");
    expect(plan).not.toContain("TEMP B-TREE");
  });
}

test("a listing of some types reads only those types' signals, by index", () => {
  for (const query of [{ ...base, types: ["tvl-drain", "stablecoin-depeg"] }, { ...base, qualification: "screened" as const, types: ["tvl-drain"], activeOnly: true }]) {
    const plan = planOf(query);
    expect(plan).toContain("USING INDEX signals_by_type (signal_type=?");
    expect(plan).not.toMatch(/SCAN s\b/);
  }
});

test("counting signals by type reads the signals_by_type index alone, whatever the filters", () => {
  const queries: SignalQuery[] = [
    ...Object.values(unfiltered),
    { ...base, types: ["tvl-drain"] },
    { ...base, qualification: "rejected", types: ["tvl-drain", "stablecoin-depeg"], activeOnly: true },
  ];
  for (const query of queries) expect(planOf(query, countingSql)).toContain("USING COVERING INDEX signals_by_type");
});
