import { describe, expect, test } from "bun:test";
import { collectEvery } from "../src/runtime.ts";

describe("collectEvery: full collections on a count, or once the RSS has grown", () => {
  test("without a growth, collects every n calls", () => {
    const collect = collectEvery(3);
    expect(Array.from({ length: 7 }, () => collect())).toEqual([false, false, true, false, false, true, false]);
  });

  test("looks every n calls, collects after the RSS grew by the given bytes, then waits for as much again", () => {
    const growth = 64 * 2 ** 20;
    const collect = collectEvery(2, growth);
    expect([collect(), collect()]).toEqual([false, false]); // nothing grew
    // Kept alive, so the collection cannot give it back: the RSS stays grown.
    const held = new Uint8Array(growth * 2).fill(1);
    expect(collect()).toBe(false); // not a look
    expect(collect()).toBe(true);
    expect([collect(), collect()]).toEqual([false, false]); // measured again after the collection
    expect(held[held.length - 1]).toBe(1);
  });
});
