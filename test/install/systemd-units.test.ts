/**
 * scripts/install/ckg.service, ckg-ingest.service and ckg-ingest.timer, checked without a running
 * systemd: `systemd-analyze verify` on a root holding them (Debian's systemd package), the
 * exposure score of `systemd-analyze security --offline`, the settings the issue asks for against
 * ckg's own setting names and defaults, and what the hardening forbids against what the real
 * executable does: strace follows `ckg serve` (a first start on an empty directory, queries, the
 * first scan, SIGTERM) and `ckg ingest`, and every system call they make must be in the units'
 * SystemCallFilter, every file they create or change under the data directory or their /tmp, and
 * every address they reach on this machine (docs/operations.md: "no telemetry, no update check").
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SETTINGS, envName } from "../../src/config/settings.ts";
import { engineAvailable } from "../support/engines.ts";
import { executable } from "../support/executable.ts";
import { startServer } from "../support/server.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { until } from "../support/until.ts";

const UNITS = join(import.meta.dir, "..", "..", "scripts", "install");
const SERVICES = ["ckg.service", "ckg-ingest.service"];
const ALL = [...SERVICES, "ckg-ingest.timer"];
const HAS_ANALYZE = engineAvailable("systemd-analyze", Bun.which("systemd-analyze") !== null, "the systemd units' checks", "apt-get install systemd; .ci/run installs it");
const traceable = Bun.which("strace") !== null && Bun.spawnSync(["strace", "-qq", "-o", "/dev/null", "true"]).exitCode === 0;
const HAS_STRACE = engineAvailable("strace", traceable, "the units' system call filter against the executable", "apt-get install strace, and ptrace allowed; .ci/run installs it");

/** One unit file's keys and values, section by section (a key given twice keeps both values). */
function parseUnit(name: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let section = "";
  for (const line of readFileSync(join(UNITS, name), "utf8").split("\n")) {
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) sections[(section = header[1]!)] = {};
    const pair = /^(\w+)=(.*)$/.exec(line);
    if (pair) (sections[section]![pair[1]!] ??= []).push(pair[2]!);
  }
  return sections;
}

/** A file system root with the units, Debian's own units and a stand-in /usr/local/bin/ckg. */
function rootWith(units: Record<string, string>): string {
  const root = tempDir("ckg-systemd-root-");
  mkdirSync(join(root, "usr", "local", "bin"), { recursive: true });
  mkdirSync(join(root, "etc", "systemd", "system"), { recursive: true });
  cpSync("/usr/lib/systemd/system", join(root, "usr", "lib", "systemd", "system"), { recursive: true });
  writeFileSync(join(root, "usr", "local", "bin", "ckg"), "#!/bin/sh\n");
  chmodSync(join(root, "usr", "local", "bin", "ckg"), 0o755);
  for (const [name, text] of Object.entries(units)) writeFileSync(join(root, "etc", "systemd", "system", name), text);
  return root;
}

function analyze(args: string[]): { exitCode: number; out: string } {
  const run = Bun.spawnSync(["systemd-analyze", ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, SYSTEMD_COLORS: "0" } });
  return { exitCode: run.exitCode, out: run.stdout.toString() + run.stderr.toString() };
}

describe("the systemd units", () => {
  test("say what the issue asks, with ckg's real setting names and a stop timeout past its own grace", () => {
    const serve = parseUnit("ckg.service").Service!;
    expect(envName("data_dir")).toBe("CKG_DATA_DIR");
    for (const unit of SERVICES) {
      const service = parseUnit(unit).Service!;
      for (const [key, value] of Object.entries({
        User: "ckg",
        Group: "ckg",
        Environment: "CKG_DATA_DIR=/var/lib/ckg",
        StateDirectory: "ckg",
        ProtectSystem: "strict",
        ReadWritePaths: "/var/lib/ckg",
        NoNewPrivileges: "yes",
        PrivateTmp: "yes",
        ProtectHome: "yes",
        CapabilityBoundingSet: "",
        SystemCallFilter: "@system-service",
      })) {
        expect(service[key], `${unit} ${key}`).toEqual([value]);
      }
    }
    expect(serve.ExecStart).toEqual(["/usr/local/bin/ckg serve"]);
    expect(parseUnit("ckg-ingest.service").Service!.ExecStart).toEqual(["/usr/local/bin/ckg ingest"]);
    expect(serve.Restart).toEqual(["on-failure"]);
    expect(serve.RestartPreventExitStatus).toEqual(["2 4"]); // src/exit-codes.ts: configuration, newer data
    // SIGTERM to ckg alone: it stops its children itself after the grace (a scan, graph processes).
    expect(serve.KillMode).toEqual(["mixed"]);
    const stopSeconds = Number(serve.TimeoutStopSec![0]);
    expect(stopSeconds * 1000).toBeGreaterThan(SETTINGS.run_grace_ms.default + SETTINGS.query_timeout_ms.default);
    expect(parseUnit("ckg-ingest.timer").Timer).toMatchObject({ OnCalendar: ["*-*-* 05:00:00 UTC"], Persistent: ["true"] });
  });

  test("systemd-analyze verify finds nothing to say (and does say it when a unit is wrong)", () => {
    if (!HAS_ANALYZE) return;
    const units = Object.fromEntries(ALL.map((name) => [name, readFileSync(join(UNITS, name), "utf8")]));
    const clean = analyze(["verify", `--root=${rootWith(units)}`, ...ALL]);
    expect(clean.out).toBe("");
    expect(clean.exitCode).toBe(0);
    const typo = { ...units, "ckg.service": units["ckg.service"]!.replace(/^KillMode=mixed$/m, "KillMode=mixd") };
    expect(analyze(["verify", `--root=${rootWith(typo)}`, "ckg.service"]).out).toContain("Failed to parse kill mode");
  });

  test("systemd-analyze security rates both services' exposure low", () => {
    if (!HAS_ANALYZE) return;
    for (const unit of SERVICES) {
      const run = analyze(["security", "--offline=true", join(UNITS, unit)]);
      const score = /Overall exposure level for \S+: ([\d.]+)/.exec(run.out)?.[1];
      expect(score, run.out).toBeDefined();
      expect(Number(score)).toBeLessThanOrEqual(2);
      console.log(`systemd-analyze security --offline=true scripts/install/${unit}: exposure ${score}`);
    }
  });

  test("the executable calls nothing SystemCallFilter forbids and writes only in its data directory and /tmp", async () => {
    if (!HAS_ANALYZE || !HAS_STRACE) return;
    const binary = await executable();
    const work = tempDir("ckg-syscalls-");
    const [data, tmp] = [join(work, "data"), join(work, "tmp")];
    mkdirSync(tmp);
    const env = { TMPDIR: tmp, CKG_NATIVE_DIR: "" };
    // -y: a descriptor argument shows its path, so a name relative to a directory's descriptor resolves.
    const trace = (name: string) => ["strace", "-f", "-y", "-qq", "-e", "signal=none", "-o", join(work, `${name}.trace`)];
    const server = await startServer([...trace("serve"), binary, "serve", "--data-dir", data, "--port", "0", "--scale", "2000"], env, { cwd: work });
    await server.waitReady(240_000);
    for (const [route, body] of [
      ["/api/sparql", { query: "SELECT ?n WHERE { <chain/ethereum> schema:name ?n }" }],
      ["/api/search", { query: "lending protocol", limit: 3 }],
      ["/api/timeseries", { sql_query: "SELECT count(*) AS n FROM ts_synthetic_protocol" }],
    ] as const) {
      expect((await fetch(`${server.url}${route}`, { method: "POST", body: JSON.stringify(body) })).status).toBe(200);
    }
    await until("the first scan to finish", 240_000, () => server.lines().some((line) => line.msg === "signal scan finished"));
    const pid = server.lines().find((line) => line.msg === "listening")!.pid as number;
    process.kill(pid, "SIGTERM"); // ckg itself: strace passes on its exit code
    expect(await server.process.exited).toBe(0);
    // An ingest whose provider answers 503: a request, its retries, nothing published (exit 1).
    const provider = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("down", { status: 503 }) });
    try {
      const ingest = Bun.spawn([...trace("ingest"), binary, "ingest", "--data-dir", data, "--providers", "chains"], {
        cwd: work,
        env: { ...process.env, ...env, CKG_CHAINLIST_URL: `http://127.0.0.1:${provider.port}` },
        stdout: "ignore",
        stderr: "pipe",
      });
      const [said, code] = await Promise.all([new Response(ingest.stderr).text(), ingest.exited]);
      expect(said).toContain("503");
      expect(code).toBe(1);
    } finally {
      provider.stop(true);
    }
    const allowed = new Set(expandFilter("@system-service"));
    for (const name of ["serve", "ingest"]) {
      const lines = readFileSync(join(work, `${name}.trace`), "utf8").split("\n");
      const calls = new Set(lines.map(syscallOf).filter((call): call is string => call !== undefined));
      expect(calls.size, name).toBeGreaterThan(40);
      expect([...calls].filter((call) => !allowed.has(call)), `${name}: system calls outside @system-service`).toEqual([]);
      const outside = writtenPaths(lines, work).filter((path) => !path.startsWith(`${data}/`) && path !== data && !path.startsWith(`${tmp}/`) && !/^\/dev\/(null|u?random)$/.test(path));
      expect(outside, `${name}: files made or changed outside the data directory and /tmp`).toEqual([]);
      // No telemetry, no update check: every network address either process reached is this machine.
      const reached = lines.filter((line) => /^\d+ +(connect|sendto|sendmsg)\(/.test(line) && /sa_family=AF_INET6?/.test(line));
      if (name === "ingest") expect(reached.length).toBeGreaterThan(0); // its provider, here: the lines are read right
      expect(reached.filter((line) => !/inet_addr\("127\.0\.0\.1"\)|inet_pton\(AF_INET6, "::1"/.test(line)), `${name}: reached beyond this machine`).toEqual([]);
    }
  }, 600_000);
});

/** The system calls of a filter group, its nested groups expanded (`systemd-analyze syscall-filter`). */
function expandFilter(group: string): string[] {
  const listed = analyze(["syscall-filter", group]).out.split("\n").slice(1);
  return listed
    .map((line) => line.trim())
    .filter((item) => item !== "" && !item.startsWith("#"))
    .flatMap((item) => (item.startsWith("@") ? expandFilter(item) : [item]));
}

/** `1234 openat(...` or `1234 <... openat resumed>...`: the call's name. */
function syscallOf(line: string): string | undefined {
  return /^\d+ +(?:<\.\.\. )?([a-z_0-9]+)(?:\(| resumed>)/.exec(line)?.[1];
}

/**
 * Paths a trace (strace -y) created, wrote, renamed, removed or bound a socket at: every path
 * argument of such a call, resolved against the directory descriptor before it (`19</tmp>, "x"`)
 * or else against `cwd`.
 */
function writtenPaths(lines: string[], cwd: string): string[] {
  const paths = new Set<string>();
  for (const line of lines) {
    const call = syscallOf(line);
    if (!call || line.includes(" resumed>")) continue;
    const writes =
      (/^(open|openat|creat)$/.test(call) && /O_(WRONLY|RDWR|CREAT|TRUNC)/.test(line)) ||
      /^(mkdir|mkdirat|rename|renameat2?|unlink|unlinkat|rmdir|link|linkat|symlink|symlinkat|truncate|chmod|fchmodat|chown|fchownat|utimensat|bind|mknod|mknodat)$/.test(call);
    if (!writes) continue;
    if (call === "bind") {
      for (const match of line.matchAll(/sun_path="([^"]+)"/g)) paths.add(resolve(cwd, match[1]!));
      continue;
    }
    for (const match of line.matchAll(/(?:\d+<([^>]*)>, )?"([^"]*)"/g)) paths.add(resolve(match[1] ?? cwd, match[2]!));
  }
  return [...paths].sort();
}
