import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { generateWorld } from "../../src/demo/generate.ts";
import { SYNTHETIC_SOURCE } from "../../src/demo/synthetic/context.ts";
import { namespaces } from "../../src/entities/vocabulary.ts";
import { silentLogger } from "../../src/log.ts";
import { FILES, writeSnapshot } from "../../src/snapshot/write.ts";
import { openDuck, sqlString, withConnection } from "../../src/store/duckdb.ts";
import { TIMESERIES_DB } from "../../src/timeseries/database.ts";
import { tempDir } from "../support/temp-dirs.ts";

const asOf = new Date("2026-11-20T00:00:00Z");
/** Names a list must keep exactly: quotes, backslashes, control characters, non-ASCII, an empty one. */
const ODD = ['say "hi"', "back\\slash", "line\nbreak\ttab", "ünïcödé 💰 名前", "", "[\"json\"]", "\u0001"];

describe("writeSnapshot: the tables keep every list as the world has it", async () => {
  const { world } = await generateWorld({ scale: 3000, seed: 5, asOf }, silentLogger);
  world.addEntity({ id: "token/odd", type: "Token", labels: ["Token", "Stablecoin"], name: "Odd", aliases: ODD, source: SYNTHETIC_SOURCE });
  world.change({ ts: "2026-11-19T00:00:00Z", id: "token/odd", operation: "UPDATE", fields: ODD, source: SYNTHETIC_SOURCE });
  const dir = tempDir("ckg-write-");
  mkdirSync(join(dir, "ts"), { recursive: true });
  await writeSnapshot(world, {
    id: "test",
    series: { tables: [], truth: [] },
    timeseriesDb: TIMESERIES_DB,
    search: { dir: "search", embedder: "lsa", model: null, dims: 0, counts: {}, build_ms: 0 },
    dir,
    ns: namespaces("https://ckg.example/ontology#"),
    asOf,
    scale: "3000",
    seed: 5,
    startedAt: performance.now(),
    log: silentLogger,
  });
  const duck = await openDuck({ threads: 1 });
  const read = (sql: string) => withConnection(duck, async (c) => (await c.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[]);

  test("entities: labels and aliases of every entity, in order, odd characters and all", async () => {
    const rows = await read(`SELECT id, labels, aliases FROM read_parquet(${sqlString(join(dir, FILES.entities))})`);
    expect(rows.length).toBe(world.entities.size);
    for (const row of rows) {
      const entity = world.entities.get(row.id as string)!;
      expect({ id: row.id, labels: row.labels, aliases: row.aliases }).toEqual({ id: entity.id, labels: entity.labels, aliases: entity.aliases });
    }
    expect(rows.find((r) => r.id === "token/odd")!.aliases).toEqual(ODD);
  });

  test("changes: the fields of every change", async () => {
    const rows = await read(`SELECT entity_id, fields FROM read_parquet(${sqlString(join(dir, FILES.changes))}) WHERE entity_id = 'token/odd'`);
    expect(rows).toEqual([{ entity_id: "token/odd", fields: ODD }]);
    const counted = await read(`SELECT count(*)::INTEGER AS n FROM read_parquet(${sqlString(join(dir, FILES.changes))})`);
    expect(counted).toEqual([{ n: world.changes.length }]);
  });

  test("the list columns are lists of text, as before", async () => {
    const types = await read(`SELECT column_name, column_type FROM (DESCRIBE SELECT labels, aliases FROM read_parquet(${sqlString(join(dir, FILES.entities))}))`);
    expect(types).toEqual([
      { column_name: "labels", column_type: "VARCHAR[]" },
      { column_name: "aliases", column_type: "VARCHAR[]" },
    ]);
  });
});
