import { describe, expect, test } from "bun:test";
import { FrameReader, LineReader, SocketWriter, encodeFrame } from "../../src/graph/graph-channel.ts";

describe("graph channel framing", () => {
  test("frames survive any split into chunks", () => {
    const payloads = ["", "x", "héllo wörld", "y".repeat(100_000), JSON.stringify({ a: [1, 2, 3] })];
    const stream = new Uint8Array(payloads.reduce((n, p, i) => n + encodeFrame(i, i % 2 === 0, new TextEncoder().encode(p)).length, 0));
    let offset = 0;
    payloads.forEach((p, i) => {
      const frame = encodeFrame(i, i % 2 === 0, new TextEncoder().encode(p));
      stream.set(frame, offset);
      offset += frame.length;
    });
    for (const size of [1, 3, 9, 10, 4096, stream.length]) {
      const reader = new FrameReader();
      const got: [number, boolean, string][] = [];
      for (let i = 0; i < stream.length; i += size) {
        // Copies, as a socket hands over fresh chunks.
        reader.push(stream.slice(i, i + size), (f) => got.push([f.id, f.ok, new TextDecoder().decode(f.payload)]));
      }
      expect(got).toEqual(payloads.map((p, i): [number, boolean, string] => [i, i % 2 === 0, p]));
    }
  });

  test("lines are split across chunks, multi-byte characters included", () => {
    const reader = new LineReader();
    const lines: string[] = [];
    const bytes = new TextEncoder().encode('{"a":"é"}\n{"b":1}\n\n{"c":');
    for (const b of bytes) reader.push(new Uint8Array([b]), (l) => lines.push(l));
    reader.push(new TextEncoder().encode("2}\n"), (l) => lines.push(l));
    expect(lines).toEqual(['{"a":"é"}', '{"b":1}', '{"c":2}']);
  });

  test("the writer keeps order when the kernel takes only part of a write", () => {
    const taken: number[] = [];
    let budget = 5;
    const writer = new SocketWriter({
      write(data: Uint8Array) {
        const n = Math.min(budget, data.length);
        budget -= n;
        taken.push(...data.subarray(0, n));
        return n;
      },
    });
    writer.write(new Uint8Array([1, 2, 3, 4, 5, 6, 7]));
    writer.write(new Uint8Array([8, 9]));
    expect(taken).toEqual([1, 2, 3, 4, 5]);
    budget = 100;
    writer.drain();
    expect(taken).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
