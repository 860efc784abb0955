/**
 * A throwaway PostgreSQL 15 server for tests and benchmarks: the Debian package's binaries, a fresh
 * cluster in a temporary folder, a port on 127.0.0.1 from the OS (test/support/ports.ts).
 * Benchmarks install the package when it is missing and we are root; tests check
 * `postgresAvailable()` (`.ci/run` installs it). Stopped and removed by stop().
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PortCollision, listensOn, onFreshPorts } from "./ports.ts";

const BIN = "/usr/lib/postgresql/15/bin";

export interface Postgres {
  url: string;
  /** Stops the server, keeping its data (an outage); `up` starts it again on the same port. */
  down(): void;
  up(): void;
  stop(): Promise<void>;
}

export function postgresAvailable(): boolean {
  return existsSync(join(BIN, "postgres"));
}

function run(command: string[], what: string): void {
  const result = Bun.spawnSync(command, { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${what} failed: ${result.stderr.toString() || result.stdout.toString()}`);
}

export async function startPostgres(settings: Record<string, string> = {}): Promise<Postgres> {
  if (!existsSync(join(BIN, "postgres"))) {
    if (process.getuid?.() !== 0) throw new Error("PostgreSQL 15 is not installed: apt-get install postgresql-15 (as root)");
    run(["apt-get", "update"], "apt-get update");
    run(["apt-get", "install", "-y", "--no-install-recommends", "postgresql-15"], "installing postgresql-15");
  }
  // PostgreSQL takes its port on its command line (not 0): a fresh one from the OS, tried again
  // when another process bound it first (PostgreSQL then fails to start, saying so in its log).
  return onFreshPorts("postgresql", 1, ([port]) => startOn(port!, settings));
}

const COLLIDED = /could not bind IPv4 address|Address already in use/;

function startOn(port: number, settings: Record<string, string>): Promise<Postgres> {
  // PostgreSQL refuses to run as root: the cluster belongs to the postgres user.
  const asPostgres = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : [];
  const dir = mkdtempSync(join(tmpdir(), "ckg-pg-"));
  const data = join(dir, "data");
  const log = join(dir, "log");
  if (asPostgres.length) run(["chown", "-R", "postgres", dir], "chown");
  run([...asPostgres, join(BIN, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "--no-sync"], "initdb");
  const options = Object.entries({ listen_addresses: "127.0.0.1", port: String(port), unix_socket_directories: dir, fsync: "off", ...settings })
    .map(([k, v]) => `-c ${k}=${v}`)
    .join(" ");
  const up = () => {
    const started = Bun.spawnSync([...asPostgres, join(BIN, "pg_ctl"), "-D", data, "-o", options, "-l", log, "-w", "start"], { stdout: "pipe", stderr: "pipe" });
    const said = existsSync(log) ? readFileSync(log, "utf8") : "";
    if (started.exitCode !== 0) {
      const why = `${started.stderr.toString() || started.stdout.toString()}\n${said.split("\n").slice(-10).join("\n")}`;
      if (COLLIDED.test(said)) throw new PortCollision(why);
      throw new Error(`pg_ctl start failed: ${why}`);
    }
    // Up, and on its own port: the postmaster (first line of postmaster.pid) holds it.
    const postmaster = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    if (!listensOn(postmaster, port)) throw new Error(`postgres ${postmaster} started but does not listen on ${port}: ${said}`);
  };
  try {
    up();
  } catch (error) {
    Bun.spawnSync([...asPostgres, join(BIN, "pg_ctl"), "-D", data, "-m", "immediate", "stop"]);
    rmSync(dir, { recursive: true, force: true });
    return Promise.reject(error);
  }
  return Promise.resolve({
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    down: () => run([...asPostgres, join(BIN, "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop"], "pg_ctl stop"),
    // Again on the same port (the URL names it): taken meanwhile, up() fails and says so.
    up,
    async stop() {
      Bun.spawnSync([...asPostgres, join(BIN, "pg_ctl"), "-D", data, "-m", "immediate", "stop"]);
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
