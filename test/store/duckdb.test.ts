import { describe, expect, test } from "bun:test";
import { openDuck, streamColumns, withConnection } from "../../src/store/duckdb.ts";

describe("streamColumns", () => {
  test("reads a result of many chunks, in order, as the same JavaScript values as a whole-result read", async () => {
    const duck = await openDuck();
    try {
      // 5,000 rows: three of DuckDB's 2,048-row chunks; strings, nulls, doubles, big integers and lists.
      const sql = `SELECT 'n' || (i * 7919 % 5000)::VARCHAR AS name, CASE WHEN i % 3 = 0 THEN NULL ELSE i / 4 END AS share,
                          i::BIGINT AS big, CASE WHEN i % 2 = 0 THEN [i::VARCHAR, 'x'] ELSE [] END AS words
                   FROM range(5000) t(i) ORDER BY name`;
      const [streamed, whole] = await withConnection(duck, async (c) => [await streamColumns(c, sql), (await c.runAndReadAll(sql)).getColumnsObjectJS()]);
      expect(Object.keys(streamed)).toEqual(["name", "share", "big", "words"]);
      expect(streamed.name!.length).toBe(5000);
      expect(streamed).toEqual(whole as Record<string, unknown[]>);
      expect(await withConnection(duck, (c) => streamColumns(c, "SELECT 1 AS a WHERE false"))).toEqual({ a: [] });
    } finally {
      duck.closeSync();
    }
  });
});
