/**
 * The 1 USD default cap of x402 clients, shown with the official client (@x402/core's x402Client
 * through @x402/fetch) at its defaults against a real ckg with payments on, on a local chain (anvil,
 * an EIP-3009 USDC at Base Sepolia's address; test/support/chain.ts): what an agent sees when it
 * asks for entity insights (1.50) and the batch (7.50), that nothing is charged, that the 402 says
 * the price, the cap and how to raise it, and that raising it as the 402 says buys both. Prices are
 * the spec's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { DEFAULT_MAX_AMOUNT_PER_PAYMENT, x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, wrapFetchWithPaymentFromConfig } from "@x402/fetch";
import { http, createPublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { createServer } from "../../src/supervisor/assemble.ts";
import { silentLogger } from "../../src/log.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { type LocalChain, PAYER_KEY, PAY_TO, SETTLER_KEY, startChain } from "../support/chain.ts";
import { copyOfFixture, testConfig } from "../support/fixture.ts";
import { init, requestFor } from "../support/paid-requests.ts";
import { MCP_HEADERS } from "../support/fuzz.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { scan, snapshotOf } from "../signals/support.ts";

const BASE = "http://127.0.0.1:8402";
let chain: LocalChain;
let dir: string;
let services: Supervisor;
let app: ReturnType<typeof createServer>;
const payer = privateKeyToAccount(PAYER_KEY);

const send = (input: string | URL | Request, init?: RequestInit) => app.handle(new Request(input as string, init));
const scheme = () => new ExactEvmScheme(toClientEvmSigner(payer, createPublicClient({ chain: baseSepolia, transport: http(chain.rpcUrl) })));
/** The official client as an agent gets it: a scheme registered, nothing else set. */
const atDefaults = () => wrapFetchWithPayment(send as typeof fetch, new x402Client().register("eip155:*", scheme()));
const ledgerRows = async () => (await services.state.get<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM payments"))!.n;

/** What the official client says when its cap refuses every requirement (its words, @x402/core 2.27.0). */
const REFUSED =
  "Failed to create payment payload: All payment requirements were rejected by spendControls.maxAmountPerPayment ($1, including USDC). " +
  "Raise maxAmountPerPayment, set it to false to disable, set allowedAssets[].maxAmountPerPayment for a per-asset atomic cap, or set spendControls: false to disable all spend controls.";

beforeAll(async () => {
  chain = await startChain();
  await chain.mint(payer.address, 100_000_000n); // 100 USDC
  dir = await copyOfFixture();
  const keyFile = join(tempDir("ckg-key-"), "settler.key");
  writeFileSync(keyFile, SETTLER_KEY, { mode: 0o600 });
  services = await Supervisor.open(testConfig({ data_dir: dir, pay_to: PAY_TO, network: "eip155:84532", rpc_url: chain.rpcUrl, settlement_key_file: keyFile }), silentLogger);
  await services.start();
  app = createServer(services, { baseUrl: BASE });
  await scan(dir, services.state, snapshotOf(dir).manifest.as_of.slice(0, 10));
});

afterAll(async () => {
  await services?.close();
  await chain?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("x402 clients' default cap of 1 USD per payment", () => {
  test("the official client's default is the 1 USD this server's offers name", () => {
    expect(DEFAULT_MAX_AMOUNT_PER_PAYMENT).toBe("$1");
  });

  test.each([
    ["entity_insights", 1.5],
    ["insights_batch", 7.5],
  ] as const)("%s (%d USD): the client at its defaults refuses before paying, and says why; nothing is charged", async (name, price) => {
    const r = requestFor(name);
    const balance = await chain.balanceOf(PAY_TO);
    const rows = await ledgerRows();
    // What the agent sees: the client's error, thrown instead of an answer.
    const seen = await atDefaults()(`${BASE}${r.path}`, init(r)).then(
      (response) => `answered ${response.status}`,
      (error: Error) => error.message,
    );
    expect(seen).toBe(REFUSED);
    expect(await chain.balanceOf(PAY_TO)).toBe(balance);
    expect(await ledgerRows()).toBe(rows);

    // What the server offered it: the 402's error says the price, the cap and the option that raises it.
    const unpaid = await send(`${BASE}${r.path}`, init(r));
    expect(unpaid.status).toBe(402);
    const offer = decodePaymentRequiredHeader(unpaid.headers.get("payment-required")!);
    expect(offer.error).toStartWith(`payment required: ${price.toFixed(2)} USD per request; x402 clients pay at most 1 USD per payment unless told otherwise`);
    expect(offer.error).toContain(`spendControls.maxAmountPerPayment (default "$1") to at least "$${price.toFixed(2)}"`);
    expect(offer.accepts[0]!.amount).toBe(String(price * 1e6));
  });

  test("at the cap (subscribe, 1.00 USD) the client at its defaults pays", async () => {
    const r = requestFor("subscribe");
    const balance = await chain.balanceOf(PAY_TO);
    const paid = await atDefaults()(`${BASE}${r.path}`, init(r));
    expect(paid.status).toBe(200);
    expect(await chain.balanceOf(PAY_TO)).toBe(balance + 1_000_000n);
    const unpaid = decodePaymentRequiredHeader((await send(`${BASE}${r.path}`, init(r))).headers.get("payment-required")!);
    expect(unpaid.error).toBe("payment required: 1.00 USD per request");
  });

  test("raised as the 402 says, on either entry point of the official client, both are bought and settled", async () => {
    const insights = requestFor("entity_insights");
    const raised = new x402Client().register("eip155:*", scheme()).setSpendControls({ maxAmountPerPayment: "$1.50" });
    let balance = await chain.balanceOf(PAY_TO);
    expect((await wrapFetchWithPayment(send as typeof fetch, raised)(`${BASE}${insights.path}`, init(insights))).status).toBe(200);
    expect(await chain.balanceOf(PAY_TO)).toBe(balance + 1_500_000n);

    const batch = requestFor("insights_batch");
    const configured = wrapFetchWithPaymentFromConfig(send as typeof fetch, { schemes: [{ network: "eip155:*", client: scheme() }], spendControls: { maxAmountPerPayment: "$7.50" } });
    balance = await chain.balanceOf(PAY_TO);
    expect((await configured(`${BASE}${batch.path}`, init(batch))).status).toBe(200);
    expect(await chain.balanceOf(PAY_TO)).toBe(balance + 7_500_000n);
  });

  test("over MCP: the tools over the cap say it in their description, the others do not", async () => {
    const response = await send(`${BASE}/mcp`, { method: "POST", headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }) });
    const { tools } = ((await response.json()) as { result: { tools: { name: string; description: string }[] } }).result;
    for (const tool of tools) expect(tool.description.includes("maxAmountPerPayment"), tool.name).toBe(["entity_insights", "insights_batch"].includes(tool.name));
    expect(tools.find((t) => t.name === "insights_batch")!.description).toContain('Costs 7.50 USD per call, paid with x402 (USDC): an unpaid call returns the payment requirements. Note: x402 clients pay at most 1 USD');
  });
});
