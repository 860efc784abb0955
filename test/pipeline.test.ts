/**
 * The runner of named stages (src/pipeline.ts) that an ingest and a scan are lists of: stages run
 * in order on what the earlier ones gave, each timed by name; what they hold is released when the
 * run ends, last taken first, told the error when it failed; a stage's error reaches the caller as
 * it was thrown.
 */
import { expect, test } from "bun:test";
import { Pipeline } from "../src/pipeline.ts";
import { silentLogger } from "../src/log.ts";

class StageError extends Error {}

test("stages run in order, each on the run's input and what the stages before it gave, each timed by name", async () => {
  const seen: string[] = [];
  const run = Pipeline.of<{ words: string[] }>("count")
    .stage("split", ({ words }) => {
      seen.push("split");
      return { letters: words.flatMap((w) => [...w]) };
    })
    .stage("count", async ({ words, letters }) => {
      seen.push("count");
      return { perWord: letters.length / words.length };
    })
    .stage("name", ({ perWord }, tools) => ({ summary: `${perWord} letters a word`, timedBefore: Object.keys(tools.ms) }));
  const output = await run.run({ words: ["ab", "cdef"] }, silentLogger);
  expect(seen).toEqual(["split", "count"]);
  expect(output).toEqual({ words: ["ab", "cdef"], letters: ["a", "b", "c", "d", "e", "f"], perWord: 3, summary: "3 letters a word", timedBefore: ["split", "count"] });
});

test("a later stage's output replaces an earlier one of the same name", async () => {
  const output = await Pipeline.of<{ n: number }>("twice")
    .stage("double", ({ n }) => ({ n: n * 2 }))
    .stage("again", ({ n }) => ({ n: n * 2 }))
    .run({ n: 3 }, silentLogger);
  expect(output.n).toBe(12);
});

test("what stages hold is released when the run ends, last taken first, whether it succeeded or failed", async () => {
  const released: string[] = [];
  const holding = Pipeline.of<{ fail: boolean }>("hold")
    .stage("open", (_, tools) => {
      tools.defer((error) => released.push(`file${error ? ` after ${error.message}` : ""}`));
      return {};
    })
    .stage("lock", (_, tools) => {
      tools.defer((error) => released.push(`lock${error ? ` after ${error.message}` : ""}`));
      return {};
    })
    .stage("work", ({ fail }) => {
      if (fail) throw new StageError("the work failed");
      return { worked: true };
    })
    .stage("never after a failure", () => {
      released.push("ran after the failure");
      return {};
    });

  expect((await holding.run({ fail: false }, silentLogger)).worked).toBe(true);
  expect(released).toEqual(["ran after the failure", "lock", "file"]);

  released.length = 0;
  const failed = await holding.run({ fail: true }, silentLogger).catch((error: unknown) => error);
  // The stage's own error, as it was thrown: callers tell their errors apart by class.
  expect(failed).toBeInstanceOf(StageError);
  expect(released).toEqual(["lock after the work failed", "file after the work failed"]);
});

test("two stages of one name are refused when the list is made", () => {
  expect(() =>
    Pipeline.of<object>("twice")
      .stage("read", () => ({}))
      .stage("read", () => ({})),
  ).toThrow("twice: two stages named read");
});
