import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TimeSlices, collectEvery, selfCommand, unpackNatives, type EmbeddedNative } from "../src/runtime.ts";
import { VERSION_LINE } from "../src/version.ts";
import { tempDir } from "./support/temp-dirs.ts";

const saved = { wrapper: process.env.CKG_SELF_WRAPPER, nativeDir: process.env.CKG_NATIVE_DIR };
afterEach(() => {
  for (const [name, value] of [["CKG_SELF_WRAPPER", saved.wrapper], ["CKG_NATIVE_DIR", saved.nativeDir]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("selfCommand: how ckg starts another copy of itself", () => {
  test("CKG_SELF_WRAPPER runs the copy through the given command (qemu-user for another architecture)", () => {
    const dir = tempDir("ckg-wrapper-");
    const wrapper = join(dir, "wrapper.sh");
    writeFileSync(wrapper, `#!/bin/sh\necho "$@" > "$0.args"\nexec "$@"\n`);
    chmodSync(wrapper, 0o755);
    process.env.CKG_SELF_WRAPPER = `${wrapper}  `;
    const run = Bun.spawnSync(selfCommand("--version"));
    expect(run.stdout.toString().trim()).toBe(VERSION_LINE);
    expect(readFileSync(`${wrapper}.args`, "utf8")).toContain("--version");
    delete process.env.CKG_SELF_WRAPPER;
    expect(selfCommand("--version")[0]).toBe(process.execPath);
  });
});

describe("unpackNatives: the executable's native libraries, unpacked beside each other", () => {
  const library = new TextEncoder().encode("a native library ".repeat(1000));
  const sha256 = new Bun.CryptoHasher("sha256").update(library).digest("hex");
  function embedded(dir: string, change: Partial<EmbeddedNative> = {}): EmbeddedNative {
    const packed = join(dir, "libdemo.so.zst");
    writeFileSync(packed, Bun.zstdCompressSync(library));
    return { embedded: packed, name: "libdemo.so", zstd: true, bytes: library.length, sha256, ...change };
  }

  test("decompresses into <CKG_NATIVE_DIR>/<folder>, keeps a complete copy, replaces a partial one", () => {
    const dir = tempDir("ckg-natives-");
    process.env.CKG_NATIVE_DIR = join(dir, "runtime");
    const folder = unpackNatives("demo-1.0-linux-x64", [embedded(dir)]);
    expect(folder).toBe(join(dir, "runtime", "demo-1.0-linux-x64"));
    const unpacked = join(folder, "libdemo.so");
    expect(readFileSync(unpacked)).toEqual(Buffer.from(library));
    expect(readdirSync(folder)).toEqual(["libdemo.so"]); // no temporary file left beside it
    const written = statSync(unpacked).mtimeMs;
    Bun.sleepSync(20);
    unpackNatives("demo-1.0-linux-x64", [embedded(dir)]);
    expect(statSync(unpacked).mtimeMs).toBe(written);
    writeFileSync(unpacked, library.subarray(0, 100)); // a copy another tool cut short
    unpackNatives("demo-1.0-linux-x64", [embedded(dir)]);
    expect(readFileSync(unpacked)).toEqual(Buffer.from(library));
  });

  test("refuses a file that does not unpack to the SHA-256 it was built with, and leaves nothing", () => {
    const dir = tempDir("ckg-natives-");
    process.env.CKG_NATIVE_DIR = join(dir, "runtime");
    expect(() => unpackNatives("demo", [embedded(dir, { sha256: "0".repeat(64) })])).toThrow(/not the 0{64} it was built with/);
    expect(existsSync(join(dir, "runtime", "demo", "libdemo.so"))).toBe(false);
  });
});

describe("collectEvery: a young-generation collection on a count", () => {
  test("collects every n calls and says when it did", () => {
    const collect = collectEvery(3);
    expect(Array.from({ length: 7 }, () => collect())).toEqual([false, false, true, false, false, true, false]);
  });
});

describe("TimeSlices: a long computation that lets the event loop turn", () => {
  /** Runs `count` chunks of one item each, noting the chunks and every turn of the event loop (a setImmediate chain) in order. */
  async function interleaving(slices: TimeSlices, count: number): Promise<string[]> {
    const seen: string[] = [];
    let turning = true;
    const turn = () => {
      if (!turning) return;
      seen.push("loop");
      setImmediate(turn);
    };
    setImmediate(turn);
    await slices.forEach(count, 1, (from, to) => {
      seen.push(`${from}-${to}`);
      Bun.sleepSync(2);
    });
    turning = false;
    return seen;
  }

  test("runs every chunk in order, and lets the loop turn between chunks once a slice is due", async () => {
    const seen = await interleaving(new TimeSlices(0), 3);
    expect(seen.filter((s) => s !== "loop")).toEqual(["0-1", "1-2", "2-3"]);
    // A slice of 0 ms is always due: the loop turned after each of the first two chunks.
    expect(seen.slice(0, 4)).toEqual(["0-1", "loop", "1-2", "loop"]);
  });

  test("keeps the thread while the slice has time left", async () => {
    const seen = await interleaving(new TimeSlices(60_000), 3);
    expect(seen.slice(0, 3)).toEqual(["0-1", "1-2", "2-3"]);
  });

  test("a range that does not divide by the chunk ends with a short chunk", async () => {
    const chunks: [number, number][] = [];
    await new TimeSlices().forEach(10, 4, (from, to) => chunks.push([from, to]));
    expect(chunks).toEqual([
      [0, 4],
      [4, 8],
      [8, 10],
    ]);
  });
});
