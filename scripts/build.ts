/**
 * `npm run build`: compile ckg into one executable, dist/ckg.
 *
 * DuckDB's Node addon (duckdb.node) loads libduckdb.so through its RUNPATH ($ORIGIN), so it cannot
 * be loaded from inside the executable's virtual file system. A build plugin replaces the
 * `@duckdb/node-bindings` module with one that embeds both files, writes them side by side into
 * <data_dir>/runtime/duckdb-<version>/ on first use (CKG_NATIVE_DIR overrides), and loads that copy.
 * usearch's addon is embedded the same way, without the unpacking (see usearchAddon).
 * Oxigraph's wasm, the ontology and the reference data are embedded by their imports.
 * onnxruntime-node is not embedded: the ONNX embedder works from a source checkout (npm start).
 */
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { BunPlugin } from "bun";
import pkg from "../package.json" with { type: "json" };

const root = resolve(import.meta.dir, "..");
const outfile = join(root, "dist", "ckg");
const bindingsDir = dirname(require.resolve("@duckdb/node-bindings-linux-x64/package.json"));
const bindingsVersion = (await Bun.file(join(bindingsDir, "package.json")).json()).version as string;

const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: root }).stdout.toString().trim();
const version = `${pkg.version}${commit ? `+${commit}` : ""}`;

const duckdbBindings: BunPlugin = {
  name: "embed-duckdb-bindings",
  setup(build) {
    build.onResolve({ filter: /^@duckdb\/node-bindings$/ }, () => ({ path: "duckdb-bindings", namespace: "ckg-embedded" }));
    build.onLoad({ filter: /^duckdb-bindings$/, namespace: "ckg-embedded" }, () => ({
      loader: "js",
      contents: `
        import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
        import { join } from "node:path";
        import { tmpdir } from "node:os";
        import addon from ${JSON.stringify(join(bindingsDir, "duckdb.node"))} with { type: "file" };
        import library from ${JSON.stringify(join(bindingsDir, "libduckdb.so"))} with { type: "file" };
        const dir = join(process.env.CKG_NATIVE_DIR || join(tmpdir(), "ckg-native"), "duckdb-${bindingsVersion}");
        mkdirSync(dir, { recursive: true });
        for (const [from, name] of [[library, "libduckdb.so"], [addon, "duckdb.node"]]) {
          const target = join(dir, name);
          if (existsSync(target) && statSync(target).size === Bun.file(from).size) continue;
          // Write beside, then rename: another ckg process may be loading the same folder.
          // (The embedded files live in Bun's virtual file system: read them, copyFile cannot.)
          const temp = target + "." + process.pid + ".tmp";
          writeFileSync(temp, readFileSync(from));
          renameSync(temp, target);
        }
        export default require(join(dir, "duckdb.node"));
      `,
    }));
  },
};

/**
 * usearch finds its addon by walking up from its own folder to a prebuilds/ directory, which the
 * executable's virtual file system does not have. Its loader line is rewritten to require the
 * linux-x64 prebuild by path, which embeds the file (it links only libc and libstdc++, so Bun can
 * load it straight from the embedded copy). The build fails if the line is not found.
 */
const usearchDir = dirname(require.resolve("usearch/package.json"));
const usearchAddon: BunPlugin = {
  name: "embed-usearch-addon",
  setup(build) {
    build.onLoad({ filter: /usearch[\\/]javascript[\\/]dist[\\/]esm[\\/]usearch\.js$/ }, async ({ path }) => {
      const source = await Bun.file(path).text();
      const loader = "const compiled = build(getBuildDir(getDirName()));";
      if (!source.includes(loader)) throw new Error(`usearch ${path} no longer loads its addon with '${loader}': update scripts/build.ts`);
      const addon = join(usearchDir, "prebuilds", "linux-x64", "usearch.node");
      return { loader: "js", contents: source.replace(loader, `const compiled = require(${JSON.stringify(addon)});`) };
    });
  },
};

mkdirSync(dirname(outfile), { recursive: true });
const started = performance.now();
const result = await Bun.build({
  // The vector index's scan workers are a second entrypoint: Bun embeds it for `new Worker(...)`.
  entrypoints: [join(root, "src", "main.ts"), join(root, "src", "search", "scan-worker.ts")],
  compile: { outfile },
  minify: { syntax: true, whitespace: true },
  sourcemap: "none",
  define: { CKG_BUILD_VERSION: JSON.stringify(version) },
  plugins: [duckdbBindings, usearchAddon],
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
const size = Bun.file(outfile).size;
console.log(`built ${outfile} (${version}, ${(size / 1e6).toFixed(0)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
