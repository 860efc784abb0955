import { describe, expect, test } from "bun:test";
import { Rng } from "../../src/rng.ts";
import { kthLargest } from "../../src/search/list-probe.ts";

describe("kthLargest", () => {
  test("is the k-th of a sorted copy, counting repeats, for every k, with few or many distinct values", () => {
    const rng = new Rng("kth");
    for (const [length, distinct] of [[1, 1], [7, 2], [200, 5], [1_000, 1_000], [4_431, 300]] as const) {
      const values = Float32Array.from({ length }, () => Math.floor(rng.next() * distinct) / 7 - 3);
      const sorted = values.slice().sort();
      for (let k = 1; k <= length; k += Math.max(1, Math.floor(length / 97))) expect(kthLargest(values, k)).toBe(sorted[length - k]!);
      expect(kthLargest(values, length)).toBe(sorted[0]!);
      expect(kthLargest(values, 1)).toBe(sorted[length - 1]!);
    }
  });

  test("leaves its input as it was", () => {
    const values = Float32Array.from([3, 1, 2, 5, 4]);
    expect(kthLargest(values, 2)).toBe(4);
    expect([...values]).toEqual([3, 1, 2, 5, 4]);
  });
});
