/**
 * The native files one target's executable embeds, gathered from the packages that carry them
 * (packages.ts) and made ready to embed:
 * - DuckDB's library, zstd-compressed (70 MB to 18 MB on linux-x64). The executable unpacks it on
 *   first use (unpackNatives in src/runtime.ts) and checks it against the size and SHA-256 taken here.
 *   Compressing at level 19 takes about 45 s, so the result is cached under the library's hash.
 * - On macOS, one architecture's slice of DuckDB's and usearch's universal files (the other half
 *   would be dead weight; a slice keeps its own valid signature).
 */
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { basename, join } from "node:path";
import { sliceFor } from "./macho.ts";
import { CACHE, lockedPackage, packageDir } from "./packages.ts";
import type { Target } from "./targets.ts";

const ZSTD_LEVEL = 19;

/** A file the executable carries: which package it came from, and what it is once unpacked. */
export interface NativeFile {
  package: string;
  version: string;
  /** Its name in the package (and once unpacked). */
  name: string;
  /** The file to embed (the package's own, or a slice of it in the cache). */
  path: string;
  bytes: number;
  sha256: string;
}

export interface Natives {
  /** The Bun runtime the executable is made from; `executablePath` is unset for this machine's own. */
  runtime: NativeFile & { executablePath?: string };
  duckdbAddon: NativeFile;
  duckdbLibrary: NativeFile & { compressedPath: string; compressedBytes: number };
  usearchAddon: NativeFile;
}

export async function prepareNatives(target: Target): Promise<Natives> {
  const duckdbDir = await packageDir(target.duckdbPackage);
  const duckdbVersion = (await lockedPackage(target.duckdbPackage)).version;
  const library = await nativeFile(target, target.duckdbPackage, duckdbVersion, join(duckdbDir, target.duckdbLibrary));
  return {
    runtime: await runtime(target),
    duckdbAddon: await nativeFile(target, target.duckdbPackage, duckdbVersion, join(duckdbDir, "duckdb.node")),
    duckdbLibrary: { ...library, ...(await compressed(library)) },
    usearchAddon: await nativeFile(
      target,
      "usearch",
      (await lockedPackage("usearch")).version,
      join(await packageDir("usearch"), "prebuilds", target.usearchPrebuild, "usearch.node"),
    ),
  };
}

async function runtime(target: Target): Promise<Natives["runtime"]> {
  const { version } = await lockedPackage(target.runtimePackage);
  const host = `${process.platform}-${process.arch}` === target.name && Bun.version === version;
  // This machine's runtime is the Bun running this build (npm moves the binary out of its package).
  const path = host ? process.execPath : join(await packageDir(target.runtimePackage), target.runtimeBinary);
  const bytes = await Bun.file(path).bytes();
  const file = { package: target.runtimePackage, version, name: basename(target.runtimeBinary), path, bytes: bytes.length, sha256: sha256(bytes) };
  return host ? file : { ...file, executablePath: path };
}

async function nativeFile(target: Target, pkg: string, version: string, path: string): Promise<NativeFile> {
  if (!existsSync(path)) throw new Error(`${pkg}@${version} has no ${path}: update scripts/release/targets.ts`);
  const whole = await Bun.file(path).bytes();
  const bytes = target.machoCpu === undefined ? whole : sliceFor(whole, target.machoCpu);
  const file = { package: pkg, version, name: basename(path), path, bytes: bytes.length, sha256: sha256(bytes) };
  if (bytes === whole) return file;
  return { ...file, path: await cached(join("slices", file.sha256, file.name), () => bytes) };
}

async function compressed(library: NativeFile): Promise<{ compressedPath: string; compressedBytes: number }> {
  // Named as the library (in a folder named by its hash): Bun keeps the name inside the executable.
  const path = await cached(join("zstd", `${library.sha256}-${ZSTD_LEVEL}`, `${library.name}.zst`), async () =>
    Bun.zstdCompressSync(await Bun.file(library.path).bytes(), { level: ZSTD_LEVEL }),
  );
  return { compressedPath: path, compressedBytes: Bun.file(path).size };
}

/** A file under the cache, made by `make` unless an earlier build left it (named by content hash). */
async function cached(name: string, make: () => Uint8Array | Promise<Uint8Array>): Promise<string> {
  const path = join(CACHE, name);
  if (existsSync(path)) return path;
  mkdirSync(join(path, ".."), { recursive: true });
  await Bun.write(`${path}.${process.pid}.tmp`, await make());
  renameSync(`${path}.${process.pid}.tmp`, path);
  return path;
}

export function sha256(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}
