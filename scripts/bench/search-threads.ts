/**
 * Where the CPU of meaning questions goes, thread by thread. Run by hand:
 *   bun scripts/bench/search-threads.ts [--data-dir /tmp/ckg-full-final] [--clients 32] [--seconds 10]
 *
 * Serves a working copy of the data directory (answer cache off, no scans), asks the 73 meaning
 * questions of scripts/bench/search.ts in turn from `clients` closed loops, and prints the CPU time
 * each thread of the server spent during the timed run (/proc/<pid>/task/<tid>/stat, user + system),
 * per request: the event loop (HTTP, ranking), the scan workers (the vector index), the engine's own
 * threads (JIT, garbage collection), and this process (the clients). On 2 cores their sum bounds the
 * throughput: 2000 / (sum in ms) requests a second at most.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { dataDir } from "../../src/store/data-dir.ts";
import { serve } from "./ckg-stores.ts";
import { runLoad } from "./closed-loop.ts";
import { processTree } from "./processes.ts";
import { meaningQuestions } from "./search-index.ts";
import { printTable } from "./stats.ts";
import { workingCopy } from "./working-copy.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-full-final" },
    clients: { type: "string", default: "32" },
    seconds: { type: "string", default: "10" },
  },
});
const { root, dir } = workingCopy(dataDir(values["data-dir"]!), "ckg-search-threads-");
process.on("exit", () => rmSync(root, { recursive: true, force: true }));
const questions = meaningQuestions().map((body) => JSON.stringify(body));

const server = await serve(dir, { CKG_SEARCH_CACHE_ENTRIES: "0" });
const ask = async (i: number) => {
  const response = await fetch(`${server.url}/api/search`, { method: "POST", headers: { "content-type": "application/json" }, body: questions[i % questions.length] });
  if (response.status !== 200) throw new Error(`${response.status} for ${questions[i % questions.length]}`);
  await response.arrayBuffer();
};

/** CPU ms of every thread of the server's processes, by "process/thread name (tid)". */
function threadCpu(): Map<string, number> {
  const tick = 1000 / 100; // USER_HZ: 100 on Linux
  const out = new Map<string, number>();
  for (const { pid, name: process } of processTree(server.process.pid)) {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
        const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        out.set(`${process}/${name} (${tid})`, (Number(fields[11]) + Number(fields[12])) * tick);
      } catch {} // a thread that ended meanwhile
    }
  }
  return out;
}

const clients = Number(values.clients);
const seconds = Number(values.seconds);
await runLoad({ clients, seconds: 2, request: ask }); // warm up
const before = threadCpu();
const self = process.cpuUsage();
const load = await runLoad({ clients, seconds, request: ask });
const after = threadCpu();
const own = process.cpuUsage(self);
await server.stop();

const requests = load.rps * seconds;
const perRequest = (ms: number) => `${(ms / requests).toFixed(3)} ms a request (${Math.round(ms)} ms in all)`;
const spent = [...after]
  .map(([thread, ms]) => [thread, ms - (before.get(thread) ?? 0)] as const)
  .filter(([, ms]) => ms >= 20)
  .sort((a, b) => b[1] - a[1]);
const clientMs = (own.user + own.system) / 1000;
const total = spent.reduce((sum, [, ms]) => sum + ms, 0) + clientMs;
printTable(`CPU by thread: the 73 meaning questions, ${clients} clients, ${seconds} s, answer cache off`, [
  ["answered", `${load.rps.toFixed(0)} req/s, p50 ${load.p50.toFixed(1)} ms`],
  ...spent.map(([thread, ms]): [string, string] => [thread, perRequest(ms)]),
  ["this process (the clients)", perRequest(clientMs)],
  ["all", `${perRequest(total)}: at most ${(2000 / (total / requests)).toFixed(0)} req/s on 2 cores`],
]);
process.exit(0);
