/**
 * A throwaway PostgreSQL 15 server for tests and benchmarks: the Debian package's binaries, a fresh
 * cluster in a temporary folder, a free port on 127.0.0.1. Benchmarks install the package when it
 * is missing and we are root; tests check `postgresAvailable()` (`.ci/run` installs it). Stopped
 * and removed by stop().
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

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
  // PostgreSQL refuses to run as root: the cluster belongs to the postgres user.
  const asPostgres = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : [];
  const dir = mkdtempSync(join(tmpdir(), "ckg-pg-"));
  const data = join(dir, "data");
  if (asPostgres.length) run(["chown", "-R", "postgres", dir], "chown");
  run([...asPostgres, join(BIN, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "--no-sync"], "initdb");
  const port = 20000 + Math.floor(Math.random() * 20000);
  const options = Object.entries({ listen_addresses: "127.0.0.1", port: String(port), unix_socket_directories: dir, fsync: "off", ...settings })
    .map(([k, v]) => `-c ${k}=${v}`)
    .join(" ");
  const up = () => run([...asPostgres, join(BIN, "pg_ctl"), "-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"], "pg_ctl start");
  up();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    down: () => run([...asPostgres, join(BIN, "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop"], "pg_ctl stop"),
    up,
    async stop() {
      Bun.spawnSync([...asPostgres, join(BIN, "pg_ctl"), "-D", data, "-m", "immediate", "stop"]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
