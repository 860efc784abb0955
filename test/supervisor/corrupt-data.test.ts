/**
 * A corrupt snapshot published beside a live one (truncated Parquet, garbage N-Quads, a bad
 * manifest): the server refuses to switch to it, says which file and why in /readyz, and keeps
 * serving the live snapshot, graph included. A corrupt or locked state database: a clear error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readManifest } from "../../src/store/manifest.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { newSnapshotId, publishSnapshot, snapshotPath, stagingPath } from "../../src/store/data-dir.ts";
import { type Running, json, startServices } from "../support/fixture.ts";
import { until } from "../support/until.ts";

let run: Running;
beforeAll(async () => {
  run = await startServices({ snapshot_poll_ms: 100 });
});
afterAll(() => run.close());

/** Publishes a copy of the live snapshot with one file damaged; returns the new id. */
function publishDamaged(damage: (dir: string, files: Record<string, string>) => string): { id: string; file: string } {
  const { services } = run;
  const live = services.snapshot();
  const id = newSnapshotId(new Date(Date.now() + 1000));
  const staging = stagingPath(services.dir, id);
  cpSync(live.dir, staging, { recursive: true });
  const file = damage(staging, readManifest(staging).files as unknown as Record<string, string>);
  publishSnapshot(services.dir, id);
  return { id, file };
}

const cases: [string, (dir: string, files: Record<string, string>) => string][] = [
  ["a truncated Parquet file", (dir, files) => (truncateSync(join(dir, files.entities!), 100), files.entities!)],
  ["garbage N-Quads", (dir, files) => (writeFileSync(join(dir, files.graph!), "<a> <b> this is not RDF .\n".repeat(50)), files.graph!)],
  ["a bad manifest", (dir) => (writeFileSync(join(dir, "manifest.json"), readFileSync(join(dir, "manifest.json"), "utf8").slice(0, 200)), "manifest.json")],
];

test.each(cases)("%s: refused, named in /readyz, the live snapshot keeps serving", async (_, damage) => {
  const before = run.services.snapshot().id;
  const { id, file } = publishDamaged(damage);
  let seen: unknown;
  const ready = await until(`snapshot ${id} to be refused in /readyz`, 60_000, async () => {
    const body = (await json(await run.request("GET", "/readyz"))).body;
    seen = body.snapshot_rejected;
    return body.snapshot_rejected?.id === id ? body : undefined;
  }, { seen: () => seen });
  expect(ready.snapshot_rejected.error).toContain(file);
  expect(ready.status).toBe("ready");
  expect(run.services.snapshot().id).toBe(before);
  // Everything still answers from the live snapshot, the graph too.
  const sparql = await json(await run.request("POST", "/api/sparql", { query: "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }" }));
  expect(sparql.status).toBe(200);
  expect(sparql.body.data[0].n).toBeGreaterThan(0);
  expect((await run.request("POST", "/api/search", { query: "ethereum" })).status).toBe(200);
  expect((await run.request("POST", "/api/explore", { entity_name: "Ethereum" })).status).toBe(200);
  // The corrupt snapshot stays published: point CURRENT back, as an operator would.
  writeFileSync(run.services.dir.current, `${before}\n`);
}, 120_000);

describe("the state database", () => {
  test("corrupt: a clear error naming the file and what to do", () => {
    const path = join(tempDir("ckg-state-"), "state.sqlite");
    writeFileSync(path, "not a database ".repeat(500));
    expect(() => openSqliteState(path)).toThrow(`the state database ${path} is corrupt`);
  });

  test("locked by another process: a clear error once the 5 s wait is over", async () => {
    const path = join(tempDir("ckg-state-"), "state.sqlite");
    // Another process holds the write lock on a new database, so its first migration cannot run.
    const script = `const { Database } = require("bun:sqlite"); const db = new Database(${JSON.stringify(path)}, { create: true }); db.exec("PRAGMA journal_mode = WAL; BEGIN EXCLUSIVE; CREATE TABLE held (x)"); console.log("locked"); setInterval(() => {}, 1000);`;
    const holder = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe" });
    try {
      await holder.stdout.getReader().read();
      expect(() => openSqliteState(path)).toThrow(`the state database ${path} is locked by another process`);
    } finally {
      holder.kill();
      await holder.exited;
    }
  }, 30_000);
});
