/**
 * What the benchmarks share: a ckg server on a data directory with its scans off (scale.ts,
 * sparql-forms.ts, search.ts, timeseries.ts); for the SPARQL ones, a sample of its entities, and Debian's Virtuoso 7 loaded with what `ckg export` writes
 * (test/support/virtuoso.ts), so the embedded store and Virtuoso answer from the same snapshot.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selfCommand } from "../../src/runtime.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { type DataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openDuck, sqlString } from "../../src/store/duckdb.ts";
import { type ServerProcess, startServer } from "../../test/support/server.ts";
import { startVirtuoso } from "../../test/support/virtuoso.ts";

/** A few entities of each kind the point queries ask about, from the snapshot's entities table. */
export async function sampleEntities(dir: DataDir, id: string, n: number): Promise<string[]> {
  const duck = await openDuck();
  const c = await duck.connect();
  const file = join(snapshotPath(dir, id), readManifest(snapshotPath(dir, id)).files.entities);
  const reader = await c.runAndReadAll(`SELECT id FROM read_parquet(${sqlString(file)}) ORDER BY hash(id) LIMIT ${n}`);
  const ids = reader.getRowsJS().map((r) => String(r[0]));
  c.closeSync();
  duck.closeSync();
  return ids;
}

/** `ckg serve` on a data directory (no scans, no rate limit), ready. */
export async function serve(dir: DataDir, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServer(selfCommand("serve", "--data-dir", dir.root, "--port", "0", "--rate-limit-per-minute", "0"), {
    CKG_LOG_LEVEL: "info", // startServer learns the port from the "listening" line
    CKG_SCAN_CRON: "off",
    CKG_FIRST_SCAN: "false",
    ...env,
  });
  try {
    await server.waitReady(1_800_000);
  } catch (error) {
    await server.stop(); // a server that failed to start (a graph too large for it) must not linger
    throw error;
  }
  return server;
}

/** Virtuoso loaded with the data directory's export while `fn` runs; `loaded` hears the bulk load's seconds. */
export async function onVirtuoso(source: DataDir, buffers: number, loaded: (seconds: number) => void, fn: (endpoint: string) => Promise<void>): Promise<void> {
  const exported = join(mkdtempSync(join(tmpdir(), "ckg-bench-export-")), "export");
  const exporting = Bun.spawn([...selfCommand("export", exported), "--data-dir", source.root], { stdout: "ignore", stderr: "pipe" });
  if ((await exporting.exited) !== 0) throw new Error(`ckg export: ${await new Response(exporting.stderr).text()}`);
  const virtuoso = await startVirtuoso({ buffers, loadDirs: [exported] });
  try {
    loaded((await virtuoso.loadDir(exported)) / 1000);
    await fn(virtuoso.endpoint);
  } finally {
    await virtuoso.stop();
    rmSync(join(exported, ".."), { recursive: true, force: true });
  }
}
