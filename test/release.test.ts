import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { checkSignature, readMachHeader, sliceFor } from "../scripts/release/macho.ts";
import { lockedPackages, ROOT } from "../scripts/release/packages.ts";
import { installsOn } from "../scripts/release/sbom.ts";
import { MACHO_CPU, TARGET_NAMES, TARGETS } from "../scripts/release/targets.ts";

// usearch ships one universal Mach-O file for both Macs: a real, signed file to read.
const universal = await Bun.file(join(ROOT, "node_modules", "usearch", "prebuilds", "darwin-arm64+x64", "usearch.node")).bytes();

describe("Mach-O: the macOS artifacts' slices, headers and signatures", () => {
  test("takes each architecture's slice out of a universal file; its header names that CPU", () => {
    for (const cpu of [MACHO_CPU.arm64, MACHO_CPU.x64]) {
      const slice = sliceFor(universal, cpu);
      expect(slice.length).toBeLessThan(universal.length);
      expect(readMachHeader(slice).cputype).toBe(cpu);
      expect(sliceFor(slice, cpu)).toBe(slice); // a thin file is already its own slice
    }
    expect(() => readMachHeader(universal)).toThrow(/not a 64-bit Mach-O image/);
  });

  test("a slice keeps a valid signature; one changed byte makes its page hash differ", () => {
    const slice = sliceFor(universal, MACHO_CPU.arm64).slice();
    const valid = checkSignature(slice, readMachHeader(slice));
    expect(valid).toMatchObject({ badPages: 0, coversCode: true });
    expect(valid!.pages).toBeGreaterThan(10);
    slice[5000] = slice[5000]! ^ 0xff;
    expect(checkSignature(slice, readMachHeader(slice))).toMatchObject({ pages: valid!.pages, badPages: 1 });
  });
});

describe("platform packages: which of package-lock.json's native packages each target carries", () => {
  test("exactly one DuckDB bindings package and one Bun runtime per target, its own", async () => {
    const locked = await lockedPackages();
    for (const name of TARGET_NAMES) {
      const target = TARGETS[name];
      const installed = (prefix: string) =>
        Object.entries(locked)
          .filter(([path, pkg]) => path.startsWith(`node_modules/${prefix}`) && installsOn(pkg, target))
          .map(([path]) => path.slice("node_modules/".length));
      expect(installed("@duckdb/node-bindings-")).toEqual([target.duckdbPackage]);
      expect(installed("@oven/bun-")).toEqual([target.runtimePackage]);
    }
  });
});
