/**
 * Compiles ckg into one executable for one target, then writes its checksum (<outfile>.sha256, in
 * sha256sum's format) and its SBOM (<outfile>.cdx.json).
 */
import { mkdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { unsign } from "macho-unsign";
import pkg from "../../package.json" with { type: "json" };
import { checkSignature, readMachHeader } from "./macho.ts";
import { prepareNatives, sha256, type Natives } from "./natives.ts";
import { ROOT } from "./packages.ts";
import { duckdbBindings, usearchAddon } from "./plugins.ts";
import { NOT_EMBEDDED, writeSbom } from "./sbom.ts";
import type { Target } from "./targets.ts";

/** What `ckg --version` says: the package version, the commit and the day it was built. */
export interface BuildInfo {
  version: string;
  commit: string;
  date: string;
}

/**
 * The commit is marked -dirty when tracked files differ from it; CKG_BUILD_COMMIT names it where
 * there is no git checkout (a container build); SOURCE_DATE_EPOCH fixes the date.
 */
export function buildInfo(): BuildInfo {
  const commit = process.env.CKG_BUILD_COMMIT || gitCommit();
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  const date = (Number.isFinite(epoch) && epoch > 0 ? new Date(epoch * 1000) : new Date()).toISOString().slice(0, 10);
  return { version: pkg.version, commit, date };
}

function gitCommit(): string {
  const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: ROOT, stdout: "pipe", stderr: "ignore" });
  try {
    const head = git("rev-parse", "--short", "HEAD");
    if (head.exitCode !== 0) return "unknown";
    return head.stdout.toString().trim() + (git("diff", "--quiet", "HEAD").exitCode === 0 ? "" : "-dirty");
  } catch {
    return "unknown"; // no git on this machine (a container's build stage)
  }
}

export interface Artifact {
  target: Target;
  path: string;
  bytes: number;
  sha256: string;
  natives: Natives;
  seconds: number;
}

export async function compileExecutable(target: Target, outfile: string, info: BuildInfo): Promise<Artifact> {
  const started = performance.now();
  const natives = await prepareNatives(target);
  mkdirSync(dirname(outfile), { recursive: true });
  const result = await Bun.build({
    // The vector index's scan workers, the k-means helpers of a search index build and the webhook
    // sender's thread are entrypoints too: Bun embeds them for `new Worker(...)`.
    entrypoints: [
      join(ROOT, "src", "main.ts"),
      join(ROOT, "src", "search", "vector-worker.ts"),
      join(ROOT, "src", "search", "nearest-worker.ts"),
      join(ROOT, "src", "push", "sender-worker.ts"),
    ],
    // Bun rejects an executablePath that is present but undefined (this machine's own runtime).
    compile: { outfile, target: target.bun, ...(natives.runtime.executablePath ? { executablePath: natives.runtime.executablePath } : {}) },
    // onnxruntime-node needs its own shared library (46 MB) beside its addon: the ONNX embedder
    // works from a source checkout, and the executable says so when it is configured.
    external: NOT_EMBEDDED,
    minify: { syntax: true, whitespace: true },
    sourcemap: "none",
    define: {
      CKG_BUILD_VERSION: JSON.stringify(info.version),
      CKG_BUILD_COMMIT: JSON.stringify(info.commit),
      CKG_BUILD_DATE: JSON.stringify(info.date),
    },
    plugins: [duckdbBindings(target, natives), usearchAddon(natives)],
  });
  if (!result.success) throw new AggregateError(result.logs, `bun build for ${target.name} failed:\n${result.logs.join("\n")}`);
  if (target.machoCpu !== undefined) await fixSignature(target, outfile);
  const bytes = await Bun.file(outfile).bytes();
  const digest = sha256(bytes);
  await Bun.write(`${outfile}.sha256`, `${digest}  ${basename(outfile)}\n`);
  await writeSbom(target, natives, { sha256: digest }, `${outfile}.cdx.json`);
  return { target, path: outfile, bytes: bytes.length, sha256: digest, natives, seconds: (performance.now() - started) / 1000 };
}

/**
 * Bun 1.4.5 signs an Apple Silicon executable (ad hoc) but, for an Intel Mac, leaves the runtime's
 * own signature over the grown file, which macOS would reject. Such a signature is removed (an
 * Intel Mac runs unsigned code; `codesign -s -` signs it there). Apple Silicon needs a valid one.
 */
async function fixSignature(target: Target, outfile: string): Promise<void> {
  const bytes = await Bun.file(outfile).bytes();
  const signature = checkSignature(bytes, readMachHeader(bytes));
  if (!signature || (signature.badPages === 0 && signature.coversCode)) return;
  if (target.arch === "arm64") throw new Error(`${outfile}: Bun wrote an invalid code signature (${signature.badPages} bad pages)`);
  const unsigned = unsign(bytes);
  if (!unsigned) throw new Error(`${outfile}: macho-unsign found no signature to remove`);
  await Bun.write(outfile, new Uint8Array(unsigned));
}
