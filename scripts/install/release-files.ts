/**
 * @module scripts/install/release-files
 * The files that go beside a published release, made from what `npm run build -- --all` left in
 * dist/: `dist/ckg.rb`, the Homebrew formula (scripts/install/ckg.rb) with each platform's URL and
 * the SHA-256 of its `dist/<platform>/ckg.sha256`, and `dist/install.sh`, the install script with the
 * release's base URL as its default. Nothing is computed twice: the hashes are the build's own.
 *
 * @example
 *   npm run build -- --all
 *   bun scripts/install/release-files.ts --base-url https://host/ckg [--version 0.2.0] [--homepage URL]
 *   # then publish dist/<platform>/ckg and ckg.sha256 under https://host/ckg/0.2.0/<platform>/ (and
 *   # under .../latest/), install.sh at https://host/ckg/install.sh, ckg.rb in a Homebrew tap.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pkg from "../../package.json" with { type: "json" };
import { TARGET_NAMES, type TargetName } from "../release/targets.ts";

const HERE = import.meta.dir;

export interface ReleaseOptions {
  baseUrl: string;
  version: string;
  homepage: string;
  /** Where the build put `<platform>/ckg.sha256`. */
  dist: string;
  /** Where ckg.rb and install.sh go. */
  out: string;
}

/** sha256sum's line for the executable: the only shape a release's checksum file may have. */
const CHECKSUM_LINE = /^([0-9a-f]{64}) [ *]ckg\n?$/;

/** The SHA-256 of every platform's executable, read from its .sha256; every missing or bad one named at once. */
export function releaseChecksums(dist: string): Record<TargetName, string> {
  const sums: Partial<Record<TargetName, string>> = {};
  const problems: string[] = [];
  for (const name of TARGET_NAMES) {
    const path = join(dist, name, "ckg.sha256");
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      problems.push(`${path} is missing (npm run build -- --all makes it)`);
      continue;
    }
    const match = CHECKSUM_LINE.exec(text);
    if (match) sums[name] = match[1]!;
    else problems.push(`${path} is not one sha256sum line for ckg`);
  }
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return sums as Record<TargetName, string>;
}

/**
 * The same rule as install.sh: https, or plain http to this machine only. The URL goes inside a
 * Ruby string and a shell string, so only characters neither interprets are let through (no `$`,
 * quotes, backslashes or `#`).
 */
export function checkBaseUrl(url: string, what = "--base-url"): string {
  const trimmed = url.replace(/\/+$/, "");
  const plain = /^[A-Za-z0-9._~:/%+@=,[\]-]+$/.test(trimmed);
  const https = /^https:\/\/[^/]/.test(trimmed);
  const loopback = /^http:\/\/(127\.[0-9.]+|localhost|\[::1\])(:[0-9]+)?(\/|$)/.test(trimmed);
  if (!plain || !(https || loopback)) {
    throw new Error(`${what} must be an https:// URL (http:// only to 127.0.0.1, localhost or [::1]) of letters, digits and ._~:/%+@=,-: ${url}`);
  }
  return trimmed;
}

export function writeReleaseFiles(options: ReleaseOptions): { formula: string; installer: string } {
  const baseUrl = checkBaseUrl(options.baseUrl);
  if (!/^[0-9A-Za-z][0-9A-Za-z._-]*$/.test(options.version)) throw new Error(`--version must name one release (0.2.0), not '${options.version}'`);
  const sums = releaseChecksums(options.dist);
  const values: Record<string, string> = { BASE_URL: baseUrl, VERSION: options.version, HOMEPAGE: checkBaseUrl(options.homepage, "--homepage") };
  for (const name of TARGET_NAMES) values[`SHA256_${name.toUpperCase().replace("-", "_")}`] = sums[name];
  const formula = readFileSync(join(HERE, "ckg.rb"), "utf8").replace(/@([A-Z0-9_]+)@/g, (whole, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`scripts/install/ckg.rb names @${key}@, which release-files.ts does not fill`);
    return value;
  });
  const script = readFileSync(join(HERE, "install.sh"), "utf8");
  const installer = script.replace(/^DEFAULT_BASE_URL=""$/m, `DEFAULT_BASE_URL="${baseUrl}"`);
  if (installer === script) throw new Error('scripts/install/install.sh has no DEFAULT_BASE_URL="" line to fill');
  const written = { formula: join(options.out, "ckg.rb"), installer: join(options.out, "install.sh") };
  writeBeside(written.formula, formula, 0o644);
  writeBeside(written.installer, installer, 0o755);
  return written;
}

/** Written beside, then renamed into place: a reader never sees half a file. */
function writeBeside(path: string, text: string, mode: number): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode });
  renameSync(temp, path);
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      "base-url": { type: "string" },
      version: { type: "string", default: pkg.version },
      homepage: { type: "string" },
      dist: { type: "string", default: join(HERE, "..", "..", "dist") },
      out: { type: "string" },
    },
  });
  try {
    if (!values["base-url"]) throw new Error("give --base-url: where the release is published (<base-url>/<version>/<platform>/ckg)");
    const dist = values.dist!;
    const written = writeReleaseFiles({
      baseUrl: values["base-url"],
      version: values.version!,
      homepage: values.homepage ?? values["base-url"],
      dist,
      out: values.out ?? dist,
    });
    console.log(`wrote ${written.formula} and ${written.installer} for ${values.version} at ${checkBaseUrl(values["base-url"])}`);
  } catch (error) {
    console.error(`release-files: ${(error as Error).message}`);
    process.exit(1);
  }
}
