/**
 * scripts/install/release-files.ts over a release laid out as `npm run build -- --all` lays out
 * dist/ (four platforms, each `ckg` and `ckg.sha256`): the Homebrew formula it writes names each
 * platform's URL and hash and is valid Ruby (`ruby -c`, Debian's ruby), and the install script it
 * writes installs from the release's base URL with no option, served over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TARGET_NAMES } from "../../scripts/release/targets.ts";
import { engineAvailable } from "../support/engines.ts";
import { tempDir } from "../support/temp-dirs.ts";

const ROOT = join(import.meta.dir, "..", "..");
const GENERATOR = join(ROOT, "scripts", "install", "release-files.ts");
const HAS_RUBY = engineAvailable("ruby", Bun.which("ruby") !== null, "the Homebrew formula's syntax check (ruby -c)", "apt-get install ruby; .ci/run installs it");

/** A release tree: <root>/<version>/<platform>/ckg (a different stand-in each) and ckg.sha256. */
const releases = tempDir("ckg-release-files-");
const dist = join(releases, "9.9.9");
const sums: Record<string, string> = {};
let server: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  for (const name of TARGET_NAMES) {
    const body = `#!/bin/sh\necho 'ckg 9.9.9 (${name})'\n`;
    sums[name] = new Bun.CryptoHasher("sha256").update(body).digest("hex");
    mkdirSync(join(dist, name), { recursive: true });
    writeFileSync(join(dist, name, "ckg"), body);
    writeFileSync(join(dist, name, "ckg.sha256"), `${sums[name]}  ckg\n`);
  }
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname.replace(/^\/ckg\//, "");
      const file = join(releases, path);
      return path.includes("..") || !existsSync(file) ? new Response("not found", { status: 404 }) : new Response(Bun.file(file));
    },
  });
});
afterAll(() => server?.stop(true));

function generate(args: string[]): { exitCode: number; stdout: string; stderr: string } {
  const run = Bun.spawnSync([process.execPath, GENERATOR, ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  return { exitCode: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

/** The url and sha256 inside each `on_<os> do ... on_<arch> do` block of a formula. */
function platformsOf(formula: string): Record<string, { url: string; sha256: string }> {
  const found: Record<string, { url: string; sha256: string }> = {};
  for (const os of formula.matchAll(/^ {2}on_(macos|linux) do\n([\s\S]*?)^ {2}end$/gm)) {
    for (const arch of os[2]!.matchAll(/^ {4}on_(arm|intel) do\n\s*url "([^"]+)"\n\s*sha256 "([^"]+)"\n {4}end$/gm)) {
      found[`${os[1] === "macos" ? "darwin" : "linux"}-${arch[1] === "arm" ? "arm64" : "x64"}`] = { url: arch[2]!, sha256: arch[3]! };
    }
  }
  return found;
}

describe("release files: the Homebrew formula and the install script of a release", () => {
  test("the formula names every platform's URL and SHA-256 from its ckg.sha256, and is valid Ruby", () => {
    const out = tempDir("ckg-release-out-");
    const base = `http://127.0.0.1:${server.port}/ckg`;
    const run = generate(["--base-url", `${base}/`, "--version", "9.9.9", "--dist", dist, "--out", out]);
    expect(run.exitCode, run.stderr).toBe(0);
    const formula = readFileSync(join(out, "ckg.rb"), "utf8");
    expect(platformsOf(formula)).toEqual(Object.fromEntries(TARGET_NAMES.map((name) => [name, { url: `${base}/9.9.9/${name}/ckg`, sha256: sums[name]! }])));
    expect(formula).toContain('version "9.9.9"');
    expect(formula).not.toMatch(/@[A-Z0-9_]+@/);
    if (!HAS_RUBY) return;
    for (const file of [join(out, "ckg.rb"), join(ROOT, "scripts", "install", "ckg.rb")]) {
      const check = Bun.spawnSync(["ruby", "-c", file], { stdout: "pipe", stderr: "pipe" });
      expect(check.stderr.toString(), file).toBe("");
      expect(check.stdout.toString()).toBe("Syntax OK\n");
    }
    // The check itself catches a broken formula.
    writeFileSync(join(out, "broken.rb"), formula.replace("  def install\n", "  def install(\n"));
    expect(Bun.spawnSync(["ruby", "-c", join(out, "broken.rb")], { stderr: "pipe" }).exitCode).not.toBe(0);
  });

  test("the install script it writes installs from the release's base URL with no option", async () => {
    const out = tempDir("ckg-release-out-");
    expect(generate(["--base-url", `http://127.0.0.1:${server.port}/ckg`, "--version", "9.9.9", "--dist", dist, "--out", out]).exitCode).toBe(0);
    const prefix = join(tempDir("ckg-release-prefix-"), "bin");
    const proc = Bun.spawn(["/bin/sh", join(out, "install.sh"), "--version", "9.9.9", "--prefix", prefix], {
      env: { PATH: process.env.PATH!, HOME: prefix, CKG_INSTALL_OS: "Darwin", CKG_INSTALL_ARCH: "arm64" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(exitCode, stderr).toBe(0);
    expect(stdout).toContain(`downloading http://127.0.0.1:${server.port}/ckg/9.9.9/darwin-arm64/ckg.sha256`);
    expect(stdout.trim().split("\n").at(-1)).toBe("ckg 9.9.9 (darwin-arm64)");
  });

  test("refuses a release with a missing or malformed checksum, naming each; and a base URL a shell or Ruby would interpret", () => {
    const broken = tempDir("ckg-release-broken-");
    for (const name of TARGET_NAMES) {
      mkdirSync(join(broken, name));
      if (name !== "darwin-x64") writeFileSync(join(broken, name, "ckg.sha256"), name === "linux-arm64" ? "not a checksum\n" : `${sums[name]}  ckg\n`);
    }
    const run = generate(["--base-url", "https://releases.ckg.example/ckg", "--dist", broken, "--out", broken]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`${join(broken, "darwin-x64", "ckg.sha256")} is missing`);
    expect(run.stderr).toContain(`${join(broken, "linux-arm64", "ckg.sha256")} is not one sha256sum line for ckg`);
    expect(existsSync(join(broken, "ckg.rb"))).toBe(false);
    for (const url of ["https://host/$(id)", 'https://host/"#{x}"', "http://releases.ckg.example/ckg"]) {
      const bad = generate(["--base-url", url, "--dist", dist, "--out", broken]);
      expect(bad.exitCode, url).toBe(1);
      expect(bad.stderr).toContain("--base-url must be an https:// URL");
    }
    expect(existsSync(join(broken, "install.sh"))).toBe(false);
    rmSync(broken, { recursive: true, force: true });
  });
});
