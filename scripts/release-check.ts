/**
 * Release check (CI runs it after `npm test`): builds the executables of every target
 * (`npm run build -- --all`) and checks each artifact, then prints a table of what each got and the
 * parts linux-x64's executable weighs.
 *   - all: the .sha256 file matches; the SBOM is CycloneDX 1.6, names the artifact's hash, lists the
 *     platform's DuckDB bindings and Bun runtime with their embedded files, no other platform's.
 *   - linux-x64 (natively) and linux-arm64 (under Debian's qemu-user-static, with the arm64 C and C++
 *     libraries of libc6-arm64-cross and libstdc++6-arm64-cross): --version, serve on an empty data
 *     directory until /readyz 200, a SPARQL query, a search, a SQL query, SIGTERM, a second start.
 *   - darwin-*: Mach-O header (64-bit, CPU type, MH_EXECUTE) and the code signature's page hashes.
 * Options: --no-build (check dist/ as it is), --scale <s> (the data the servers build; default
 * `default`), --skip-emulated (no qemu run: say so in the table).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { checkChecksum, checkMacho, checkSbom } from "./release/check-artifact.ts";
import { checkServe } from "./release/check-serve.ts";
import { embeddedModules } from "./release/embedded.ts";
import { ROOT } from "./release/packages.ts";
import { TARGET_NAMES, TARGETS, type Target } from "./release/targets.ts";

const { values } = parseArgs({
  options: { "no-build": { type: "boolean" }, scale: { type: "string", default: "default" }, "skip-emulated": { type: "boolean", default: false } },
});
const QEMU = ["qemu-aarch64-static", "-L", "/usr/aarch64-linux-gnu"];

if (!values["no-build"]) {
  const build = Bun.spawnSync([process.execPath, join(ROOT, "scripts", "build.ts"), "--all"], { cwd: ROOT, stdout: "inherit", stderr: "inherit" });
  if (build.exitCode !== 0) throw new Error(`npm run build -- --all failed (${build.exitCode})`);
}

interface Row {
  target: Target;
  bytes: number;
  sha256: string;
  checks: string[];
  ready: string;
}

const rows: Row[] = [];
const failures: string[] = [];
for (const name of TARGET_NAMES) {
  const target = TARGETS[name];
  const path = join(ROOT, "dist", name, "ckg");
  const bytes = await Bun.file(path).bytes();
  const row: Row = { target, bytes: bytes.length, sha256: "", checks: [], ready: "-" };
  rows.push(row);
  try {
    row.checks.push(await checkChecksum(path, bytes));
    row.sha256 = (await Bun.file(`${path}.sha256`).text()).slice(0, 64);
    const files = await checkSbom(path, target, row.sha256);
    row.checks.push("SBOM");
    if (target.os === "darwin") row.checks.push(...checkMacho(bytes, target));
    else row.ready = await run(target, path, row);
    if (name === "linux-x64") printWeights(target, path, bytes, files);
  } catch (error) {
    failures.push(`${name}: ${(error as Error).message}`);
    row.checks.push(`FAILED: ${(error as Error).message.split("\n")[0]!.slice(0, 120)}`);
  }
}

async function run(target: Target, path: string, row: Row): Promise<string> {
  const native = `${process.platform}-${process.arch}` === target.name;
  if (!native && target.name !== "linux-arm64") return "not run (no emulator set up for it)";
  if (!native && values["skip-emulated"]) return "skipped (--skip-emulated)";
  if (!native && !existsSync("/usr/aarch64-linux-gnu/lib/libstdc++.so.6")) {
    throw new Error("qemu-user-static, libc6-arm64-cross and libstdc++6-arm64-cross are needed (apt-get install); or pass --skip-emulated");
  }
  const work = mkdtempSync(join(tmpdir(), `ckg-release-${target.name}-`));
  try {
    const served = await checkServe(path, work, { wrapper: native ? [] : QEMU, scale: values.scale });
    row.checks.push(...served.checks.map((c) => (native ? c : `${c} (qemu)`)));
    const mark = native ? "" : " emulated";
    return `first ${served.firstStart.toFixed(1)} s, again ${served.restart.toFixed(1)} s (scale ${values.scale}${mark})`;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The parts of the executable: the runtime, each embedded file (from Bun's module table), the rest. */
function printWeights(target: Target, path: string, bytes: Uint8Array, files: Awaited<ReturnType<typeof checkSbom>>): void {
  const size = (file: { properties?: { name: string; value: string }[] }) => Number(file.properties?.find((p) => p.name === "ckg:bytes")?.value);
  const runtime = files.find((f) => f.name === "bun");
  const library = files.find((f) => f.name.startsWith("libduckdb"));
  const { modules } = embeddedModules(bytes);
  const parts: [string, number][] = [[`Bun runtime (${target.runtimePackage})`, size(runtime ?? {})]];
  for (const module of modules.toSorted((a, b) => b.bytes - a.bytes)) {
    const note = /libduckdb.*\.zst$/.test(module.name) && library ? ` (zstd; ${size(library).toLocaleString("en")} B unpacked)` : "";
    parts.push([`${module.name.replace("/$bunfs/root/", "")}${note}`, module.bytes]);
  }
  parts.push(["headers, section alignment, module table", bytes.length - parts.reduce((sum, [, n]) => sum + n, 0)]);
  console.log(`\nparts of ${path} (${bytes.length.toLocaleString("en")} B):`);
  for (const [part, n] of parts) console.log(`  ${n.toLocaleString("en").padStart(13)}  ${(n / 1e6).toFixed(1).padStart(6)} MB  ${part}`);
}

const table = rows.map((row) => [`dist/${row.target.name}/ckg`, row.bytes.toLocaleString("en"), row.sha256.slice(0, 16), row.ready, row.checks.join(", ")]);
const widths = [0, 1, 2, 3].map((column) => Math.max(...[["artifact", "bytes", "sha256 (16 of 64)", "start-to-ready"], ...table].map((cells) => cells[column]!.length)));
console.log();
for (const cells of [["artifact", "bytes", "sha256 (16 of 64)", "start-to-ready", "checks"], ...table]) {
  console.log(cells.map((cell, column) => (column === 1 ? cell.padStart(widths[column]!) : column < 4 ? cell.padEnd(widths[column]!) : cell)).join("  "));
}
if (failures.length > 0) {
  console.error(`\nrelease check FAILED:\n  ${failures.join("\n  ")}`);
  process.exit(1);
}
console.log("\nrelease check passed");
