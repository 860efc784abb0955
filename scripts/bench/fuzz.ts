/**
 * Fuzzing from the OpenAPI document at volume (no input may crash the server or answer a 500). Run
 * by hand:
 *   bun scripts/bench/fuzz.ts [--runs 100000] [--mcp 10000] [--data-dir DIR] [--seed N]
 *
 * Serves a data directory (default: a copy of the test fixture) over a real port with `ckg serve`,
 * sends requests generated from its /openapi.json and MCP messages (test/support/fuzz.ts), 16 at
 * a time, and prints the count per status and per operation, the problems found (a 5xx, an answer
 * outside the documented error shape, a charge, no answer in 20 s) and the rate.
 */
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { selfCommand } from "../../src/runtime.ts";
import { copyOfFixture } from "../../test/support/fixture.ts";
import { MCP_HEADERS, check, mcpMessages, requestsFrom } from "../../test/support/fuzz.ts";
import { startServer } from "../../test/support/server.ts";
import { OPERATIONS } from "../../src/operations/table/index.ts";
import { printTable } from "./stats.ts";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "100000" }, mcp: { type: "string", default: "10000" }, "data-dir": { type: "string" }, seed: { type: "string", default: "19" } },
});
const dir = values["data-dir"] ?? (await copyOfFixture());
const server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), { CKG_LOG_LEVEL: "info", CKG_FIRST_SCAN: "false", CKG_RATE_LIMIT_PER_MINUTE: "0" });
await server.waitReady(600_000);
const seed = Number(values.seed);
const requests = fc.sample(requestsFrom((await (await fetch(`${server.url}/openapi.json`)).json()) as never), { numRuns: Number(values.runs), seed });
const messages = fc.sample(mcpMessages(OPERATIONS.map((op) => op.name)), { numRuns: Number(values.mcp), seed });

const byStatus = new Map<string, number>();
const byOperation = new Map<string, Map<number, number>>();
const problems: string[] = [];
const count = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);
const started = performance.now();
let next = 0;
const jobs = [...requests.map((r) => ({ kind: "http" as const, r })), ...messages.map((body) => ({ kind: "mcp" as const, body }))];
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      const [name, init, url] =
        job.kind === "http"
          ? [job.r.operation, { method: job.r.method, headers: job.r.headers, body: job.r.method === "POST" ? job.r.body : undefined }, `${server.url}${job.r.path}`]
          : ["mcp", { method: "POST", headers: MCP_HEADERS, body: job.body }, `${server.url}/mcp`];
      try {
        const response = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) });
        count(byStatus, String(response.status));
        count(byOperation.get(name) ?? byOperation.set(name, new Map()).get(name)!, response.status);
        const headBytes = url.length + Object.entries(init.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
        const problem = await check(response, job.kind === "mcp", headBytes);
        if (problem) problems.push(`${name}: ${problem}`);
      } catch (error) {
        count(byStatus, "no answer");
        problems.push(`${name}: ${(error as Error).message}`);
      }
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
await server.stop();
if (!values["data-dir"]) rmSync(dir, { recursive: true, force: true });

console.log(`\n${jobs.length.toLocaleString("en")} requests (${requests.length.toLocaleString("en")} from /openapi.json, ${messages.length.toLocaleString("en")} MCP) in ${seconds.toFixed(1)} s, ${(jobs.length / seconds).toFixed(0)} req/s, seed ${seed}`);
printTable("answers by status", [...byStatus].sort().map(([s, n]): [string, string] => [s, n.toLocaleString("en")]));
const statuses = [...new Set([...byOperation.values()].flatMap((m) => [...m.keys()]))].sort((a, b) => a - b);
printTable(
  `by operation (${statuses.join(" / ")})`,
  [...byOperation].sort().map(([op, m]): [string, string] => [op, statuses.map((s) => String(m.get(s) ?? 0).padStart(6)).join(" ")]),
);
console.log(`problems (5xx, shape, charged, no answer): ${problems.length}`);
for (const p of problems.slice(0, 20)) console.log(`  ${p.slice(0, 300)}`);
process.exit(problems.length > 0 ? 1 : 0);
