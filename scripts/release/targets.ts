/**
 * The platforms ckg's executable is built for, and where each one's native parts come from: the
 * Bun runtime (an @oven/bun-* package), DuckDB's bindings (an @duckdb/node-bindings-* package) and
 * usearch's prebuilt addon (inside the usearch package, one folder per platform).
 */

export const TARGET_NAMES = ["linux-x64", "linux-arm64", "darwin-arm64", "darwin-x64"] as const;
export type TargetName = (typeof TARGET_NAMES)[number];

export interface Target {
  name: TargetName;
  /** As npm's `os` and `cpu` fields spell them (package-lock.json). */
  os: "linux" | "darwin";
  arch: "x64" | "arm64";
  /** Bun's --target. */
  bun: "bun-linux-x64" | "bun-linux-arm64" | "bun-darwin-arm64" | "bun-darwin-x64";
  /** The npm package that carries this platform's Bun runtime, and the runtime's path inside it. */
  runtimePackage: string;
  runtimeBinary: string;
  duckdbPackage: string;
  /** DuckDB's library beside duckdb.node (the addon finds it through its rpath). */
  duckdbLibrary: "libduckdb.so" | "libduckdb.dylib";
  /** usearch's prebuilds/ folder; the macOS one is a universal file holding both architectures. */
  usearchPrebuild: string;
  /** Mach-O cputype: the slice to take from a universal file, and what the executable must say. */
  machoCpu?: number;
}

export const MACHO_CPU = { arm64: 0x0100000c, x64: 0x01000007 } as const;

export const TARGETS: Record<TargetName, Target> = {
  "linux-x64": linux("x64", "x64"),
  "linux-arm64": linux("arm64", "aarch64"),
  "darwin-arm64": darwin("arm64", "aarch64"),
  "darwin-x64": darwin("x64", "x64"),
};

function linux(arch: Target["arch"], bunArch: string): Target {
  return {
    name: `linux-${arch}`,
    os: "linux",
    arch,
    bun: `bun-linux-${arch}`,
    runtimePackage: `@oven/bun-linux-${bunArch}`,
    runtimeBinary: "bin/bun",
    duckdbPackage: `@duckdb/node-bindings-linux-${arch}`,
    duckdbLibrary: "libduckdb.so",
    usearchPrebuild: `linux-${arch}`,
  };
}

function darwin(arch: Target["arch"], bunArch: string): Target {
  return {
    name: `darwin-${arch}`,
    os: "darwin",
    arch,
    bun: `bun-darwin-${arch}`,
    runtimePackage: `@oven/bun-darwin-${bunArch}`,
    runtimeBinary: "bin/bun",
    duckdbPackage: `@duckdb/node-bindings-darwin-${arch}`,
    duckdbLibrary: "libduckdb.dylib",
    usearchPrebuild: "darwin-arm64+x64",
    machoCpu: MACHO_CPU[arch],
  };
}

/** The target of the machine running the build, if ckg is built for it. */
export function hostTarget(): Target {
  const name = `${process.platform}-${process.arch}`;
  if (!isTargetName(name)) throw new Error(`no executable target for this machine (${name}); pass --target ${TARGET_NAMES.join("|")}`);
  return TARGETS[name];
}

export function isTargetName(name: string): name is TargetName {
  return (TARGET_NAMES as readonly string[]).includes(name);
}
