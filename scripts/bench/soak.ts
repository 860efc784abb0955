/**
 * Soak (memory, errors and latency over a long run of mixed traffic). Run by hand:
 *   bun scripts/bench/soak.ts [--minutes 30] [--rate 40] [--data-dir DIR]
 *
 * Starts a local chain (anvil + an EIP-3009 USDC, as the tests do) and `ckg serve` with payments on
 * (the in-process facilitator), then drives every route at a fixed mixed rate (open loop: a request
 * is sent every 1/rate s whatever the answers take): free routes, paid routes unpaid (402) and paid
 * (settled on the chain), MCP tool calls, and bad inputs (400, 404, 422). Prints the requests, the
 * errors beyond the intended statuses (target 0), p50/p99 per route in the first and the last five
 * minutes (the last within 1.5x of the first), the RSS of every process of the server over time
 * (growth after the first five minutes <= 10%), and open files and child processes at start and end.
 * A request unanswered after --timeout-s (default 60) counts as an error ("no answer"), so a stalled
 * server ends the run on time and shows in its figures.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { http, createPublicClient, createWalletClient, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { createLogger } from "../../src/log.ts";
import { selfCommand } from "../../src/runtime.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { dataDir } from "../../src/store/data-dir.ts";
import { PAYER_KEY, PAY_TO, SETTLER_KEY, startChain } from "../../test/support/chain.ts";
import { startServer } from "../../test/support/server.ts";
import { processTree } from "./processes.ts";
import { percentile, printTable } from "./stats.ts";

const { values } = parseArgs({
  options: { minutes: { type: "string", default: "30" }, rate: { type: "string", default: "40" }, "data-dir": { type: "string" }, "timeout-s": { type: "string", default: "60" } },
});
const minutes = Number(values.minutes);
const rate = Number(values.rate);
const timeoutMs = Number(values["timeout-s"]) * 1000;
/** fetch with the client's time limit: every call (a paid request makes two) gets its own. */
const timedFetch = Object.assign((input: string | URL | Request, init?: RequestInit) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }), { preconnect: fetch.preconnect });
const windowMs = Math.round(Math.min(5 * 60_000, (minutes * 60_000) / 3));
const windowMin = (windowMs / 60_000).toFixed(1);

const chain = await startChain();
const payer = privateKeyToAccount(PAYER_KEY);
await chain.mint(payer.address, 1_000_000_000_000n);
const root = mkdtempSync(join(tmpdir(), "ckg-soak-"));
const keyFile = join(root, "settler.key");
writeFileSync(keyFile, SETTLER_KEY, { mode: 0o600 });
const data = values["data-dir"] ?? join(root, "data");
if (!values["data-dir"]) await buildSnapshot({ dir: dataDir(data), scale: 8000, seed: 7, ontologyNs: "https://ckg.example/ontology#", log: createLogger("warn", 2) });
const server = await startServer(selfCommand("serve", "--data-dir", data, "--port", "0", "--rate-limit-per-minute", "0"), {
  CKG_LOG_LEVEL: "info",
  CKG_PAY_TO: PAY_TO,
  CKG_NETWORK: "eip155:84532",
  CKG_RPC_URL: chain.rpcUrl,
  CKG_SETTLEMENT_KEY_FILE: keyFile,
  CKG_SCAN_CRON: "off",
});
await server.waitReady(600_000);
const base = server.url;
const signer = toClientEvmSigner(payer, createPublicClient({ chain: baseSepolia, transport: http(chain.rpcUrl) }));
/**
 * The local chain's own floor: ms from sending a plain transfer until its receipt is there (looked
 * up every millisecond), p50 of 20. anvil's grows with its block count (0.7 ms at 1,000 blocks,
 * 11.6 ms at 8,000, measured here), and every paid request waits for one receipt.
 */
const probe = createWalletClient({ account: payer, chain: baseSepolia, transport: http(chain.rpcUrl) }).extend(publicActions);
async function chainReceiptDelay(): Promise<{ ms: number; block: bigint }> {
  const delays: number[] = [];
  for (let i = 0; i < 20; i++) {
    const hash = await probe.sendTransaction({ to: PAY_TO, value: 1n });
    const sent = performance.now();
    for (;;) {
      try {
        await probe.getTransactionReceipt({ hash });
        break;
      } catch {
        await Bun.sleep(1);
      }
    }
    delays.push(performance.now() - sent);
  }
  return { ms: percentile(delays, 50), block: await probe.getBlockNumber() };
}
// Spend controls lifted: the batch route costs 7.50 USD, above the client's default cap.
const pay = wrapFetchWithPayment(timedFetch, new x402Client().register("eip155:*", new ExactEvmScheme(signer)).setSpendControls({ maxAmountPerPayment: false }));
// The first scan runs at start (signal routes answer 503 until it ends, as documented): wait for it.
for (let ready: { scans?: { running: unknown } } = {}; ready.scans?.running !== null; await Bun.sleep(500)) ready = (await (await fetch(`${base}/readyz`)).json()) as typeof ready;

interface Kind {
  route: string;
  weight: number;
  expect: number[];
  send(): Promise<Response>;
}
const post = (path: string, body: unknown, via: (url: string, init: RequestInit) => Promise<Response> = timedFetch) => via(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const mcp = (method: string, params: unknown) =>
  timedFetch(`${base}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
const KINDS: Kind[] = [
  { route: "GET /healthz", weight: 2, expect: [200], send: () => timedFetch(`${base}/healthz`) },
  { route: "GET /api/schema", weight: 2, expect: [200], send: () => timedFetch(`${base}/api/schema`) },
  { route: "GET /api/signals/catalog", weight: 1, expect: [200], send: () => timedFetch(`${base}/api/signals/catalog`) },
  { route: "GET /api/insights/signals", weight: 3, expect: [200], send: () => timedFetch(`${base}/api/insights/signals?limit=20`) },
  { route: "POST /api/sparql (unpaid)", weight: 4, expect: [402], send: () => post("/api/sparql", { query: "SELECT ?s WHERE { ?s a ?t } LIMIT 5" }) },
  { route: "POST /api/search (unpaid)", weight: 4, expect: [402], send: () => post("/api/search", { query: "lending protocol on arbitrum" }) },
  { route: "POST /api/sparql (paid)", weight: 1, expect: [200], send: () => post("/api/sparql", { query: "SELECT ?s ?n WHERE { ?s <https://schema.org/name> ?n } LIMIT 20" }, pay) },
  { route: "POST /api/search (paid)", weight: 1, expect: [200], send: () => post("/api/search", { query: "decentralized exchange on solana" }, pay) },
  { route: "POST /api/explore (paid)", weight: 1, expect: [200], send: () => post("/api/explore", { entity_name: "Ethereum" }, pay) },
  { route: "POST /api/timeseries (paid)", weight: 1, expect: [200], send: () => post("/api/timeseries", { sql_query: "SELECT entity_id, max(\"tvlUsd\") FROM ts_synthetic_protocol GROUP BY 1 ORDER BY 2 DESC LIMIT 10" }, pay) },
  { route: "GET /api/insights/entity (paid)", weight: 1, expect: [200], send: () => pay(`${base}/api/insights/entity/Aave`) },
  { route: "MCP tools/call signals_catalog", weight: 2, expect: [200], send: () => mcp("tools/call", { name: "signals_catalog", arguments: {} }) },
  { route: "MCP tools/call search (unpaid)", weight: 2, expect: [200], send: () => mcp("tools/call", { name: "search", arguments: { query: "bridge to arbitrum" } }) },
  { route: "MCP tools/list", weight: 1, expect: [200], send: () => mcp("tools/list", {}) },
  { route: "bad: SPARQL syntax", weight: 2, expect: [400], send: () => post("/api/sparql", { query: "SELECT WHERE {" }) },
  { route: "bad: SQL write", weight: 2, expect: [403], send: () => post("/api/timeseries", { sql_query: "DROP TABLE ts_synthetic_token" }) },
  { route: "bad: unknown entity", weight: 2, expect: [404], send: () => post("/api/explore", { entity_name: "No Such Entity At All" }) },
  { route: "bad: batch of 11", weight: 1, expect: [422], send: () => post("/api/insights/batch", { entities: Array.from({ length: 11 }, (_, i) => `e${i}`) }) },
  { route: "bad: malformed JSON", weight: 2, expect: [400], send: () => timedFetch(`${base}/api/search`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" }) },
];
const totalWeight = KINDS.reduce((n, k) => n + k.weight, 0);
const pick = () => {
  let r = Math.random() * totalWeight;
  for (const k of KINDS) if ((r -= k.weight) < 0) return k;
  return KINDS[0]!;
};

const samples: { at: number; tree: ReturnType<typeof processTree> }[] = [];
const results: { route: string; at: number; ms: number; ok: boolean; status: number }[] = [];
const unexpected = new Map<string, number>();
const started = performance.now();
const end = started + minutes * 60_000;
// Warm the client's connection pool, so open sockets at start and at end compare like with like.
await Promise.all(Array.from({ length: 64 }, () => fetch(`${base}/healthz`).then((r) => r.arrayBuffer())));
// Every kind once, so what a route opens on its first use (a worker, a client) is there at start too.
for (const kind of KINDS) await (await kind.send()).arrayBuffer();
await Bun.sleep(2000);
const chainAtStart = await chainReceiptDelay();
const startTree = processTree(server.process.pid);
samples.push({ at: 0, tree: startTree });
const sampler = setInterval(() => samples.push({ at: performance.now() - started, tree: processTree(server.process.pid) }), 10_000);
const inFlight = new Set<Promise<void>>();
console.log(`soak: ${minutes} min at ${rate} req/s against ${base}`);
for (let n = 0; performance.now() < end; n++) {
  const due = started + (n * 1000) / rate;
  const wait = due - performance.now();
  if (wait > 0) await Bun.sleep(wait);
  const kind = pick();
  const sent = performance.now();
  const job = kind
    .send()
    .then(async (response) => {
      await response.arrayBuffer();
      return response.status;
    })
    .catch(() => 0)
    .then((status) => {
      const ok = kind.expect.includes(status);
      if (!ok) unexpected.set(`${kind.route} -> ${status || "no answer"}`, (unexpected.get(`${kind.route} -> ${status || "no answer"}`) ?? 0) + 1);
      results.push({ route: kind.route, at: sent - started, ms: performance.now() - sent, ok, status });
    });
  inFlight.add(job);
  void job.finally(() => inFlight.delete(job));
}
await Promise.all(inFlight);
clearInterval(sampler);
await Bun.sleep(2000); // let the server settle before the last count of files and processes
const endTree = processTree(server.process.pid);
const chainAtEnd = await chainReceiptDelay();
samples.push({ at: performance.now() - started, tree: endTree });
await server.stop();
await chain.stop();
if (!values["data-dir"]) rmSync(root, { recursive: true, force: true });

const errors = results.filter((r) => !r.ok).length;
console.log(`\n${results.length.toLocaleString("en")} requests in ${minutes} min; errors beyond the intended statuses: ${errors} (${((errors / results.length) * 100).toFixed(3)}%; target 0)`);
for (const [what, n] of unexpected) console.log(`  ${what}: ${n}`);
const last = minutes * 60_000 - windowMs;
printTable(
  `latency per route, ms: p50 / p99 in the first ${windowMin} min -> the last (last p50 within 1.5x of first)`,
  KINDS.map((k): [string, string] => {
    const of = (from: number, to: number) => results.filter((r) => r.route === k.route && r.at >= from && r.at < to).map((r) => r.ms);
    const [a, b] = [of(0, windowMs), of(last, Infinity)];
    const f = (xs: number[]) => `${percentile(xs, 50).toFixed(1)} / ${percentile(xs, 99).toFixed(1)}`;
    return [k.route, `${f(a)} -> ${f(b)}  (x${(percentile(b, 50) / percentile(a, 50)).toFixed(2)})`];
  }),
);
console.log(
  `the local chain's own receipt delay (the floor under every paid request): ${chainAtStart.ms.toFixed(1)} ms at block ${chainAtStart.block} -> ` +
    `${chainAtEnd.ms.toFixed(1)} ms at block ${chainAtEnd.block}`,
);
const rssAt = (s: (typeof samples)[number]) => s.tree.reduce((n, p) => n + p.rssMb, 0);
const afterWarmup = samples.filter((s) => s.at >= windowMs);
const warm = afterWarmup[0] ?? samples[0]!;
printTable(
  "RSS of the server's processes together, MB, every minute",
  samples.filter((_, i) => i % 6 === 0 || i === samples.length - 1).map((s): [string, string] => [`${(s.at / 60_000).toFixed(1)} min`, `${rssAt(s).toFixed(0)}  (${s.tree.map((p) => `${p.name}:${p.rssMb.toFixed(0)}`).join(", ")})`]),
);
const peakAfter = Math.max(...afterWarmup.map(rssAt), rssAt(warm));
console.log(`RSS growth after the first ${windowMin} min: ${rssAt(warm).toFixed(0)} -> peak ${peakAfter.toFixed(0)} MB (${(((peakAfter - rssAt(warm)) / rssAt(warm)) * 100).toFixed(1)}%; target <= 10%)`);
const filesOf = (t: typeof startTree) => t.flatMap((p) => p.files);
const sockets = (t: typeof startTree) => t.reduce((n, p) => n + p.sockets, 0);
console.log(
  `open files (sockets aside): ${filesOf(startTree).length} at start, ${filesOf(endTree).length} at end; processes: ${startTree.length} at start, ${endTree.length} at end (target: equal); ` +
    `sockets: ${sockets(startTree)} at start (the client's warmed connections), ${sockets(endTree)} at end`,
);
const tally = (files: string[]) => files.reduce((m, f) => m.set(f, (m.get(f) ?? 0) + 1), new Map<string, number>());
const [before, after] = [tally(filesOf(startTree)), tally(filesOf(endTree))];
for (const file of new Set([...before.keys(), ...after.keys()])) {
  if (before.get(file) !== after.get(file)) console.log(`  ${file}: ${before.get(file) ?? 0} -> ${after.get(file) ?? 0}`);
}
process.exit(0);
