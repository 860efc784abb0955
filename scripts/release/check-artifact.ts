/**
 * The release check's look at one artifact without running it: its checksum file, its SBOM, for
 * macOS its Mach-O header and code signature, and whether another file is a copy of it. Each check
 * throws with what it found.
 */
import { existsSync } from "node:fs";
import { basename } from "node:path";
import { checkSignature, MH_EXECUTE, readMachHeader } from "./macho.ts";
import { sha256 } from "./natives.ts";
import { NOT_EMBEDDED, packageName, type Bom } from "./sbom.ts";
import type { Target } from "./targets.ts";

/** `<hex>  ckg` (sha256sum's format), naming the file beside it and matching its bytes. */
export async function checkChecksum(path: string, bytes: Uint8Array): Promise<string> {
  const line = (await Bun.file(`${path}.sha256`).text()).trim();
  const digest = sha256(bytes);
  if (line !== `${digest}  ${basename(path)}`) throw new Error(`${path}.sha256 says '${line}'; the file's SHA-256 is ${digest}`);
  return "sha256";
}

/**
 * Whether `other` holds the same bytes as the artifact whose SHA-256 is `digest` (already checked
 * against the artifact's checksum file); says why not (a missing file, another commit or day of
 * build), so the caller can do the check itself.
 */
export async function sameBytes(other: string, digest: string): Promise<{ same: true } | { same: false; why: string }> {
  if (!existsSync(other)) return { same: false, why: `${other} is not built` };
  const theirs = sha256(await Bun.file(other).bytes());
  return theirs === digest ? { same: true } : { same: false, why: `${other} is other bytes (sha256 ${theirs.slice(0, 12)}…)` };
}

interface SbomFile {
  name: string;
  hashes?: { alg: string; content: string }[];
  properties?: { name: string; value: string }[];
}

/**
 * The SBOM is CycloneDX 1.6, names the artifact's hash, carries this platform's DuckDB bindings and
 * Bun runtime with their embedded files' hashes, and no other platform's native packages.
 * Returns the embedded files it lists (for the weights table).
 */
export async function checkSbom(path: string, target: Target, digest: string): Promise<SbomFile[]> {
  const bom = (await Bun.file(`${path}.cdx.json`).json()) as Bom & { bomFormat: string; specVersion: string };
  const fail = (what: string) => {
    throw new Error(`${path}.cdx.json: ${what}`);
  };
  if (bom.bomFormat !== "CycloneDX" || bom.specVersion !== "1.6") fail(`not CycloneDX 1.6 (${bom.bomFormat} ${bom.specVersion})`);
  if (bom.metadata.component.hashes?.[0]?.content !== digest) fail("the application's SHA-256 is not the artifact's");
  const all = flatten(bom.components);
  const names = new Set(all.map(packageName));
  const files: SbomFile[] = [];
  for (const wanted of [target.duckdbPackage, target.runtimePackage, "usearch"]) {
    const component = all.find((c) => packageName(c) === wanted);
    if (!component) fail(`no component ${wanted}`);
    const embedded = (component!.components ?? []).filter((c) => c.type === "file");
    if (embedded.length === 0 || embedded.some((f) => f.hashes?.[0]?.alg !== "SHA-256")) fail(`${wanted} lists no embedded files with a SHA-256`);
    files.push(...embedded);
  }
  const stray = [...names].filter((name) => /^@duckdb\/node-bindings-|^@oven\/bun-/.test(name) && name !== target.duckdbPackage && name !== target.runtimePackage);
  if (stray.length > 0) fail(`native packages of other platforms are listed: ${stray.join(", ")}`);
  for (const left of NOT_EMBEDDED) if (names.has(left)) fail(`${left} is listed, but the executable does not carry it`);
  return files;
}

function flatten<T extends { components?: T[] }>(components: T[]): T[] {
  return components.flatMap((c) => [c, ...flatten(c.components ?? [])]);
}

/**
 * A macOS executable: a 64-bit Mach-O image of the target's CPU type and of type MH_EXECUTE. A code
 * signature, if any, must have every page hash right; Apple Silicon's must have one. (The build strips
 * the invalid one Bun 1.4.5 leaves on the Intel one: scripts/release/compile.ts.)
 */
export function checkMacho(bytes: Uint8Array, target: Target): string[] {
  const header = readMachHeader(bytes);
  if (header.cputype !== target.machoCpu) throw new Error(`cputype 0x${header.cputype.toString(16)}, not 0x${target.machoCpu?.toString(16)}`);
  if (header.filetype !== MH_EXECUTE) throw new Error(`filetype ${header.filetype}, not MH_EXECUTE`);
  const checks = ["Mach-O 64", `cputype 0x${header.cputype.toString(16)}`, "MH_EXECUTE"];
  const signature = checkSignature(bytes, header);
  if (signature) {
    if (signature.badPages > 0 || !signature.coversCode) throw new Error(`invalid signature: ${signature.badPages} of ${signature.pages} page hashes differ`);
    checks.push(`signature valid (${signature.pages} page hashes)`);
  } else {
    if (target.arch === "arm64") throw new Error("no code signature: Apple Silicon will not run it");
    checks.push("no LC_CODE_SIGNATURE");
  }
  return checks;
}
