/**
 * Payments benchmark (the 402 path and paid requests, beside @x402/express). Run by hand:
 *   bun scripts/bench/payments.ts [--seconds 10] [--connections 32]
 *
 * Starts a local chain (anvil + an EIP-3009 USDC, as the tests do), ckg serving a small data
 * directory with the in-process facilitator, and the reference: an Express server with
 * @x402/express's paymentMiddleware (same price, network, pay-to and facilitator). Prints req/s of
 * the 402 challenge path and of a free route on both (with wrk when installed: apt-get install wrk),
 * and the latency of paid requests (sign, verify, run, settle on the chain) beside the challenge's.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { http, createPublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { createLogger } from "../../src/log.ts";
import { selfCommand } from "../../src/runtime.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { dataDir } from "../../src/store/data-dir.ts";
import { PAYER_KEY, PAY_TO, SETTLER_KEY, startChain } from "../../test/support/chain.ts";
import { startServer } from "../../test/support/server.ts";
import { percentile, printTable } from "./stats.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "10" }, connections: { type: "string", default: "32" } } });
const seconds = Number(values.seconds);
const connections = Number(values.connections);

/**
 * Requests a second with `connections` concurrent connections for `seconds`: wrk when installed (a
 * client light enough that the servers' own costs show), else concurrent fetch loops in this process.
 */
async function throughput(url: string, expect: number): Promise<number> {
  const wrk = Bun.which("wrk");
  if (wrk) {
    const run = Bun.spawnSync([wrk, "-t", "1", "-c", String(connections), "-d", `${seconds}s`, url]);
    const out = run.stdout.toString();
    const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
    const total = Number(/(\d+) requests in/.exec(out)?.[1]);
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
    if (expect === 402 ? non2xx !== total : non2xx !== 0) throw new Error(`${url}: ${non2xx} of ${total} answers were not ${expect}`);
    return rate;
  }
  return fetchLoops(url, expect);
}

async function fetchLoops(url: string, expect: number): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  const loop = async () => {
    while (performance.now() < end) {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status !== expect) throw new Error(`${url}: status ${response.status}, expected ${expect}`);
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, loop));
  return done / ((performance.now() - started) / 1000);
}

const chain = await startChain();
const payer = privateKeyToAccount(PAYER_KEY);
await chain.mint(payer.address, 10_000_000_000n);
const root = mkdtempSync(join(tmpdir(), "ckg-bench-pay-"));
const keyFile = join(root, "settler.key");
writeFileSync(keyFile, SETTLER_KEY, { mode: 0o600 });
await buildSnapshot({ dir: dataDir(join(root, "data")), scale: 8000, seed: 7, ontologyNs: "https://ckg.example/ontology#", log: createLogger("warn", 2) });
const ours = await startServer(selfCommand("serve", "--data-dir", join(root, "data"), "--port", "0", "--rate-limit-per-minute", "0"), {
  CKG_LOG_LEVEL: "info",
  CKG_PAY_TO: PAY_TO,
  CKG_NETWORK: "eip155:84532",
  CKG_RPC_URL: chain.rpcUrl,
  CKG_SETTLEMENT_KEY_FILE: keyFile,
  CKG_FIRST_SCAN: "false",
  CKG_SCAN_CRON: "off",
});
await ours.waitReady(120_000);
// The reference on Bun (same runtime as ckg) and on Node (Express's own), when node is installed.
const references: { name: string; server: Awaited<ReturnType<typeof startServer>> }[] = [];
const referenceScript = join(import.meta.dir, "payments-reference.mjs");
references.push({ name: "@x402/express on Bun", server: await startServer([process.execPath, referenceScript, chain.rpcUrl, SETTLER_KEY, PAY_TO]) });
const node = Bun.which("node");
if (node) references.push({ name: "@x402/express on Node", server: await startServer([node, referenceScript, chain.rpcUrl, SETTLER_KEY, PAY_TO]) });
const reference = references[0]!.server;
try {
  // Warm all (the first challenge initializes the facilitator's supported kinds).
  for (const base of [ours.url, ...references.map((r) => r.server.url)]) for (let i = 0; i < 50; i++) await (await fetch(`${base}/api/changes?limit=1`)).arrayBuffer();

  const oursChallenge = await throughput(`${ours.url}/api/changes?limit=1`, 402);
  const oursFree = await throughput(`${ours.url}/healthz`, 200);
  const rows: [string, string][] = [["402 challenge, ckg", oursChallenge.toFixed(0)]];
  const freeRows: [string, string][] = [["free route, ckg", oursFree.toFixed(0)]];
  for (const r of references) {
    const challenge = await throughput(`${r.server.url}/api/changes?limit=1`, 402);
    const free = await throughput(`${r.server.url}/healthz`, 200);
    rows.push([`402 challenge, ${r.name}`, `${challenge.toFixed(0)}  (ckg ${(oursChallenge / challenge).toFixed(2)}x; target >= 2x)`]);
    freeRows.push([`free route, ${r.name}`, free.toFixed(0)]);
  }

  const signer = toClientEvmSigner(payer, createPublicClient({ chain: baseSepolia, transport: http(chain.rpcUrl) }));
  const pay = wrapFetchWithPayment(fetch, new x402Client().register("eip155:*", new ExactEvmScheme(signer)));
  const timings = async (base: string, paid: boolean) => {
    const samples: number[] = [];
    for (let i = 0; i < 30; i++) {
      const started = performance.now();
      const response = await (paid ? pay : fetch)(`${base}/api/changes?limit=1`);
      await response.arrayBuffer();
      if (response.status !== (paid ? 200 : 402)) throw new Error(`paid request: status ${response.status}`);
      samples.push(performance.now() - started);
    }
    return samples;
  };
  const oursPaid = await timings(ours.url, true);
  const oursUnpaid = await timings(ours.url, false);
  const refPaid = await timings(reference.url, true);

  printTable(`throughput, ${connections} connections x ${seconds} s (req/s)`, [...rows, ...freeRows]);
  printTable("paid request latency, sequential (ms): 402, sign, retry, verify, run, settle on the local chain", [
    ["ckg paid p50 / p99", `${percentile(oursPaid, 50).toFixed(1)} / ${percentile(oursPaid, 99).toFixed(1)}`],
    ["ckg unpaid (402) p50", percentile(oursUnpaid, 50).toFixed(1)],
    ["added by paying, p50", (percentile(oursPaid, 50) - percentile(oursUnpaid, 50)).toFixed(1)],
    ["reference paid p50 / p99", `${percentile(refPaid, 50).toFixed(1)} / ${percentile(refPaid, 99).toFixed(1)}`],
  ]);
} finally {
  await ours.stop();
  for (const r of references) await r.server.stop();
  await chain.stop();
  rmSync(root, { recursive: true, force: true });
}
