/**
 * The release check's run of a Linux executable: `--version`, then `serve` on an empty data
 * directory (the first start builds the demo dataset) until /readyz answers 200, a SPARQL query, a
 * search and a SQL query, a clean stop, and a second start on the data it built. Another
 * architecture runs under qemu-user (`wrapper`), which its children need too (CKG_SELF_WRAPPER).
 */
import { join } from "node:path";
import { startServer } from "../../test/support/server.ts";

export interface ServeRun {
  checks: string[];
  /** Seconds from starting the process to /readyz 200: on an empty data directory, then on its data. */
  firstStart: number;
  restart: number;
}

export async function checkServe(binary: string, workDir: string, options: { wrapper: string[]; scale: string }): Promise<ServeRun> {
  const env: Record<string, string> = options.wrapper.length > 0 ? { CKG_SELF_WRAPPER: options.wrapper.join(" ") } : {};
  const version = Bun.spawnSync([...options.wrapper, binary, "--version"], { stdout: "pipe", stderr: "pipe" });
  const line = version.stdout.toString().trim();
  if (version.exitCode !== 0 || !/^ckg \d+\.\d+\.\d+\S* \(commit [0-9a-f]{7,}(-dirty)?, built \d{4}-\d{2}-\d{2}\)$/.test(line)) {
    throw new Error(`--version exited ${version.exitCode} saying '${line}' ${version.stderr.toString()}`);
  }
  const dataDir = join(workDir, "data");
  const command = [...options.wrapper, binary, "serve", "--data-dir", dataDir, "--port", "0", "--scale", options.scale];
  // Minutes under emulation: the first start generates and indexes the whole dataset.
  const readyWithin = options.wrapper.length > 0 ? 40 * 60_000 : 10 * 60_000;
  const firstStart = await timedStart(command, env, workDir, readyWithin, answers);
  const restart = await timedStart(command, env, workDir, readyWithin, async () => {});
  return { checks: ["--version", "serve on an empty data dir", "/readyz 200", "SPARQL", "search", "SQL", "SIGTERM exit 0", "restart"], firstStart, restart };
}

async function timedStart(command: string[], env: Record<string, string>, cwd: string, readyWithin: number, then: (url: string) => Promise<void>): Promise<number> {
  const started = performance.now();
  const server = await startServer(command, env, { cwd });
  try {
    await server.waitReady(readyWithin);
    const seconds = (performance.now() - started) / 1000;
    await then(server.url);
    await server.stop();
    if (server.process.exitCode !== 0) throw new Error(`serve exited ${server.process.exitCode} on SIGTERM: ${server.stderr()}`);
    return seconds;
  } finally {
    if (server.process.exitCode === null) await server.stop();
  }
}

async function answers(url: string): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
    const answer = (await response.json()) as Record<string, unknown>;
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
  const sparql = await post("/api/sparql", { query: "SELECT ?n WHERE { <chain/ethereum> schema:name ?n }" });
  expectEqual("SPARQL", sparql.data, [{ n: "Ethereum" }]);
  const search = await post("/api/search", { query: "etherium", entity_types: ["Chain"], limit: 3 });
  expectEqual("search", (search.results as { name: string }[])[0]?.name, "Ethereum");
  const sql = await post("/api/timeseries", { sql_query: "SELECT count(*) > 0 AS rows FROM ts_synthetic_protocol" });
  expectEqual("SQL", sql.data, [{ rows: true }]);
}

function expectEqual(what: string, actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what} answered ${JSON.stringify(actual)}, not ${JSON.stringify(expected)}`);
}
