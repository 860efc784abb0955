/**
 * `npm run build`: compile ckg into one executable (scripts/release/compile.ts).
 *   npm run build                         this machine's platform: dist/ckg
 *   npm run build -- --target linux-arm64 one platform: dist/linux-arm64/ckg
 *   npm run build -- --all                linux-x64, linux-arm64, darwin-arm64, darwin-x64
 * Each executable gets <file>.sha256 and a CycloneDX SBOM, <file>.cdx.json.
 * The native parts of another platform are fetched from npm at package-lock.json's versions
 * (scripts/release/packages.ts); Oxigraph's wasm, the ontology and the reference data are
 * embedded by their imports.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildInfo, compileExecutable } from "./release/compile.ts";
import { ROOT } from "./release/packages.ts";
import { hostTarget, isTargetName, TARGET_NAMES, TARGETS, type Target } from "./release/targets.ts";

const { values } = parseArgs({ options: { all: { type: "boolean", default: false }, target: { type: "string", multiple: true } } });
for (const name of values.target ?? []) {
  if (!isTargetName(name)) throw new Error(`unknown --target ${name}: one of ${TARGET_NAMES.join(", ")}`);
}
const named: Target[] = values.all ? TARGET_NAMES.map((name) => TARGETS[name]) : (values.target ?? []).filter(isTargetName).map((name) => TARGETS[name]);
const builds = named.length > 0 ? named.map((target) => ({ target, outfile: join(ROOT, "dist", target.name, "ckg") })) : [{ target: hostTarget(), outfile: join(ROOT, "dist", "ckg") }];

const info = buildInfo();
for (const { target, outfile } of builds) {
  const artifact = await compileExecutable(target, outfile, info);
  console.log(
    `built ${outfile} (${target.name}, ${info.version} commit ${info.commit}, ${(artifact.bytes / 1e6).toFixed(1)} MB, sha256 ${artifact.sha256.slice(0, 12)}…) in ${artifact.seconds.toFixed(1)} s`,
  );
}
