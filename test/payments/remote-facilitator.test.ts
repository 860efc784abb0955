/**
 * Payments through a remote facilitator (CKG_FACILITATOR_URL, CKG_FACILITATOR_AUTH), the mode most
 * deployments use. The facilitator is a third party; it is stood in for by an HTTP server speaking
 * the x402 facilitator API (GET /supported, POST /verify, POST /settle) over the official
 * x402Facilitator with the exact schemes of both chains, settling on anvil and the local Solana and
 * demanding a bearer token. ckg holds no key; the official @x402/fetch client pays.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { x402Client } from "@x402/core/client";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { http, createPublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { silentLogger } from "../../src/log.ts";
import { createFacilitation } from "../../src/payments/facilitator.ts";
import { createServer } from "../../src/supervisor/assemble.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { PAYER_KEY, PAY_TO, THIRD_SETTLER_KEY } from "../support/chain.ts";
import { copyOfFixture, testConfig } from "../support/fixture.ts";
import { init, requestFor } from "../support/paid-requests.ts";
import { type TwoRails, startTwoRails } from "../support/rails.ts";
import { SOLANA_MAINNET } from "../support/solana.ts";

const BASE = "http://127.0.0.1:8402";
const TOKEN = "Bearer facilitator-secret";
let rails: TwoRails;
let dir: string;
let facilitator: ReturnType<typeof Bun.serve>;
/** Every call the facilitator got: its path and whether it carried the token. */
const calls: { path: string; authorized: boolean }[] = [];
/** The networks the facilitator says it supports (narrowed by a test). */
let offered: string[] = [];

/** A server for `settings`, through the remote facilitator. */
async function serverFor(settings: Record<string, string | number | boolean>) {
  const services = await Supervisor.open(testConfig({ ...settings, data_dir: dir, facilitator_url: facilitator.url.href.replace(/\/$/, ""), facilitator_auth: TOKEN }), silentLogger);
  await services.start();
  return { services, app: createServer(services, { baseUrl: BASE }) };
}

beforeAll(async () => {
  rails = await startTwoRails(1_000_000_000n, THIRD_SETTLER_KEY);
  dir = await copyOfFixture();
  // The third party: the official facilitator settling on both local chains (built the way ckg's in-process mode builds it).
  const inner = createFacilitation(testConfig({ ...rails.settings, data_dir: dir })).client;
  facilitator = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const authorized = request.headers.get("authorization") === TOKEN;
      calls.push({ path, authorized });
      if (!authorized) return Response.json({ error: "unauthorized" }, { status: 401 });
      if (path === "/supported" && request.method === "GET") {
        const supported = await inner.getSupported();
        return Response.json({ ...supported, kinds: supported.kinds.filter((kind) => offered.includes(kind.network)) });
      }
      const body = (await request.json()) as { paymentPayload: never; paymentRequirements: never };
      if (path === "/verify") return Response.json(await inner.verify(body.paymentPayload, body.paymentRequirements));
      if (path === "/settle") return Response.json(await inner.settle(body.paymentPayload, body.paymentRequirements));
      return new Response("not found", { status: 404 });
    },
  });
});

afterAll(async () => {
  await facilitator?.stop(true);
  await rails?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a remote facilitator (CKG_FACILITATOR_URL)", () => {
  test("pays on Base and on Solana through it, with its token on every call; ckg holds no key", async () => {
    offered = ["eip155:84532", SOLANA_MAINNET];
    const { pay_to, pay_to_solana, network, solana_network } = rails.settings;
    const { services, app } = await serverFor({ pay_to: pay_to!, pay_to_solana: pay_to_solana!, network: network!, solana_network: solana_network! });
    try {
      const send = (input: Request | string, options?: RequestInit) => app.handle(new Request(input as string, options));
      const evmPayer = privateKeyToAccount(PAYER_KEY);
      const onBase = new x402Client().register("eip155:*", new ExactEvmScheme(toClientEvmSigner(evmPayer, createPublicClient({ chain: baseSepolia, transport: http(rails.chain.rpcUrl) }))));
      const onSolana = new x402Client().register("solana:*", new ExactSvmScheme(rails.solPayer, { rpcUrl: rails.solana.rpcUrl }));
      const sql = requestFor("timeseries");
      const before = { base: await rails.chain.balanceOf(PAY_TO), solana: rails.solana.usdcOf(rails.solPayTo.address) };
      for (const client of [onBase, onSolana]) {
        const paid = await wrapFetchWithPayment(send as typeof fetch, client.setSpendControls({ maxAmountPerPayment: false }))(`${BASE}${sql.path}`, init(sql));
        expect(paid.status).toBe(200);
        expect(decodePaymentResponseHeader(paid.headers.get("payment-response")!).success).toBe(true);
      }
      expect(await rails.chain.balanceOf(PAY_TO)).toBe(before.base + 100_000n);
      expect(rails.solana.usdcOf(rails.solPayTo.address)).toBe(before.solana + 100_000n);
      expect(new Set(calls.map((c) => c.path))).toEqual(new Set(["/supported", "/verify", "/settle"]));
      expect(calls.every((c) => c.authorized)).toBe(true);
      const ready = (await (await send(`${BASE}/readyz`)).json()) as { payments: Record<string, unknown> };
      expect(ready.payments).toMatchObject({ mode: "remote", networks: ["eip155:84532", SOLANA_MAINNET] });
      expect(JSON.stringify(ready.payments)).not.toContain("facilitator-secret");
    } finally {
      await services.close();
    }
  });

  test("a facilitator that does not settle a configured chain: paid routes 503 saying which, free routes answer", async () => {
    offered = ["eip155:84532"];
    const { pay_to, pay_to_solana, network, solana_network } = rails.settings;
    const { services, app } = await serverFor({ pay_to: pay_to!, pay_to_solana: pay_to_solana!, network: network!, solana_network: solana_network! });
    try {
      const send = (input: string, options?: RequestInit) => app.handle(new Request(input, options));
      const sql = requestFor("timeseries");
      const refused = await send(`${BASE}${sql.path}`, init(sql));
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(`the facilitator does not settle exact payments on ${SOLANA_MAINNET}`);
      const ready = (await (await send(`${BASE}/readyz`)).json()) as { payments: { error?: string } };
      expect(ready.payments.error).toContain(SOLANA_MAINNET);
      expect((await send(`${BASE}/api/schema`)).status).toBe(200);
    } finally {
      await services.close();
    }
  });
});
