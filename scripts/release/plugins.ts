/**
 * The build plugins that put a target's native addons into the executable (Bun never picks a
 * platform's files by itself: each import below names the target's own).
 */
import { join } from "node:path";
import type { BunPlugin } from "bun";
import type { Natives, NativeFile } from "./natives.ts";
import { ROOT } from "./packages.ts";
import type { Target } from "./targets.ts";

/**
 * DuckDB's addon (duckdb.node) loads its library through its rpath ($ORIGIN, @loader_path), so it
 * cannot be loaded from inside the executable's virtual file system. The `@duckdb/node-bindings`
 * module is replaced by one that embeds both files (the library compressed), unpacks them side by
 * side into <native dir>/duckdb-<version>-<target>/ on first use, and loads that copy. The folder
 * names the platform: a data directory can be shared by executables of different machines.
 */
export function duckdbBindings(target: Target, natives: Natives): BunPlugin {
  const { duckdbAddon: addon, duckdbLibrary: library } = natives;
  const described = (file: NativeFile, embedded: string, zstd: boolean) =>
    `{ embedded: ${embedded}, name: ${JSON.stringify(file.name)}, zstd: ${zstd}, bytes: ${file.bytes}, sha256: ${JSON.stringify(file.sha256)} }`;
  return {
    name: "embed-duckdb-bindings",
    setup(build) {
      build.onResolve({ filter: /^@duckdb\/node-bindings$/ }, () => ({ path: "duckdb-bindings", namespace: "ckg-embedded" }));
      build.onLoad({ filter: /^duckdb-bindings$/, namespace: "ckg-embedded" }, () => ({
        loader: "js",
        contents: `
          import { join } from "node:path";
          import addon from ${JSON.stringify(addon.path)} with { type: "file" };
          import library from ${JSON.stringify(library.compressedPath)} with { type: "file" };
          import { unpackNatives } from ${JSON.stringify(join(ROOT, "src", "runtime.ts"))};
          const dir = unpackNatives(${JSON.stringify(`duckdb-${addon.version}-${target.name}`)}, [
            ${described(library, "library", true)},
            ${described(addon, "addon", false)},
          ]);
          export default require(join(dir, "duckdb.node"));
        `,
      }));
    },
  };
}

/**
 * usearch finds its addon by walking up from its own folder to a prebuilds/ directory, which the
 * executable's virtual file system does not have. Its loader line is rewritten to require the
 * target's prebuild by path, which embeds the file (it links only the C and C++ libraries, so Bun
 * can load it straight from the embedded copy). The build fails if the line is not found.
 */
export function usearchAddon(natives: Natives): BunPlugin {
  return {
    name: "embed-usearch-addon",
    setup(build) {
      build.onLoad({ filter: /usearch[\\/]javascript[\\/]dist[\\/]esm[\\/]usearch\.js$/ }, async ({ path }) => {
        const source = await Bun.file(path).text();
        const loader = "const compiled = build(getBuildDir(getDirName()));";
        if (!source.includes(loader)) throw new Error(`usearch ${path} no longer loads its addon with '${loader}': update scripts/release/plugins.ts`);
        return { loader: "js", contents: source.replace(loader, `const compiled = require(${JSON.stringify(natives.usearchAddon.path)});`) };
      });
    },
  };
}
