/**
 * A real Virtuoso 7 (Debian's `virtuoso-opensource-7`) for tests and benchmarks: a fresh database
 * in a temporary folder, on private ports, loaded with N-Quads by Virtuoso's bulk loader (the
 * commands the README gives operators), stopped and removed by `stop()`. `virtuosoAvailable()` says
 * whether the package is installed (`.ci/run` installs it).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { PortCollision, listensOn, onFreshPorts } from "./ports.ts";
import { until } from "./until.ts";

const SERVER = "/usr/bin/virtuoso-t";
const ISQL = "/usr/bin/isql-vt";
const DEFAULT_INI = "/etc/virtuoso-opensource-7/virtuoso.ini";

export function virtuosoAvailable(): boolean {
  return existsSync(SERVER) && existsSync(ISQL) && existsSync(DEFAULT_INI);
}

export interface Virtuoso {
  /** The SPARQL endpoint (http://127.0.0.1:<port>/sparql). */
  endpoint: string;
  /** Bulk-loads every *.nq file of `dir` (each quad into its own graph); returns the time it took. */
  loadDir(dir: string): Promise<number>;
  /** Runs SQL through isql (as dba). */
  isql(sql: string): Promise<string>;
  stop(): Promise<void>;
}

/** `buffers`: 8 KB pages Virtuoso caches (Virtuoso's guide: about 2/3 of the memory it may use). */
export async function startVirtuoso(options: { buffers?: number; loadDirs?: string[] } = {}): Promise<Virtuoso> {
  // Virtuoso takes its ports from its configuration (not 0): fresh ones from the OS, tried again
  // when another process took one first (Virtuoso then exits saying it could not listen).
  return onFreshPorts("virtuoso", 2, ([sqlPort, httpPort]) => startOn(sqlPort!, httpPort!, options));
}

const COLLIDED = /Failed HTTP listen at|Failed to start listening/;

async function startOn(sqlPort: number, httpPort: number, options: { buffers?: number; loadDirs?: string[] }): Promise<Virtuoso> {
  const dir = mkdtempSync(join(tmpdir(), "ckg-virtuoso-"));
  const buffers = options.buffers ?? 20_000;
  const allowed = [".", "/usr/share/virtuoso-opensource-7/vad", ...(options.loadDirs ?? []).map((d) => resolve(d))].join(", ");
  // Debian's own configuration, moved to the temporary folder and private ports. ResultSetMaxRows
  // and MaxSortedTopRows must exceed ckg's row cap (10,000 + 1 to see truncation): Virtuoso cuts
  // answers silently past the first and refuses an ORDER BY with LIMIT 10001 past the second.
  const ini = readFileSync(DEFAULT_INI, "utf8")
    .replaceAll("/var/lib/virtuoso-opensource-7/db", dir)
    .replace(/^(ServerPort\s*=\s*)1111/m, `$1${sqlPort}`)
    .replace(/^(ServerPort\s*=\s*)8890/m, `$1${httpPort}`)
    .replace(/^(DefaultHost\s*=\s*)localhost:8890/m, `$1localhost:${httpPort}`)
    .replace(/^(DirsAllowed\s*=\s*).*$/m, `$1${allowed}`)
    .replace(/^(NumberOfBuffers\s*=\s*)\d+/m, `$1${buffers}`)
    .replace(/^(MaxDirtyBuffers\s*=\s*)\d+/m, `$1${Math.floor(buffers * 0.75)}`)
    .replace(/^(ResultSetMaxRows\s*=\s*)\d+/m, "$11000000")
    .replace(/^(\[Parameters\]\s*)$/m, "$1\nMaxSortedTopRows = 100000")
    .replace(/^\[Plugins\][\s\S]*$/m, "");
  const iniFile = join(dir, "virtuoso.ini");
  writeFileSync(iniFile, ini);
  const proc: Subprocess<"ignore", "ignore", "pipe"> = Bun.spawn([SERVER, "+foreground", "+configfile", iniFile], { cwd: dir, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  let stderr = "";
  void (async () => {
    for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  const endpoint = `http://127.0.0.1:${httpPort}/sparql`;
  const answers = async () => {
    const response = await fetch(`${endpoint}?query=${encodeURIComponent("ASK {}")}`, { headers: { accept: "application/sparql-results+json" } }).catch(() => undefined); // not listening yet
    return response?.ok === true;
  };
  try {
    // Up: it answers on its port and holds both its ports itself (not another server in its place).
    await until("virtuoso to answer SPARQL on its own ports", 120_000, async () => {
      if (proc.exitCode !== null) {
        await proc.exited;
        const said = `${stderr}\n${readLog(dir)}`;
        if (COLLIDED.test(said)) throw new PortCollision(said.split("\n").filter((l) => COLLIDED.test(l)).join("; "));
        throw new Error(`virtuoso exited (${proc.exitCode}): ${said}`);
      }
      return (await answers()) && listensOn(proc.pid, httpPort) && listensOn(proc.pid, sqlPort);
    }, { every: 250, seen: () => readLog(dir) });
  } catch (error) {
    proc.kill("SIGKILL");
    await proc.exited;
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const isql = async (sql: string): Promise<string> => {
    const run = Bun.spawn([ISQL, String(sqlPort), "dba", "dba", `exec=${sql}`], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    if (code !== 0 || /\*\*\* Error/.test(out + err)) throw new Error(`isql failed (${code}): ${out}${err}`);
    return out;
  };
  return {
    endpoint,
    isql,
    async loadDir(from: string) {
      const t = performance.now();
      await isql(`ld_dir('${resolve(from)}', '*.nq', 'urn:ckg:default'); rdf_loader_run(); checkpoint;`);
      const failed = await isql("SELECT ll_file, ll_error FROM DB.DBA.load_list WHERE ll_error IS NOT NULL;");
      if (/\.nq/.test(failed)) throw new Error(`virtuoso could not load: ${failed}`);
      return performance.now() - t;
    },
    async stop() {
      proc.kill("SIGTERM");
      const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
      if (!exited) {
        proc.kill("SIGKILL");
        await proc.exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function readLog(dir: string): string {
  const log = join(dir, "virtuoso.log");
  return existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(-15).join("\n") : "(no log)";
}
