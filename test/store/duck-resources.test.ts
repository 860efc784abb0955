/**
 * DuckDB's resources are one setting each (duckdb_threads, batch_memory_limit): set once at start,
 * every instance opened afterwards uses them unless it names its own, and the commands that run
 * DuckDB in a child process are forwarded them.
 */
import { afterEach, expect, test } from "bun:test";
import { COMMAND_SETTINGS } from "../../src/config/commands.ts";
import { commandEnv } from "../../src/supervisor/spawn.ts";
import { DUCK_RESOURCES, useDuckResources } from "../../src/store/duck-resources.ts";
import { openDuck, withConnection } from "../../src/store/duckdb.ts";
import { testConfig } from "../support/fixture.ts";

const defaults = { ...DUCK_RESOURCES };
afterEach(() => useDuckResources({ duckdb_threads: defaults.threads, batch_memory_limit: defaults.batchMemory }));

async function threadsOf(options: Parameters<typeof openDuck>[0] = {}): Promise<number> {
  const duck = await openDuck(options);
  try {
    return await withConnection(duck, async (c) => Number((await c.runAndReadAll("SELECT current_setting('threads') AS t")).getRowObjects()[0]!.t));
  } finally {
    duck.closeSync();
  }
}

test("an instance uses the configured threads unless it names its own", async () => {
  const config = testConfig({ duckdb_threads: 3, batch_memory_limit: "1GB" });
  useDuckResources(config);
  expect(DUCK_RESOURCES).toEqual({ threads: 3, batchMemory: "1GB" });
  expect(await threadsOf()).toBe(3);
  expect(await threadsOf({ threads: 1 })).toBe(1);
});

test("the commands that run DuckDB in a child process are forwarded both settings", () => {
  const config = testConfig({ duckdb_threads: 5, batch_memory_limit: "3GB" });
  for (const command of ["build", "ingest", "import", "scan", "backtest", "backup", "restore", "stats", "mcp"] as const) {
    expect(COMMAND_SETTINGS[command], command).toContain("duckdb_threads");
    expect(commandEnv(command, config), command).toMatchObject({ CKG_DUCKDB_THREADS: "5", CKG_BATCH_MEMORY_LIMIT: "3GB" });
  }
});
