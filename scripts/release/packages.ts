/**
 * The npm packages that carry a platform's native parts, at the versions package-lock.json pins.
 * The installed copy is used when npm installed that version here (this machine's platform);
 * another platform's package is fetched with `npm pack`, checked against the lockfile's integrity
 * (sha512) and unpacked into node_modules/.cache/ckg-natives, so a second build reads it offline.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "..", "..");
export const CACHE = join(ROOT, "node_modules", ".cache", "ckg-natives");

/** One entry of package-lock.json's `packages`, keyed there by its path ("node_modules/<name>"). */
export interface LockedPackage {
  version: string;
  integrity?: string;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  dev?: boolean;
}

let locked: Promise<Record<string, LockedPackage>> | undefined;

export function lockedPackages(): Promise<Record<string, LockedPackage>> {
  locked ??= Bun.file(join(ROOT, "package-lock.json"))
    .json()
    .then((lock: { packages: Record<string, LockedPackage> }) => lock.packages);
  return locked;
}

export async function lockedPackage(name: string): Promise<LockedPackage & { integrity: string }> {
  const entry = (await lockedPackages())[`node_modules/${name}`];
  if (!entry?.integrity) throw new Error(`${name} is not in package-lock.json (with an integrity): it cannot be fetched at a pinned version`);
  return { ...entry, integrity: entry.integrity };
}

/** The folder of `name` at its locked version: the installed one, or a verified, unpacked `npm pack`. */
export async function packageDir(name: string): Promise<string> {
  const { version, integrity } = await lockedPackage(name);
  const installed = join(ROOT, "node_modules", name);
  if (existsSync(join(installed, "package.json")) && (await Bun.file(join(installed, "package.json")).json()).version === version) return installed;
  const unpacked = join(CACHE, `${name.replace("@", "").replace("/", "-")}-${version}`);
  if (existsSync(join(unpacked, "package", "package.json"))) return join(unpacked, "package");
  return join(await fetchPackage(name, version, integrity, unpacked), "package");
}

async function fetchPackage(name: string, version: string, integrity: string, into: string): Promise<string> {
  const work = `${into}.${process.pid}.tmp`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  run(["npm", "pack", `${name}@${version}`, "--pack-destination", work, "--silent"], work);
  const tarball = readdirSync(work).find((file) => file.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack ${name}@${version} wrote no tarball`);
  const digest = `sha512-${new Bun.CryptoHasher("sha512").update(await Bun.file(join(work, tarball)).bytes()).digest("base64")}`;
  if (digest !== integrity) throw new Error(`npm pack ${name}@${version}: the tarball's ${digest} is not package-lock.json's ${integrity}`);
  run(["tar", "-xzf", tarball], work);
  rmSync(join(work, tarball));
  // Renamed into place whole, so a build that stops halfway leaves no folder that looks complete.
  rmSync(into, { recursive: true, force: true });
  renameSync(work, into);
  return into;
}

function run(command: string[], cwd: string): void {
  const result = Bun.spawnSync(command, { cwd, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${command.join(" ")} failed (${result.exitCode}): ${result.stderr.toString()}`);
}

/** The lockfile's integrity as the hex digest an SBOM carries: ["SHA-512", hex]. */
export function integrityHex(integrity: string): { alg: string; content: string } | undefined {
  const match = /^sha(256|384|512)-(.+)$/.exec(integrity);
  if (!match) return undefined;
  return { alg: `SHA-${match[1]}`, content: Buffer.from(match[2]!, "base64").toString("hex") };
}
