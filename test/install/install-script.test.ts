/**
 * scripts/install/install.sh, run by Debian's sh (dash, a plain POSIX shell) against a real HTTP
 * file server on a private port serving a release tree (<version>/<platform>/ckg and ckg.sha256).
 * The executables there are small shell scripts standing in for ckg that append the path they were
 * run from to a marker file: a run before the checksum check, or from the download folder, shows.
 * One case installs the real executable (dist/ckg, built by `npm run build`).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hostTarget } from "../../scripts/release/targets.ts";
import { engineAvailable } from "../support/engines.ts";
import { executable } from "../support/executable.ts";
import { tempDir } from "../support/temp-dirs.ts";

const SCRIPT = join(import.meta.dir, "..", "..", "scripts", "install", "install.sh");
const root = tempDir("ckg-install-releases-");
const marker = join(root, "ran.log");
/** Paths the server was asked for, in order; what it serves beyond the tree (the real executable). */
const asked: string[] = [];
const extra = new Map<string, string>();
let server: ReturnType<typeof Bun.serve>;
let base = "";

function standIn(tag: string): string {
  return `#!/bin/sh\n# stand-in ckg: ${tag}\nprintf '%s %s\\n' "$0" "$*" >> '${marker}'\necho 'ckg 0.0.0-${tag}'\n`;
}

/** Puts an executable and (unless told otherwise) its sha256sum line in the tree. */
function publish(path: string, body: string, checksum: string | null = sha256sumLine(body)): string {
  mkdirSync(join(root, path), { recursive: true });
  writeFileSync(join(root, path, "ckg"), body);
  if (checksum !== null) writeFileSync(join(root, path, "ckg.sha256"), checksum);
  return body;
}

function sha256sumLine(body: string | Uint8Array): string {
  return `${new Bun.CryptoHasher("sha256").update(body).digest("hex")}  ckg\n`;
}

beforeAll(() => {
  for (const platform of ["linux-x64", "linux-arm64", "darwin-arm64", "darwin-x64"]) publish(`latest/${platform}`, standIn(`latest-${platform}`));
  publish("0.2.0/linux-x64", standIn("0.2.0"));
  publish("0.3.0/linux-x64", standIn("0.3.0"));
  // Changed after its checksum was taken: one more line that would run first thing.
  writeFileSync(join(root, "tampered/linux-x64/ckg"), publish("tampered/linux-x64", standIn("genuine")).replace("#!/bin/sh\n", "#!/bin/sh\necho owned\n"));
  publish("no-checksum/linux-x64", standIn("no-checksum"), null);
  publish("other-name/linux-x64", standIn("other-name"), sha256sumLine(standIn("other-name")).replace("ckg", "ckg-linux"));
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = decodeURIComponent(new URL(request.url).pathname).replace(/^\/releases\//, "");
      asked.push(path);
      const file = extra.get(path) ?? join(root, path);
      if (path.includes("..") || !existsSync(file) || !statSync(file).isFile()) return new Response("not found", { status: 404 });
      return new Response(Bun.file(file));
    },
  });
  base = `http://127.0.0.1:${server.port}/releases`;
});
afterAll(() => server?.stop(true));

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The HOME it ran with (a fresh folder). */
  home: string;
}

/** Runs install.sh with `sh` (async: this process serves its downloads meanwhile). */
async function install(args: string[], env: Record<string, string> = {}, options: { path?: string; user?: number } = {}): Promise<Run> {
  const tmp = tempDir("ckg-install-tmp-");
  const home = tempDir("ckg-install-home-");
  const command = options.user === undefined ? ["/bin/sh", SCRIPT, ...args] : ["setpriv", `--reuid=${options.user}`, `--regid=${options.user}`, "--clear-groups", "/bin/sh", SCRIPT, ...args];
  if (options.user !== undefined) for (const dir of [tmp, home]) chmodSync(dir, 0o777);
  const proc = Bun.spawn(command, {
    env: { PATH: options.path ?? process.env.PATH!, HOME: home, TMPDIR: tmp, CKG_INSTALL_BASE_URL: base, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(readdirSync(tmp)).toEqual([]); // the download folder is gone, whatever happened
  return { exitCode, stdout, stderr, home };
}

const ranLines = () => (existsSync(marker) ? readFileSync(marker, "utf8").trim().split("\n") : []);
const linux = { CKG_INSTALL_OS: "Linux", CKG_INSTALL_ARCH: "x86_64" };
const HAS_WGET = engineAvailable("wget and shasum", Bun.which("wget") !== null && Bun.which("shasum") !== null, "install.sh's runs without curl and sha256sum", "apt-get install wget perl; .ci/run installs them");
/** wget where the machine has it (the downloader a run without curl takes), else curl. */
const wget = { CKG_INSTALL_DOWNLOADER: HAS_WGET ? "wget" : "curl" };

describe("install.sh: a release checked against its ckg.sha256", () => {
  test("installs on a clean directory: platform, checksum, then ckg, checked, renamed into place, run once from there", async () => {
    const prefix = join(tempDir("ckg-install-clean-"), "bin");
    const before = ranLines().length;
    const args = ["--prefix", prefix];
    const run = await install(args, linux);
    expect(run.exitCode, run.stderr).toBe(0);
    const steps = run.stdout.trim().split("\n");
    expect(steps).toEqual([
      "ckg install: platform linux-x64 (Linux x86_64)",
      `ckg install: downloading ${base}/latest/linux-x64/ckg.sha256`,
      `ckg install: downloading ${base}/latest/linux-x64/ckg`,
      `ckg install: sha256 ${sha256sumLine(standIn("latest-linux-x64")).slice(0, 64)} matches ckg.sha256`,
      `ckg install: installed ${prefix}/ckg`,
      `ckg install: ${prefix} is not on your PATH: add it, e.g. export PATH="${prefix}:$PATH"`,
      "ckg 0.0.0-latest-linux-x64",
    ]);
    expect(readdirSync(prefix)).toEqual(["ckg"]); // nothing staged left beside it
    expect(readFileSync(join(prefix, "ckg"), "utf8")).toBe(standIn("latest-linux-x64"));
    expect(statSync(join(prefix, "ckg")).mode & 0o777).toBe(0o755);
    // Run once, after the install, from where it was installed: never from the download folder.
    expect(ranLines().slice(before)).toEqual([`${prefix}/ckg --version`]);
    console.log(`$ CKG_INSTALL_BASE_URL=${base} sh scripts/install/install.sh ${args.join(" ")}\n${run.stdout}`);
  });

  test("picks each platform's executable from uname's names; a release by --version; an upgrade is a rename over the old file", async () => {
    const prefix = join(tempDir("ckg-install-platforms-"), "bin");
    const cases: [string, string, string][] = [
      ["Darwin", "arm64", "darwin-arm64"],
      ["Darwin", "x86_64", "darwin-x64"],
      ["Linux", "aarch64", "linux-arm64"],
      ["Linux", "amd64", "linux-x64"],
    ];
    for (const [os, arch, platform] of cases) {
      const run = await install(["--prefix", prefix], { CKG_INSTALL_OS: os, CKG_INSTALL_ARCH: arch });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(readFileSync(join(prefix, "ckg"), "utf8")).toBe(standIn(`latest-${platform}`));
    }
    const first = await install(["--prefix", prefix, "--version", "0.2.0"], linux);
    expect(first.exitCode, first.stderr).toBe(0);
    const old = statSync(join(prefix, "ckg")).ino;
    const upgrade = await install(["--prefix", prefix], { ...linux, ...wget, CKG_INSTALL_VERSION: "0.3.0" });
    expect(upgrade.exitCode, upgrade.stderr).toBe(0);
    expect(readFileSync(join(prefix, "ckg"), "utf8")).toBe(standIn("0.3.0"));
    expect(statSync(join(prefix, "ckg")).ino).not.toBe(old); // a new file renamed in, not the old one rewritten
    expect(readdirSync(prefix)).toEqual(["ckg"]);
  });

  test("a tampered executable is refused: exit 1, the mismatch said, never run, nothing installed or changed", async () => {
    const dir = tempDir("ckg-install-tampered-");
    const fresh = join(dir, "fresh");
    const before = ranLines().length;
    const run = await install(["--prefix", fresh, "--version", "tampered"], linux);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`checksum mismatch for ${base}/tampered/linux-x64/ckg: ckg.sha256 says ${sha256sumLine(standIn("genuine")).slice(0, 64)}`);
    expect(run.stderr).toContain("nothing installed");
    expect(existsSync(fresh)).toBe(false);
    // Over an installed ckg: it stays as it was.
    const kept = join(dir, "kept");
    expect((await install(["--prefix", kept, "--version", "0.2.0"], linux)).exitCode).toBe(0);
    const installed = statSync(join(kept, "ckg")).ino;
    const again = await install(["--prefix", kept, "--version", "tampered"], linux);
    expect(again.exitCode).toBe(1);
    expect(readFileSync(join(kept, "ckg"), "utf8")).toBe(standIn("0.2.0"));
    expect(statSync(join(kept, "ckg")).ino).toBe(installed);
    expect(readdirSync(kept)).toEqual(["ckg"]);
    expect(ranLines().slice(before)).toEqual([`${kept}/ckg --version`]); // the 0.2.0 install's own run only
  });

  test("a missing or malformed checksum is refused before the executable is even downloaded", async () => {
    const prefix = join(tempDir("ckg-install-nosum-"), "bin");
    const before = ranLines().length;
    asked.length = 0;
    const missing = await install(["--prefix", prefix, "--version", "no-checksum"], linux);
    expect(missing.exitCode).toBe(1);
    // After curl's own line (the 404), the script's.
    expect(missing.stderr).toEndWith(`\nckg install: error: no checksum at ${base}/no-checksum/linux-x64/ckg.sha256: refusing to install an unchecked executable; nothing installed\n`);
    expect(asked).toEqual(["no-checksum/linux-x64/ckg.sha256"]);
    const other = await install(["--prefix", prefix, "--version", "other-name"], { ...linux, ...wget });
    expect(other.exitCode).toBe(1);
    expect(other.stderr).toContain("ckg.sha256 is not one sha256sum line for ckg; nothing installed");
    expect(existsSync(prefix)).toBe(false);
    expect(ranLines().length).toBe(before);
  });

  test("an unknown platform, a plain-http remote or an unknown option is refused before any download", async () => {
    const prefix = join(tempDir("ckg-install-unknown-"), "bin");
    asked.length = 0;
    const bsd = await install(["--prefix", prefix], { CKG_INSTALL_OS: "FreeBSD", CKG_INSTALL_ARCH: "amd64" });
    expect(bsd.exitCode).toBe(1);
    expect(bsd.stderr).toBe("ckg install: error: no ckg executable for FreeBSD amd64 (there are: linux-x64, linux-arm64, darwin-arm64, darwin-x64); nothing installed\n");
    const riscv = await install(["--prefix", prefix], { CKG_INSTALL_OS: "Linux", CKG_INSTALL_ARCH: "riscv64" });
    expect(riscv.exitCode).toBe(1);
    expect(riscv.stderr).toContain("no ckg executable for Linux riscv64");
    const http = await install(["--prefix", prefix, "--base-url", "http://ckg.example/releases"], linux);
    expect(http.exitCode).toBe(1);
    expect(http.stderr).toContain("the base URL must be https://");
    const option = await install(["--prefx", prefix], linux);
    expect(option.exitCode).toBe(1);
    expect(option.stderr).toContain("unknown option --prefx");
    expect(asked).toEqual([]);
    expect(existsSync(prefix)).toBe(false);
  });

  test("works with wget and shasum alone (no curl, no sha256sum), as on a small system or a Mac without coreutils", async () => {
    if (!HAS_WGET) return;
    const bin = tempDir("ckg-install-path-");
    const tools = ["uname", "id", "mktemp", "chmod", "rm", "sed", "tr", "wc", "cut", "mkdir", "cp", "mv", "cat", "wget", "shasum"];
    for (const tool of tools) symlinkSync(Bun.which(tool)!, join(bin, tool));
    const prefix = join(tempDir("ckg-install-wget-"), "bin");
    const run = await install(["--prefix", prefix], linux, { path: bin });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(readFileSync(join(prefix, "ckg"), "utf8")).toBe(standIn("latest-linux-x64"));
    const none = await install(["--prefix", prefix], linux, { path: join(bin, "nothing") });
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toBe("ckg install: error: needs curl or wget to download; nothing installed\n");
  });

  test("without --prefix, a user's goes to ~/.local/bin", async () => {
    // As root, the default would be this machine's /usr/local/bin: run as nobody instead.
    const user = process.getuid?.() === 0 ? { user: 65534 } : {};
    const run = await install([], linux, user);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(`ckg install: installed ${run.home}/.local/bin/ckg\n`);
    expect(readFileSync(join(run.home, ".local", "bin", "ckg"), "utf8")).toBe(standIn("latest-linux-x64"));
  });

  test("is plain POSIX sh: ShellCheck (Debian's shellcheck) finds nothing, as sh", () => {
    if (!engineAvailable("shellcheck", Bun.which("shellcheck") !== null, "the install script's lint", "apt-get install shellcheck; .ci/run installs it")) return;
    const check = Bun.spawnSync(["shellcheck", "--shell=sh", "--severity=style", SCRIPT], { stdout: "pipe", stderr: "pipe" });
    expect(check.stdout.toString() + check.stderr.toString()).toBe("");
    expect(check.exitCode).toBe(0);
  });

  test("installs the real executable (dist/ckg): its checksum file as the build wrote it, and it runs", async () => {
    const binary = await executable();
    const platform = hostTarget().name;
    extra.set(`real/${platform}/ckg`, binary);
    extra.set(`real/${platform}/ckg.sha256`, `${binary}.sha256`);
    const prefix = join(tempDir("ckg-install-real-"), "bin");
    const run = await install(["--prefix", prefix, "--version", "real"]);
    expect(run.exitCode, run.stderr).toBe(0);
    const installed = await Bun.file(join(prefix, "ckg")).bytes();
    expect(sha256sumLine(installed)).toBe(readFileSync(`${binary}.sha256`, "utf8"));
    expect(run.stdout.trim().split("\n").at(-1)).toMatch(/^ckg \d+\.\d+\.\d+ \(commit [0-9a-f]+(-dirty)?, built \d{4}-\d{2}-\d{2}\)$/);
  }, 300_000);
});
