/**
 * Release check (CI runs it beside `npm test`): builds the executable of every target, each just
 * before its checks (`npm run build -- --target <name>`, as `--all` would, this machine's own last),
 * and checks each artifact, then prints a table of what each got and the parts linux-x64's
 * executable weighs.
 *   - all: the .sha256 file matches; the SBOM is CycloneDX 1.6, names the artifact's hash, lists the
 *     platform's DuckDB bindings and Bun runtime with their embedded files, no other platform's.
 *   - linux-x64 (natively) and linux-arm64 (under Debian's qemu-user-static, with the arm64 C and C++
 *     libraries of libc6-arm64-cross and libstdc++6-arm64-cross): --version, serve on an empty data
 *     directory until /readyz 200, a SPARQL query, a search, a SQL query, SIGTERM, a second start.
 *   - darwin-*: Mach-O header (64-bit, CPU type, MH_EXECUTE) and the code signature's page hashes.
 * Options: --no-build (check dist/ as it is), --scale <s> (the data the servers build; default
 * `default`), --skip-emulated (no qemu run: say so in the table), --tested-executable <file> (an
 * executable of this machine's platform that the test suite of the same run starts: see below).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { checkChecksum, checkMacho, checkSbom, sameBytes } from "./release/check-artifact.ts";
import { checkServe } from "./release/check-serve.ts";
import { embeddedModules } from "./release/embedded.ts";
import { ROOT } from "./release/packages.ts";
import { TARGET_NAMES, TARGETS, type Target, type TargetName } from "./release/targets.ts";

const { values } = parseArgs({
  options: {
    "no-build": { type: "boolean" },
    scale: { type: "string", default: "default" },
    "skip-emulated": { type: "boolean", default: false },
    "tested-executable": { type: "string" },
  },
});
const QEMU = ["qemu-aarch64-static", "-L", "/usr/aarch64-linux-gnu"];
const HOST = `${process.platform}-${process.arch}`;

// This machine's platform goes last. In CI the test suite runs beside this check and builds dist/ckg
// early (test/support/executable.ts), so by then DuckDB's compressed library is in the build cache
// (scripts/release/natives.ts) and this build takes seconds; from the same commit on the same day it
// makes the same bytes, which --tested-executable recognises.
const ORDER = TARGET_NAMES.toSorted((a, b) => Number(a === HOST) - Number(b === HOST));

interface Row {
  target: Target;
  bytes: number;
  sha256: string;
  checks: string[];
  ready: string;
}

const rows: Row[] = [];
const failures: string[] = [];
for (const name of ORDER) {
  const target = TARGETS[name];
  const path = join(ROOT, "dist", name, "ckg");
  const row: Row = { target, bytes: 0, sha256: "", checks: [], ready: "-" };
  rows.push(row);
  try {
    if (!values["no-build"]) build(name);
    const bytes = await Bun.file(path).bytes();
    row.bytes = bytes.length;
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

function build(name: TargetName): void {
  const made = Bun.spawnSync([process.execPath, join(ROOT, "scripts", "build.ts"), "--target", name], { cwd: ROOT, stdout: "inherit", stderr: "inherit" });
  if (made.exitCode !== 0) throw new Error(`npm run build -- --target ${name} failed (${made.exitCode})`);
}

async function run(target: Target, path: string, row: Row): Promise<string> {
  const native = HOST === target.name;
  const tested = values["tested-executable"];
  if (native && tested) {
    // Started once per run: test/executable.test.ts starts the suite's dist/ckg on an empty data
    // directory and asks it all this run would (--version, SPARQL, search, SQL, SIGTERM exit 0, a
    // second start) and more, at a smaller scale; the default scale's first start is run here under
    // qemu (linux-arm64). The same bytes need no second start; other bytes (another commit, another
    // day's build) are started here.
    const copy = await sameBytes(resolve(tested), row.sha256);
    if (copy.same) {
      row.checks.push(`same bytes as ${tested}, which the test suite starts`);
      return "not started here";
    }
    console.log(`${target.name}: ${copy.why}; started here`);
  }
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

const table = rows.toSorted((a, b) => TARGET_NAMES.indexOf(a.target.name) - TARGET_NAMES.indexOf(b.target.name)).map((row) => [`dist/${row.target.name}/ckg`, row.bytes.toLocaleString("en"), row.sha256.slice(0, 16), row.ready, row.checks.join(", ")]);
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
