import { describe, expect, test } from "bun:test";
import { Rng } from "../../src/rng.ts";
import { Int8DotKernel, mapQuery, matrixBytes } from "../../src/search/int8-dot.ts";
import { quantize } from "../../src/search/vector-files.ts";

const randomCodes = (rows: number, dims: number, rng: Rng) =>
  Int8Array.from({ length: rows * dims }, (_, i) => (i % 97 === 0 ? 127 : i % 89 === 0 ? -127 : Math.round(rng.next() * 254) - 127));

describe("int8 scan (WebAssembly SIMD)", () => {
  for (const dims of [11, 16, 32, 128]) {
    test(`scores are the exact int8 x int16 dot products (${dims} dimensions, padded to 16s in memory), rows and offsets as asked`, () => {
      const rng = new Rng(dims);
      const rows = 300;
      const scanner = new Int8DotKernel(dims, matrixBytes(rows, dims), rows);
      const matrix = scanner.reserve(rows);
      const codes = randomCodes(rows, dims, rng);
      scanner.write(matrix, 0, codes);
      for (let j = 0; j < dims; j++) scanner.query[j] = j % 5 === 0 ? 16_383 : j % 7 === 0 ? -16_383 : Math.round(rng.next() * 32_000) - 16_000;
      const expected = (row: number) => {
        let dot = 0;
        for (let j = 0; j < dims; j++) dot += codes[row * dims + j]! * scanner.query[j]!;
        return dot;
      };
      scanner.scan(matrix, 0, rows, 0);
      expect(Array.from(scanner.scores)).toEqual(Array.from({ length: rows }, (_, row) => expected(row)));
      // A slice of rows written after an offset: the earlier scores stay.
      scanner.scan(matrix, 10, 20, 5);
      expect(Array.from(scanner.scores.subarray(0, 5))).toEqual([0, 1, 2, 3, 4].map(expected));
      expect(Array.from(scanner.scores.subarray(5, 15))).toEqual(Array.from({ length: 10 }, (_, i) => expected(10 + i)));
    });
  }

  test("a query mapped into a matrix's scales scores its float rows: score / factor is the dot product, to the codes' rounding", () => {
    const rng = new Rng(3);
    const dims = 64;
    const rows = 200;
    const floats = Float32Array.from({ length: rows * dims }, () => rng.normal() / Math.sqrt(dims));
    const { scales, codes } = quantize(floats, dims);
    const scanner = new Int8DotKernel(dims, matrixBytes(rows, dims), rows);
    const matrix = scanner.reserve(rows);
    scanner.write(matrix, 0, codes);
    const query = Float32Array.from({ length: dims }, () => rng.normal() / Math.sqrt(dims));
    const factor = mapQuery(query, scales, scanner.query);
    scanner.scan(matrix, 0, rows, 0);
    for (let row = 0; row < rows; row++) {
      let dot = 0;
      for (let j = 0; j < dims; j++) dot += query[j]! * floats[row * dims + j]!;
      expect(Math.abs(scanner.scores[row]! / factor - dot)).toBeLessThan(0.02);
    }
    expect(mapQuery(new Float32Array(dims), scales, scanner.query)).toBe(1);
    expect(Array.from(scanner.query).every((v) => v === 0)).toBe(true);
  });

  test("scanners on one shared memory read the codes the first wrote, each with its own query and scores", () => {
    const rng = new Rng(5);
    const [dims, rows] = [32, 50];
    const codes = randomCodes(rows, dims, rng);
    const first = new Int8DotKernel(dims, matrixBytes(rows, dims), rows, { slots: 2, slot: 0 });
    first.write(first.reserve(rows), 0, codes);
    expect(first.memory.buffer).toBeInstanceOf(SharedArrayBuffer);
    const second = new Int8DotKernel(dims, matrixBytes(rows, dims), rows, { slots: 2, slot: 1, memory: first.memory });
    const matrix = second.reserve(rows);
    // Its writes are skipped: the codes in place are the first scanner's.
    second.write(matrix, 0, new Int8Array(rows * dims));
    first.query.fill(1);
    second.query.fill(-2);
    first.scan(matrix, 0, rows, 0);
    second.scan(matrix, 0, rows, 0);
    for (let row = 0; row < rows; row++) {
      const sum = codes.subarray(row * dims, (row + 1) * dims).reduce((a, b) => a + b, 0);
      expect([first.scores[row], second.scores[row]]).toEqual([sum, -2 * sum]);
    }
    expect(() => new Int8DotKernel(dims, matrixBytes(rows, dims), rows, { slots: 2, slot: 2, memory: first.memory })).toThrow("no slot");
    expect(() => new Int8DotKernel(dims, matrixBytes(rows * 100, dims), rows, { slots: 2, slot: 1, memory: first.memory })).toThrow("smaller");
  });

  test("refuses scans past a matrix or its scores, writes past a matrix, and more codes than it was made for", () => {
    const scanner = new Int8DotKernel(16, matrixBytes(10, 16), 10);
    const matrix = scanner.reserve(10);
    expect(() => scanner.scan(matrix, 0, 11, 0)).toThrow("out of range");
    expect(() => scanner.scan(matrix, 0, 10, 1)).toThrow("out of range");
    expect(() => scanner.write(matrix, 9, new Int8Array(32))).toThrow("out of range");
    expect(() => scanner.reserve(1)).toThrow("more codes");
  });
});
