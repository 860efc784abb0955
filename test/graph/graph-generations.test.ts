/**
 * One snapshot per answer, in the graph processes: a snapshot's graph loads beside the live one
 * and answers nothing until activated; a query pinned to a snapshot reads that snapshot's graph,
 * before and after a switch, and once that graph has retired it is refused, never answered from
 * another snapshot. Real graph processes (`ckg __graph-worker`) over two small N-Quads files.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { GraphPool } from "../../src/graph/graph-pool.ts";
import { silentLogger } from "../../src/log.ts";
import { selfCommand } from "../../src/runtime.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { until } from "../support/until.ts";

const dir = tempDir("ckg-generations-");
/** A snapshot's graph saying which snapshot it is. */
function graphOf(id: string): { id: string; file: string; quads: number; graphs: string[] } {
  const file = join(dir, `${id}.nq`);
  writeFileSync(file, `<urn:ckg:test:this> <urn:ckg:test:snapshot> "${id}" <urn:ckg:test:graph> .\n`);
  return { id, file, quads: 1, graphs: ["urn:ckg:test:graph"] };
}
const WHICH = "SELECT ?id WHERE { GRAPH ?g { <urn:ckg:test:this> <urn:ckg:test:snapshot> ?id } }";

const pool = new GraphPool({ replicas: 1, command: selfCommand("__graph-worker"), log: silentLogger, retiredGraceMs: 200 });
afterAll(() => pool.close());

async function answer(snapshotId?: string): Promise<string> {
  const result = await pool.select(WHICH, 10_000, snapshotId);
  expect(result.rows).toHaveLength(1);
  return result.rows[0]!.id!.value;
}

describe("graph generations", () => {
  test("a loaded graph answers nothing until activated; pinned queries read their own snapshot across a switch; a retired graph refuses", async () => {
    await pool.load(graphOf("A"));
    pool.activate("A");
    expect(await answer()).toBe("A");

    // B is loaded beside A: unpinned queries and the status stay on A.
    await pool.load(graphOf("B"));
    expect(pool.status().snapshot).toBe("A");
    expect(await answer()).toBe("A");
    expect(await answer("B")).toBe("B");

    // The switch: unpinned queries read B; a query pinned to A still reads A while A retires.
    pool.activate("B");
    expect(pool.status().snapshot).toBe("B");
    expect(await answer()).toBe("B");
    expect(await answer("A")).toBe("A");

    // Past the grace period A's processes stop: a query pinned to A is refused (503), never B's answer.
    const refused = await until("a query pinned to A to be refused once A retired", 30_000, async () => {
      try {
        expect(await answer("A")).toBe("A");
        return undefined;
      } catch (error) {
        return error as { code?: string };
      }
    });
    expect(refused.code).toBe("not_ready");
    expect(await answer()).toBe("B");
  });

  test("a discarded graph never answers, and the live one is untouched", async () => {
    await pool.load(graphOf("C"));
    pool.discard("C");
    expect(pool.status().snapshot).toBe("B");
    expect(await answer()).toBe("B");
    await expect(pool.select(WHICH, 10_000, "C")).rejects.toMatchObject({ code: "not_ready" });
    // The live graph cannot be discarded by mistake.
    pool.discard("B");
    expect(await answer()).toBe("B");
  });
});
