/**
 * The state store on its two engines (SQLite and PostgreSQL). Run by hand:
 *   bun scripts/bench/state.ts [--data-dir /tmp/ckg-full] [--runs 200]
 *
 * Scans the data directory's live snapshot (all 28 types) into a scratch SQLite state database and
 * into a fresh PostgreSQL 15 (Debian's, started on a private port; installed when missing and root),
 * and prints for each: the time to write the scan's signals and moves (apply), the same scan again
 * (every signal touched), and p50/p99 of the reads the signal routes make (counts by type, the
 * strongest 50, one type, one entity's signals) beside the floor of any read (SELECT 1). SQLite is the baseline: ratios are PostgreSQL / SQLite.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createLogger } from "../../src/log.ts";
import { OfflineNarrator } from "../../src/signals/narratives.ts";
import { runScan } from "../../src/signals/scan.ts";
import { type SignalQuery, countByType, listSignals, querySignals } from "../../src/signals/store.ts";
import { dataDir } from "../../src/store/data-dir.ts";
import { openPostgresState } from "../../src/store/state-postgres.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import type { StateStore } from "../../src/store/state.ts";
import { startPostgres } from "../../test/support/postgres.ts";
import { percentile, printTable } from "./stats.ts";

const { values } = parseArgs({ options: { "data-dir": { type: "string", default: "/tmp/ckg-full" }, runs: { type: "string", default: "200" } } });
const dir = dataDir(values["data-dir"]!);
const runs = Number(values.runs);
const log = createLogger("warn", 2);
const scratch = mkdtempSync(join(tmpdir(), "ckg-bench-state-"));
const pg = await startPostgres();

interface Figures {
  apply: number;
  again: number;
  signals: number;
  reads: Record<string, number[]>;
}

async function measure(state: StateStore): Promise<Figures> {
  const scan = () => runScan({ state, dir, narrator: new OfflineNarrator(), log, trigger: "bench" });
  const first = await scan();
  const again = await scan();
  const since = "1970-01-01T00:00:00Z";
  const top = (await listSignals(state, { qualification: "all", since, limit: 1 }))[0]!;
  const reads: Record<string, (q: SignalQuery) => Promise<unknown>> = {
    "floor: one round trip (SELECT 1)": () => state.get("SELECT 1 AS one"),
    "counts by type (qualified)": (q) => countByType(state, { ...q, qualification: "qualified" }),
    "strongest 50": (q) => listSignals(state, q),
    "one type, 50 with total": (q) => querySignals(state, { ...q, types: [top.signal_type] }),
    "one entity's active signals": (q) => querySignals(state, { ...q, entities: [top.entities[0]!], activeOnly: true, limit: 500 }),
  };
  const samples: Record<string, number[]> = {};
  for (const [name, read] of Object.entries(reads)) {
    samples[name] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await read({ qualification: "all", since, limit: 50 });
      samples[name].push(performance.now() - t0);
    }
  }
  return { apply: first.apply_ms, again: again.apply_ms, signals: Object.values(first.state.by_qualification).reduce((a, b) => a + b, 0), reads: samples };
}

try {
  const sqlite = openSqliteState(join(scratch, "state.sqlite"));
  const lite = await measure(sqlite);
  await sqlite.close();
  const postgres = await openPostgresState(pg.url);
  const remote = await measure(postgres);
  await postgres.close();
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  printTable(`writing one scan (${lite.signals.toLocaleString()} signals): SQLite | PostgreSQL | ratio`, [
    ["apply (new signals and moves)", `${ms(lite.apply)} | ${ms(remote.apply)} | x${(remote.apply / lite.apply).toFixed(2)}`],
    ["apply again (same data: touched)", `${ms(lite.again)} | ${ms(remote.again)} | x${(remote.again / lite.again).toFixed(2)}`],
  ]);
  printTable(
    `reads of the signal routes, p50 / p99 over ${runs}: SQLite | PostgreSQL | ratio of p50`,
    Object.keys(lite.reads).map((name) => {
      const [a, b] = [lite.reads[name]!, remote.reads[name]!];
      return [name, `${ms(percentile(a, 50))} / ${ms(percentile(a, 99))} | ${ms(percentile(b, 50))} / ${ms(percentile(b, 99))} | x${(percentile(b, 50) / percentile(a, 50)).toFixed(2)}`];
    }),
  );
} finally {
  await pg.stop();
  rmSync(scratch, { recursive: true, force: true });
}
