/**
 * Paying on Base and on Solana, and signing in instead of paying (the cost of each). Run by hand:
 *   bun scripts/bench/payment-rails.ts [--paid 40] [--challenges 2000]
 *
 * One ckg in this process (app.handle, no sockets) over the test fixture, settling in-process on
 * anvil (Base, EIP-3009 USDC) and on litesvm behind its JSON-RPC port (Solana, USDC at its mainnet
 * mint), with sign-in-with-x on. Prints, with the official @x402/fetch client doing the work a
 * paying agent does:
 *   - a free route's request (the floor of a request through the server);
 *   - the 402 challenge in the gate with sign-in off (encoded once, kept) and on (a fresh message
 *     to sign each time): the cost of the option;
 *   - a paid request end to end on Base and on Solana (402, sign, verify, run, settle);
 *   - a signed-in repeat request (402, sign the message, verify it, run): against paying again.
 */
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { type SolanaSigner, createSIWxClientExtension } from "@x402/extensions/sign-in-with-x";
import { wrapFetchWithPayment } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { http, createPublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { httpOutcome } from "../../src/api/outcome.ts";
import { silentLogger } from "../../src/log.ts";
import { OPERATIONS } from "../../src/operations/table/index.ts";
import { PaymentGate } from "../../src/payments/gate.ts";
import { VALID_INPUT } from "../../src/payments/input-verdict.ts";
import { PriceList } from "../../src/payments/prices.ts";
import { createServer } from "../../src/supervisor/assemble.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { PAYER_KEY } from "../../test/support/chain.ts";
import { copyOfFixture, testConfig } from "../../test/support/fixture.ts";
import { init, requestFor } from "../../test/support/paid-requests.ts";
import { startTwoRails } from "../../test/support/rails.ts";
import { percentile, printTable } from "./stats.ts";

const { values } = parseArgs({ options: { paid: { type: "string", default: "40" }, challenges: { type: "string", default: "2000" } } });
const paidRuns = Number(values.paid);
const challengeRuns = Number(values.challenges);
const BASE = "http://127.0.0.1:8402";

const rails = await startTwoRails(10_000_000_000n);
const { chain, solana, solPayer } = rails;
const evmPayer = privateKeyToAccount(PAYER_KEY);
const dir = await copyOfFixture();
const settings = { ...rails.settings, data_dir: dir, base_url: BASE };
const config = testConfig({ ...settings, siwx_access_seconds: 3600 });
const services = await Supervisor.open(config, silentLogger);
await services.start();
const app = createServer(services, { baseUrl: BASE });
const send = (input: Request | string, options?: RequestInit) => app.handle(new Request(input as string, options));

async function timed(runs: number, work: () => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await work();
    samples.push(performance.now() - start);
  }
  return samples;
}
const show = (samples: number[]) => `p50 ${percentile(samples, 50).toFixed(3)} ms  p99 ${percentile(samples, 99).toFixed(3)} ms  (n=${samples.length})`;

try {
  const search = requestFor("search");
  const schema = requestFor("schema");
  const free = await timed(challengeRuns / 4, async () => {
    const response = await send(`${BASE}${schema.path}`, init(schema));
    if (response.status !== 200) throw new Error(`schema: ${response.status}`);
    await response.arrayBuffer();
  });

  // The 402 in the gate itself, sign-in off against on, over the same state store.
  const op = OPERATIONS.find((o) => o.name === "search")!;
  const gateOf = (siwx: number) => {
    const c = testConfig({ ...settings, siwx_access_seconds: siwx });
    return new PaymentGate(c, PriceList.forConfig(OPERATIONS, c), services.state, silentLogger);
  };
  const challengeTime = async (gate: PaymentGate) => {
    await gate.start();
    return timed(challengeRuns, async () => {
      const asked = await gate.begin(op, { resourceUrl: `${BASE}/api/search`, input: VALID_INPUT }, "bench");
      if (asked.type !== "payment-required") throw new Error(`expected a 402, not ${asked.type}`);
      // Rendered as HTTP renders it: the header encoded (once for a kept challenge).
      httpOutcome(asked, { headers: {} }, { log: silentLogger, requestId: "bench" });
    });
  };
  const [off, on] = [gateOf(0), gateOf(3600)];
  const challengeOff = await challengeTime(off);
  const challengeOn = await challengeTime(on);
  off.close();
  on.close();

  // Paid end to end with the official client, on each chain; then signing in instead.
  const evmSigner = toClientEvmSigner(evmPayer, createPublicClient({ chain: baseSepolia, transport: http(chain.rpcUrl) }));
  const paying = (client: x402Client) => wrapFetchWithPayment(send as typeof fetch, client.setSpendControls({ maxAmountPerPayment: false }));
  const onBase = paying(new x402Client().register("eip155:*", new ExactEvmScheme(evmSigner)));
  const onSolana = paying(new x402Client().register("solana:*", new ExactSvmScheme(solPayer, { rpcUrl: solana.rpcUrl })));
  const ok = async (fetcher: (input: string, options: RequestInit) => Promise<Response>, settled: boolean) => {
    const response = await fetcher(`${BASE}${search.path}`, init(search));
    if (response.status !== 200 || (response.headers.get("payment-response") !== null) !== settled) throw new Error(`search: ${response.status}`);
    await response.arrayBuffer();
  };
  const paidBase = await timed(paidRuns, () => ok(onBase, true));
  const paidSolana = await timed(paidRuns, () => ok(onSolana, true));
  const signingIn = paying(
    new x402Client().register("solana:*", new ExactSvmScheme(solPayer, { rpcUrl: solana.rpcUrl })).registerExtension(createSIWxClientExtension({ signers: [solPayer as unknown as SolanaSigner] })),
  );
  const signedIn = await timed(paidRuns, () => ok(signingIn, false));
  const signedInEvm = paying(new x402Client().register("eip155:*", new ExactEvmScheme(evmSigner)).registerExtension(createSIWxClientExtension({ signers: [evmPayer] })));
  const signedInBase = await timed(paidRuns, () => ok(signedInEvm, false));

  const p50 = (samples: number[]) => percentile(samples, 50);
  printTable("Payment rails and sign-in (in-process, app.handle)", [
    ["free route (floor)", show(free)],
    ["402 in the gate, sign-in off (kept)", show(challengeOff)],
    ["402 in the gate, sign-in on (fresh)", `${show(challengeOn)}  x${(p50(challengeOn) / p50(challengeOff)).toFixed(1)} of off`],
    ["paid on Base (anvil)", show(paidBase)],
    ["paid on Solana (litesvm)", `${show(paidSolana)}  x${(p50(paidSolana) / p50(paidBase)).toFixed(2)} of Base`],
    ["signed in, SIWE (Base wallet)", `${show(signedInBase)}  x${(p50(signedInBase) / p50(paidBase)).toFixed(2)} of paying on Base`],
    ["signed in, SIWS (Solana wallet)", `${show(signedIn)}  x${(p50(signedIn) / p50(paidSolana)).toFixed(2)} of paying on Solana`],
  ]);
} finally {
  await services.close();
  await rails.stop();
  rmSync(dir, { recursive: true, force: true });
}
