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

async function freePort(): Promise<number> {
  const server = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = server.port!;
  await server.stop(true);
  return port;
}

/** `buffers`: 8 KB pages Virtuoso caches (Virtuoso's guide: about 2/3 of the memory it may use). */
export async function startVirtuoso(options: { buffers?: number; loadDirs?: string[] } = {}): Promise<Virtuoso> {
  const dir = mkdtempSync(join(tmpdir(), "ckg-virtuoso-"));
  const [sqlPort, httpPort] = [await freePort(), await freePort()];
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
  const proc: Subprocess = Bun.spawn([SERVER, "+foreground", "+configfile", iniFile], { cwd: dir, stdout: "ignore", stderr: "pipe" });
  const endpoint = `http://127.0.0.1:${httpPort}/sparql`;
  const started = performance.now();
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`virtuoso exited (${proc.exitCode}): ${readLog(dir)}`);
    if (performance.now() - started > 120_000) {
      proc.kill("SIGKILL");
      throw new Error(`virtuoso did not start within 120 s: ${readLog(dir)}`);
    }
    try {
      const response = await fetch(`${endpoint}?query=${encodeURIComponent("ASK {}")}`, { headers: { accept: "application/sparql-results+json" } });
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    await Bun.sleep(250);
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
