/**
 * x402 payments end to end, offline, on a real chain: anvil with an EIP-3009 USDC at Base Sepolia's
 * USDC address, the server's in-process facilitator settling on it, and the official @x402/fetch
 * client paying. Balances are read from the chain. Nothing of ours is mocked.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { http, createPublicClient, createTestClient, parseEther, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { createServer } from "../../src/supervisor/assemble.ts";
import { OPERATIONS } from "../../src/operations/table/index.ts";
import { silentLogger } from "../../src/log.ts";
import { PaymentGate } from "../../src/payments/gate.ts";
import { PriceList } from "../../src/payments/prices.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { validateDiscoveryExtension, validateDiscoveryExtensionSpec } from "@x402/extensions/bazaar";
import { PAYMENT_IDENTIFIER, appendPaymentIdentifierToExtensions, declarePaymentIdentifierExtension } from "@x402/extensions/payment-identifier";

import { type LocalChain, PAYER_KEY, PAY_TO, SETTLER_KEY, USDC, startChain } from "../support/chain.ts";
import { copyOfFixture, testConfig } from "../support/fixture.ts";
import { init, requestFor } from "../support/paid-requests.ts";
import { scan, snapshotOf } from "../signals/support.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { type Agent, ERAS } from "../mcp/clients.ts";
import { postgresAvailable, startPostgres } from "../support/postgres.ts";
import { engineAvailable } from "../support/engines.ts";
import { INPUT_EXTENSION, type InputVerdict } from "../../src/payments/input-verdict.ts";
import { MAX_BODY_BYTES } from "../../src/api/body.ts";

/** What the 402s declare: a client echoes the declaration with its id (appendPaymentIdentifierToExtensions fills it in). */
const PAYMENT_ID_DECLARED = { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) };

const BASE = "http://127.0.0.1:8402";
let chain: LocalChain;
let dir: string;
let keyFile: string;
let services: Supervisor;
let app: ReturnType<typeof createServer>;
const payer = privateKeyToAccount(PAYER_KEY);

async function startApp(): Promise<void> {
  // One price overridden (CKG_PRICES): the gate, OpenAPI, the docs page and MCP must all say the same.
  const config = testConfig({ data_dir: dir, pay_to: PAY_TO, network: "eip155:84532", rpc_url: chain.rpcUrl, settlement_key_file: keyFile, prices: "timeseries=0.15" });
  services = await Supervisor.open(config, silentLogger);
  await services.start();
  app = createServer(services, { baseUrl: BASE });
}

const send = (input: string | URL | Request, init?: RequestInit) => app.handle(new Request(input as string, init));
/** The payer's client; `anything` lifts its spend controls, to sign the odd payments a bad client could send. */
const client = (anything = false) => {
  const signer = toClientEvmSigner(payer, createPublicClient({ chain: baseSepolia, transport: http(chain.rpcUrl) }));
  return new x402Client().register("eip155:*", new ExactEvmScheme(signer)).setSpendControls(anything ? false : { maxAmountPerPayment: false });
};
const paying = () => wrapFetchWithPayment(send as typeof fetch, client());

/** A signed payment for a 402's requirements, optionally altered before signing (what a client may send). */
async function paymentFor(required: PaymentRequired, alter: (r: PaymentRequirements) => PaymentRequirements = (r) => r): Promise<string> {
  const altered = { ...required, accepts: required.accepts.map(alter) };
  const payload = await new x402HTTPClient(client(true)).createPaymentPayload(altered);
  return encodePaymentSignatureHeader(payload);
}

/** What a 402 says of the request's input (`extensions["ckg/input"].info`). */
const verdictOf = (required: PaymentRequired) => (required.extensions?.[INPUT_EXTENSION] as { info: InputVerdict } | undefined)?.info;
/** Rows in the payment ledger: a payment the server claimed, verified or settled leaves one. */
const ledgerRows = async () => (await services.state.get<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM payments"))!.n;

async function challenge(r: { method: string; path: string; body?: unknown }): Promise<PaymentRequired> {
  const response = await send(`${BASE}${r.path}`, init(r));
  expect(response.status).toBe(402);
  return decodePaymentRequiredHeader(response.headers.get("payment-required")!);
}

beforeAll(async () => {
  chain = await startChain();
  await chain.mint(payer.address, 1_000_000_000n); // 1,000 USDC
  dir = await copyOfFixture();
  const keys = tempDir("ckg-key-");
  keyFile = join(keys, "settler.key");
  writeFileSync(keyFile, SETTLER_KEY, { mode: 0o600 });
  await startApp();
  const asOf = snapshotOf(dir).manifest.as_of.slice(0, 10);
  await scan(dir, services.state, asOf);
});

afterAll(async () => {
  await services?.close();
  await chain?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const paidOps = OPERATIONS.filter((op) => op.priceUsd > 0);

describe("paid routes", () => {
  // docs/spec.md §5.3's prose column, and push's subscription (paid once per period, deliveries free).
  test("prices are the spec's prose column", () => {
    expect(Object.fromEntries(paidOps.map((op) => [op.name, op.priceUsd]))).toEqual({
      sparql: 0.1, search: 0.1, explore: 0.1, timeseries: 0.1, changes: 0.1, entity_insights: 1.5, signals: 0.2, insights_batch: 7.5, subscribe: 1,
    });
  });

  test.each(paidOps.map((op) => [op.name]))("%s: 402 unpaid with the challenge in header and body; paid by @x402/fetch: 200, settled on chain", async (name) => {
    const op = OPERATIONS.find((o) => o.name === name)!;
    const r = requestFor(name);
    const unpaid = await send(`${BASE}${r.path}`, init(r));
    expect(unpaid.status).toBe(402);
    const header = decodePaymentRequiredHeader(unpaid.headers.get("payment-required")!);
    expect(await unpaid.json()).toEqual(header);
    expect(header.x402Version).toBe(2);
    // A valid input's offer says so: paying will get the answer.
    expect(verdictOf(header)).toEqual({ valid: true });
    const price = name === "timeseries" ? 0.15 : op.priceUsd;
    // The price in words; over the default client cap, the cap too (client-cap.test.ts).
    expect(header.error).toStartWith(`payment required: ${price.toFixed(2)} USD per request`);
    expect(header.error!.includes("maxAmountPerPayment")).toBe(price > 1);
    const accept = header.accepts[0]!;
    expect(accept).toMatchObject({ scheme: "exact", network: "eip155:84532", payTo: PAY_TO, amount: String(Math.round(price * 1e6)) });
    expect(accept.asset.toLowerCase()).toBe(USDC.toLowerCase());

    const before = await chain.balanceOf(PAY_TO);
    const paid = await paying()(`${BASE}${r.path}`, init(r));
    expect(paid.status).toBe(200);
    const receipt = decodePaymentResponseHeader(paid.headers.get("payment-response")!);
    expect(receipt.success).toBe(true);
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await chain.balanceOf(PAY_TO)) - before).toBe(BigInt(accept.amount));
  });

  test("the SPARQL protocol (/sparql) is priced and paid as /api/sparql", async () => {
    const query = "SELECT ?name WHERE { <chain/ethereum> schema:name ?name }";
    const url = `${BASE}/sparql?${new URLSearchParams({ query })}`;
    const unpaid = await send(url);
    expect(unpaid.status).toBe(402);
    const accept = decodePaymentRequiredHeader(unpaid.headers.get("payment-required")!).accepts[0]!;
    expect(accept.amount).toBe(String(Math.round(OPERATIONS.find((o) => o.name === "sparql")!.priceUsd * 1e6)));
    // A query that would fail gets the offer too, saying so: no one pays to learn it.
    const bad = await send(`${BASE}/sparql?${new URLSearchParams({ query: "SELECT WHERE {" })}`);
    expect(bad.status).toBe(402);
    expect(verdictOf(decodePaymentRequiredHeader(bad.headers.get("payment-required")!))).toMatchObject({ valid: false, error: { code: "invalid_sparql" } });
    const noGraph = await send(`${BASE}/sparql?${new URLSearchParams({ query, "default-graph-uri": "urn:no-such-graph" })}`);
    expect(noGraph.status).toBe(402);
    expect(verdictOf((await noGraph.json()) as PaymentRequired)).toMatchObject({ valid: false });
    const noQuery = await send(`${BASE}/sparql`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" });
    expect(noQuery.status).toBe(402);
    expect(verdictOf((await noQuery.json()) as PaymentRequired)).toMatchObject({ valid: false, error: { code: "invalid_request", details: { field: "query" } } });
    // GET with no query is the service description, which is free.
    expect((await send(`${BASE}/sparql`)).status).toBe(200);

    const before = await chain.balanceOf(PAY_TO);
    const paid = await paying()(url, { headers: { accept: "text/csv" } });
    expect(paid.status).toBe(200);
    expect(await paid.text()).toBe("name\r\nEthereum\r\n");
    expect(decodePaymentResponseHeader(paid.headers.get("payment-response")!).success).toBe(true);
    expect((await chain.balanceOf(PAY_TO)) - before).toBe(BigInt(accept.amount));
  });

  test("one price list: OpenAPI, the docs page and the MCP tools show what the gate charges", async () => {
    const prices = PriceList.forConfig(OPERATIONS, services.config);
    const openapi = (await (await send(`${BASE}/openapi.json`)).json()) as any;
    const docs = await (await send(`${BASE}/docs`)).text();
    const tools = (await (
      await send(`${BASE}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      })
    ).json()) as { result: { tools: { name: string; description: string }[] } };
    for (const op of OPERATIONS) {
      const price = prices.of(op.name);
      expect(price).toBe(op.name === "timeseries" ? 0.15 : op.priceUsd);
      const entry = openapi.paths[op.path.replace(/:([a-z_]+)/g, "{$1}")][op.method.toLowerCase()];
      expect(entry["x-price-usd"], op.name).toBe(price);
      expect(entry.responses["402"] !== undefined, op.name).toBe(price > 0);
      const section = docs.slice(docs.indexOf(`<section id="${op.name}">`));
      expect(section.slice(0, section.indexOf("</section>"))).toContain(price > 0 ? `$${price.toFixed(2)} per request (x402)` : "free");
      const tool = tools.result.tools.find((t) => t.name === op.name)!;
      expect(tool.description).toContain(price > 0 ? `Costs ${price.toFixed(2)} USD per call` : "Free.");
    }
  });

  test("free routes never ask for payment", async () => {
    for (const path of ["/api/schema", "/api/signals/catalog", "/api/insights/signals", "/healthz", "/readyz", "/metrics", "/openapi.json", "/docs"]) {
      const response = await send(`${BASE}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("payment-required")).toBeNull();
    }
  });

  test("bad input: the unpaid request gets the offer saying what is wrong; paid anyway by @x402/fetch, its 4xx, and nothing is claimed, settled or moved", async () => {
    const before = { payTo: await chain.balanceOf(PAY_TO), payer: await chain.balanceOf(payer.address), ledger: await ledgerRows() };
    const json = (body: unknown) => JSON.stringify(body);
    const cases: [RequestInit & { path: string }, number, string][] = [
      [{ path: "/api/sparql", method: "POST", body: json({ query: "SELEC nonsense" }) }, 400, "invalid_sparql"],
      [{ path: "/api/timeseries", method: "POST", body: json({ sql_query: "DROP TABLE ts_synthetic_token" }) }, 403, "read_only"],
      [{ path: "/api/explore", method: "POST", body: json({ entity_name: "No Such Entity Anywhere" }) }, 404, "entity_not_found"],
      [{ path: "/api/insights/signals/moon-signal", method: "GET" }, 404, "unknown_signal_type"],
      [{ path: "/api/insights/batch", method: "POST", body: json({ entities: Array.from({ length: 11 }, (_, i) => `e${i}`) }) }, 422, "too_many_entities"],
      [{ path: "/api/search", method: "POST", body: "{not json" }, 400, "invalid_request"],
      [{ path: "/api/search", method: "POST" }, 400, "invalid_request"],
      [{ path: "/api/search", method: "POST", body: json({ query: 5 }) }, 400, "invalid_request"],
    ];
    for (const [{ path, ...rest }, status, code] of cases) {
      const what = `${rest.method} ${path} ${String(rest.body)}`;
      const request = { ...rest, headers: { "content-type": "application/json" } };
      const unpaid = await send(`${BASE}${path}`, request);
      expect(unpaid.status, what).toBe(402);
      const required = decodePaymentRequiredHeader(unpaid.headers.get("payment-required")!);
      expect(verdictOf(required), what).toMatchObject({ valid: false, error: { code, message: expect.any(String), details: expect.any(Object) } });
      expect(required.error, what).toContain("would be refused, paid or not");
      // The client pays what the 402 asks (it does not read the verdict): refused all the same, and not charged.
      const paid = await paying()(`${BASE}${path}`, request);
      expect(paid.status, what).toBe(status);
      expect(((await paid.json()) as { error: { code: string } }).error.code, what).toBe(code);
      expect(paid.headers.get("payment-required"), what).toBeNull();
      expect(paid.headers.get("payment-response"), what).toBeNull();
    }
    expect(await ledgerRows()).toBe(before.ledger);
    expect(await chain.balanceOf(PAY_TO)).toBe(before.payTo);
    expect(await chain.balanceOf(payer.address)).toBe(before.payer);
  });

  test("a body over 64 KiB is 413 before the offer (never read, and paid or not it could not be answered); one just under it gets the offer, its verdict cut to fit a header", async () => {
    const post = (body: string) => send(`${BASE}/api/insights/batch`, { method: "POST", headers: { "content-type": "application/json" }, body });
    const over = await post(JSON.stringify({ entities: ["x".repeat(MAX_BODY_BYTES)] }));
    expect(over.status).toBe(413);
    expect(over.headers.get("payment-required")).toBeNull();
    // Unknown fields are named in the refusal: 60 KB of them would not fit in a header.
    const junk = JSON.stringify(Object.fromEntries(Array.from({ length: 2400 }, (_, i) => [`zz_unknown_field_${i}`, 1])));
    expect(junk.length).toBeLessThan(MAX_BODY_BYTES);
    const under = await post(junk);
    expect(under.status).toBe(402);
    expect(under.headers.get("payment-required")!.length).toBeLessThan(16 * 1024);
    const verdict = verdictOf(decodePaymentRequiredHeader(under.headers.get("payment-required")!));
    expect(verdict).toMatchObject({ valid: false, error: { code: "invalid_request", details: { truncated: expect.any(String) } } });
    if (!verdict!.valid) expect(verdict!.error.message.length).toBeLessThanOrEqual(301);
  });
});

describe("discovery before payment", () => {
  test("every 402 carries the bazaar extension: method, input and its schema, route template, an output example, service name and tags", async () => {
    const paid = OPERATIONS.filter((o) => PriceList.forConfig(OPERATIONS, services.config).of(o.name) > 0);
    expect(paid.length).toBeGreaterThan(0);
    for (const op of paid) {
      const required = await challenge(requestFor(op.name));
      const bazaar = required.extensions?.bazaar as { info: { input: Record<string, any>; output?: { example?: unknown } }; routeTemplate?: string } | undefined;
      expect(bazaar, op.name).toBeDefined();
      // What a facilitator checks before it lists a resource.
      expect(validateDiscoveryExtension(bazaar as never), op.name).toEqual({ valid: true });
      expect(validateDiscoveryExtensionSpec(bazaar as never).valid, op.name).toBe(true);
      expect(bazaar!.info.input.method).toBe(op.method);
      expect(bazaar!.info.input[op.method === "GET" ? "queryParams" : "body"], op.name).toBeDefined();
      expect(bazaar!.info.output?.example, op.name).toBeDefined();
      if (op.path.includes(":")) {
        expect(bazaar!.routeTemplate, op.name).toBe(op.path);
        const [name] = [...op.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
        expect(bazaar!.info.input.pathParams[name!]).toBe(String((op.example as Record<string, unknown>)[name!]));
      }
      expect(required.resource).toMatchObject({ serviceName: "ckg" });
      expect(required.resource.tags!.length).toBeGreaterThan(1);
    }
  });

  test("a crawler's probes of every paid operation (no input, an empty object, garbage) get the offer, a parseable 402 with the bazaar extension and the verdict", async () => {
    for (const op of paidOps) {
      const path = op.path.replace(/:([a-z_]+)/g, "zz-no-such-thing");
      const probes: { what: string; url: string; init: RequestInit; invalid: boolean }[] =
        op.method === "GET"
          ? [
              // With no query a GET may be valid (every parameter optional): the verdict says which.
              { what: "no query", url: path, init: {}, invalid: path !== op.path },
              { what: "garbage query", url: `${path}?limit=banana&zz_unknown=%ZZ`, init: {}, invalid: true },
              { what: "a parameter twice", url: `${path}?limit=1&limit=2`, init: {}, invalid: true },
            ]
          : [
              { what: "no body", url: path, init: { method: "POST" }, invalid: true },
              { what: "{}", url: path, init: { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }, invalid: op.name !== "subscribe" },
              { what: "garbage", url: path, init: { method: "POST", headers: { "content-type": "application/json" }, body: "\u0000garbage{" }, invalid: true },
              { what: "an array", url: path, init: { method: "POST", headers: { "content-type": "application/json" }, body: "[1,2]" }, invalid: true },
              { what: "wrong types", url: path, init: { method: "POST", headers: { "content-type": "text/plain" }, body: JSON.stringify({ zz_unknown: { deep: [1] }, limit: "many" }) }, invalid: true },
            ];
      for (const probe of probes) {
        const what = `${op.name}: ${op.method} ${probe.url} (${probe.what})`;
        const response = await send(`${BASE}${probe.url}`, { method: op.method, ...probe.init });
        expect(response.status, what).toBe(402);
        // Node's clients (undici) take at most 16 KiB of headers.
        expect(response.headers.get("payment-required")!.length, what).toBeLessThan(16 * 1024);
        const required = decodePaymentRequiredHeader(response.headers.get("payment-required")!);
        expect(await response.json(), what).toEqual(required);
        expect(required.x402Version, what).toBe(2);
        expect(required.accepts.length, what).toBeGreaterThan(0);
        expect(validateDiscoveryExtension(required.extensions?.bazaar as never), what).toEqual({ valid: true });
        const verdict = verdictOf(required);
        expect(verdict?.valid, what).toBe(!probe.invalid);
        if (verdict && !verdict.valid) expect(verdict.error.message.length, what).toBeGreaterThan(0);
      }
    }
  });

  test("/.well-known/x402.json lists every paid resource, over HTTP and MCP, with what it accepts, without any payment", async () => {
    const response = await send(`${BASE}/.well-known/x402.json`);
    expect(response.status).toBe(200);
    const manifest = (await response.json()) as { x402Version: number; items: { resource: string; type: string; accepts: PaymentRequirements[]; extensions: { bazaar: unknown } }[]; pagination: { total: number } };
    const prices = PriceList.forConfig(OPERATIONS, services.config);
    const paid = OPERATIONS.filter((op) => prices.of(op.name) > 0);
    expect(manifest.x402Version).toBe(2);
    expect(paid.length).toBeGreaterThan(0);
    expect(manifest.pagination.total).toBe(paid.length * 2);
    for (const op of paid) {
      const http = manifest.items.find((i) => i.type === "http" && i.resource === `${BASE}${op.path.replace(/:([a-z_]+)/g, "{$1}")}`)!;
      expect(http, op.name).toBeDefined();
      expect(http.accepts[0]).toMatchObject({ amount: String(Math.round(prices.of(op.name) * 1e6)), payTo: PAY_TO, network: "eip155:84532" });
      expect(validateDiscoveryExtension(http.extensions.bazaar as never), op.name).toEqual({ valid: true });
      const mcp = manifest.items.find((i) => i.type === "mcp" && i.resource === `${BASE}/mcp#${op.name}`);
      expect(mcp, op.name).toBeDefined();
    }
    // The same document as the 402s: the accepts are the ones a request is asked to pay.
    const search = await challenge(requestFor("search"));
    expect(manifest.items.find((i) => i.resource === `${BASE}/api/search`)!.accepts).toEqual(search.accepts);
  });
});

describe("one payment buys one answer", () => {
  test("a replayed payment-signature is refused, sequentially and concurrently, and after a restart", async () => {
    const r = requestFor("changes");
    const signature = await paymentFor(await challenge(r));
    const before = await chain.balanceOf(PAY_TO);
    // The same signature twice at once: the handler runs once.
    const both = await Promise.all([send(`${BASE}${r.path}`, init(r, { "payment-signature": signature })), send(`${BASE}${r.path}`, init(r, { "payment-signature": signature }))]);
    expect(both.map((x) => x.status).sort()).toEqual([200, 402]);
    const refused = both.find((x) => x.status === 402)!;
    expect(decodePaymentRequiredHeader(refused.headers.get("payment-required")!).error).toMatch(/one payment buys one answer/);
    // Again, afterwards.
    const again = await send(`${BASE}${r.path}`, init(r, { "payment-signature": signature }));
    expect(again.status).toBe(402);
    expect(((await again.json()) as PaymentRequired).error).toContain("already used");
    expect((await chain.balanceOf(PAY_TO)) - before).toBe(100_000n);
    // And after a restart: the ledger is durable.
    await services.close();
    await startApp();
    const afterRestart = await send(`${BASE}${r.path}`, init(r, { "payment-signature": signature }));
    expect(afterRestart.status).toBe(402);
    expect(((await afterRestart.json()) as PaymentRequired).error).toContain("already used");
    expect((await chain.balanceOf(PAY_TO)) - before).toBe(100_000n);
  });

  test("payment-identifier: a retry under the same identifier gets the same answer and is charged once, also at once and after a restart", async () => {
    const r = requestFor("search");
    const required = await challenge(r);
    expect(required.extensions?.["payment-identifier"]).toMatchObject({ info: { required: false } });
    const id = `retry_${crypto.randomUUID().replaceAll("-", "")}`;
    // A new signature each time (what a client retrying after a lost answer sends), one identifier.
    const withId = async (request = r, identifier = id) => {
      const payload = await new x402HTTPClient(client()).createPaymentPayload(await challenge(request));
      payload.extensions = appendPaymentIdentifierToExtensions({ ...(payload.extensions ?? {}), ...PAYMENT_ID_DECLARED }, identifier);
      return send(`${BASE}${request.path}`, init(request, { "payment-signature": encodePaymentSignatureHeader(payload) }));
    };
    const before = await chain.balanceOf(PAY_TO);
    const first = await withId();
    expect(first.status).toBe(200);
    const answer = await first.json();
    const settlement = first.headers.get("payment-response");
    const retry = await withId();
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual(answer);
    expect(retry.headers.get("payment-response")).toBe(settlement);
    expect((await chain.balanceOf(PAY_TO)) - before).toBe(100_000n);
    // Two retries at once: both answered the same, still one charge.
    const both = await Promise.all([withId(), withId()]);
    expect(both.map((x) => x.status)).toEqual([200, 200]);
    // Only the wallet that bought it gets it again: another's valid payment under it is refused.
    const stranger = privateKeyToAccount("0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6");
    await chain.mint(stranger.address, 1_000_000n);
    const strangerClient = new x402Client().register("eip155:*", new ExactEvmScheme(toClientEvmSigner(stranger, createPublicClient({ chain: baseSepolia, transport: http(chain.rpcUrl) }))));
    const theirs = await new x402HTTPClient(strangerClient).createPaymentPayload(required);
    theirs.extensions = appendPaymentIdentifierToExtensions({ ...(theirs.extensions ?? {}), ...PAYMENT_ID_DECLARED }, id);
    const refused = await send(`${BASE}${r.path}`, init(r, { "payment-signature": encodePaymentSignatureHeader(theirs) }));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("bought by another wallet");
    // The identifier names one request: another one under it is refused, and nothing is charged.
    const other = await withId({ ...r, body: { query: "Arbitrum", limit: 3 } });
    expect(other.status).toBe(400);
    expect(((await other.json()) as { error: { message: string } }).error.message).toContain("was used for another request");
    // Kept in the state store: a restart remembers.
    await services.close();
    await startApp();
    const afterRestart = await withId();
    expect(afterRestart.status).toBe(200);
    expect(await afterRestart.json()).toEqual(answer);
    expect((await chain.balanceOf(PAY_TO)) - before).toBe(100_000n);
    // A fresh identifier is a fresh purchase.
    expect((await withId(r, `${id}_2`)).status).toBe(200);
    expect((await chain.balanceOf(PAY_TO)) - before).toBe(200_000n);
  });
});

const withPostgres = engineAvailable("postgresql-15", postgresAvailable(), "the ledger shared in PostgreSQL", "apt-get install postgresql-15; .ci/run installs it");

describe.skipIf(!withPostgres)("replicas sharing the ledger in PostgreSQL (CKG_STATE_URL)", () => {
  test("a payment sent to two replicas at once buys one answer; a replay on either is refused", async () => {
    const pg = await startPostgres();
    const replicas: { services: Supervisor; send: (url: string, init: RequestInit) => Promise<Response>; dir: string }[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const replicaDir = await copyOfFixture();
        const config = testConfig({ data_dir: replicaDir, pay_to: PAY_TO, network: "eip155:84532", rpc_url: chain.rpcUrl, settlement_key_file: keyFile, state_url: pg.url });
        const replica = await Supervisor.open(config, silentLogger);
        await replica.start();
        const replicaApp = createServer(replica, { baseUrl: BASE });
        replicas.push({ services: replica, dir: replicaDir, send: (url, init) => replicaApp.handle(new Request(url, init)) });
      }
      const r = requestFor("changes");
      const signature = await paymentFor(await challenge(r));
      const before = await chain.balanceOf(PAY_TO);
      const both = await Promise.all(replicas.map((replica) => replica.send(`${BASE}${r.path}`, init(r, { "payment-signature": signature }))));
      expect(both.map((x) => x.status).sort()).toEqual([200, 402]);
      for (const replica of replicas) {
        const again = await replica.send(`${BASE}${r.path}`, init(r, { "payment-signature": signature }));
        expect(again.status).toBe(402);
        expect(((await again.json()) as PaymentRequired).error).toContain("already used");
      }
      expect((await chain.balanceOf(PAY_TO)) - before).toBe(100_000n);
      const ready = (await (await replicas[1]!.send(`${BASE}/readyz`, { method: "GET" })).json()) as { payments: { ledger_store: string; ledger: Record<string, number> } };
      expect(ready.payments.ledger_store).toBe("postgresql");
      expect(ready.payments.ledger.settled).toBe(1);
      expect(JSON.stringify(ready)).not.toContain(pg.url);
    } finally {
      for (const replica of replicas) {
        await replica.services.close();
        rmSync(replica.dir, { recursive: true, force: true });
      }
      await pg.stop();
    }
  }, 120_000);
});

describe("bad payments get a 402 with the reason, and nothing moves", () => {
  const r = requestFor("search");
  const refusedWith = async (signature: string) => {
    const response = await send(`${BASE}${r.path}`, init(r, { "payment-signature": signature }));
    expect(response.status).toBe(402);
    return ((await response.json()) as PaymentRequired).error!;
  };

  test("underpayment, wrong payTo, network and asset", async () => {
    const required = await challenge(r);
    const before = await chain.balanceOf(payer.address);
    expect(await refusedWith(await paymentFor(required, (a) => ({ ...a, amount: "1" })))).toContain("amount is 1, expected 100000");
    expect(await refusedWith(await paymentFor(required, (a) => ({ ...a, payTo: payer.address })))).toContain("payTo is");
    expect(await refusedWith(await paymentFor(required, (a) => ({ ...a, network: "eip155:8453" })))).toContain("the payment is on eip155:8453; this route accepts payments on eip155:84532");
    expect(await refusedWith(await paymentFor(required, (a) => ({ ...a, asset: "0x0000000000000000000000000000000000000001" })))).toContain("asset is");
    expect(await chain.balanceOf(payer.address)).toBe(before);
  });

  test("expired and not-yet-valid authorizations, bad signatures, malformed headers", async () => {
    const required = await challenge(r);
    const valid = JSON.parse(Buffer.from(await paymentFor(required), "base64").toString()) as PaymentPayload & { payload: { authorization: Record<string, string>; signature: string } };
    const resign = async (change: Record<string, string>) => {
      const authorization = { ...valid.payload.authorization, ...change };
      const signature = await payer.signTypedData({
        domain: { name: "USDC", version: "2", chainId: baseSepolia.id, verifyingContract: USDC },
        types: {
          TransferWithAuthorization: [
            { name: "from", type: "address" }, { name: "to", type: "address" }, { name: "value", type: "uint256" },
            { name: "validAfter", type: "uint256" }, { name: "validBefore", type: "uint256" }, { name: "nonce", type: "bytes32" },
          ],
        },
        primaryType: "TransferWithAuthorization",
        message: { ...authorization, value: BigInt(authorization.value!), validAfter: BigInt(authorization.validAfter!), validBefore: BigInt(authorization.validBefore!) } as never,
      });
      return Buffer.from(JSON.stringify({ ...valid, payload: { authorization, signature } })).toString("base64");
    };
    const now = Math.floor(Date.now() / 1000);
    const fresh = () => toHex(crypto.getRandomValues(new Uint8Array(32)));
    expect(await refusedWith(await resign({ validBefore: String(now - 60), nonce: fresh() }))).toMatch(/payment invalid/);
    expect(await refusedWith(await resign({ validAfter: String(now + 3600), nonce: fresh() }))).toMatch(/payment invalid/);
    const forged = Buffer.from(JSON.stringify({ ...valid, payload: { ...valid.payload, authorization: { ...valid.payload.authorization, value: "100001" } } })).toString("base64");
    expect(await refusedWith(forged)).toMatch(/payment invalid/);
    expect(await refusedWith("not base64 at all!")).toMatch(/malformed payment/);
    expect(await refusedWith(Buffer.from("{}").toString("base64"))).toMatch(/malformed payment/);
  });
});

describe("failures never charge for nothing", () => {
  test("a handler that fails after the payment verified: its error, no transfer; the signature stays usable", async () => {
    const bad = { method: "POST", path: "/api/timeseries", body: { sql_query: "SELECT CAST(entity_id AS INTEGER) AS n FROM ts_synthetic_token" } };
    const required = await challenge(bad);
    const signature = await paymentFor(required);
    const before = await chain.balanceOf(PAY_TO);
    const response = await send(`${BASE}${bad.path}`, init(bad, { "payment-signature": signature }));
    expect(response.status).toBe(400);
    expect(response.headers.get("payment-response")).toBeNull();
    expect(await chain.balanceOf(PAY_TO)).toBe(before);
  });

  test("a settlement that fails withholds the answer (402), and nothing moves", async () => {
    const r = requestFor("explore");
    const signature = await paymentFor(await challenge(r));
    const before = await chain.balanceOf(PAY_TO);
    const testClient = createTestClient({ chain: baseSepolia, mode: "anvil", transport: http(chain.rpcUrl) });
    const settler = privateKeyToAccount(SETTLER_KEY).address;
    // The settling wallet cannot pay gas: verification (a read) passes, the settlement fails.
    await testClient.setBalance({ address: settler, value: 0n });
    try {
      const response = await send(`${BASE}${r.path}`, init(r, { "payment-signature": signature }));
      expect(response.status).toBe(402);
      const body = (await response.json()) as PaymentRequired;
      expect(body.error).toContain("settlement failed");
      expect(body.x402Version).toBe(2);
      expect(body).not.toHaveProperty("entity");
    } finally {
      await testClient.setBalance({ address: settler, value: parseEther("100") });
    }
    expect(await chain.balanceOf(PAY_TO)).toBe(before);
  });

  test("an unknown settlement outcome is reconciled from the chain", async () => {
    const r = requestFor("changes");
    const required = await challenge(r);
    const signature = await paymentFor(required);
    const paid = await send(`${BASE}${r.path}`, init(r, { "payment-signature": signature }));
    expect(paid.status).toBe(200);
    // As if the settlement had timed out: the ledger says unknown; the chain says it happened.
    await services.state.run("UPDATE payments SET state = 'unknown' WHERE state = 'settled'");
    const gate = new PaymentGate(services.config, PriceList.forConfig(OPERATIONS, services.config), services.state, silentLogger);
    expect(await gate.reconcile()).toBeGreaterThan(0);
    expect(await services.state.get("SELECT CAST(count(*) AS INTEGER) AS n FROM payments WHERE state = 'unknown'")).toEqual({ n: 0 });
    gate.close();
  });
});

for (const era of ERAS) {
describe(`payments over MCP (x402 MCP transport), protocol ${era.revision} (${era.client})`, () => {
  let mcp: Agent;
  const callTool = (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => mcp.callTool(name, args, meta ? { meta } : {});

  beforeAll(async () => {
    mcp = await era.connect(`${BASE}/mcp`, send as typeof fetch);
  });
  afterAll(async () => {
    await mcp?.close();
  });

  test("tools state their price; an unpaid call returns the payment requirements; the paid retry is settled on chain", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.find((t) => t.name === "search")!.description).toContain("Costs 0.10 USD");
    expect(tools.find((t) => t.name === "signals_catalog")!.description).toContain("Free.");

    const args = { query: "Ethereum", limit: 3 };
    const unpaid = await callTool("search", args);
    expect(unpaid.isError).toBe(true);
    const required = unpaid.structuredContent as unknown as PaymentRequired;
    expect(required.x402Version).toBe(2);
    expect(required.accepts[0]).toMatchObject({ amount: "100000", payTo: PAY_TO, network: "eip155:84532" });
    expect(JSON.parse(unpaid.content[0]!.text!)).toEqual(required);

    const payload = await new x402HTTPClient(client()).createPaymentPayload(required);
    const before = await chain.balanceOf(PAY_TO);
    const paid = await callTool("search", args, { "x402/payment": payload });
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent!.results.length).toBeGreaterThan(0);
    expect(paid._meta!["x402/payment-response"]).toMatchObject({ success: true, network: "eip155:84532" });
    expect((await chain.balanceOf(PAY_TO)) - before).toBe(100_000n);

    // The same payment again: refused, nothing moves.
    const replay = await callTool("search", args, { "x402/payment": payload });
    expect(replay.isError).toBe(true);
    expect(replay.structuredContent!.error).toContain("already used");
    expect((await chain.balanceOf(PAY_TO)) - before).toBe(100_000n);

    // A payment as the base64 string of the header works too.
    const again = await new x402HTTPClient(client()).createPaymentPayload(required);
    const viaString = await callTool("search", args, { "x402/payment": encodePaymentSignatureHeader(again) });
    expect(viaString.isError).toBeFalsy();
    expect((await chain.balanceOf(PAY_TO)) - before).toBe(200_000n);
  });

  test("an unpaid tool call's requirements carry the bazaar extension of the tool (type mcp)", async () => {
    const required = (await callTool("explore", { entity_name: "Aave" })).structuredContent as unknown as PaymentRequired;
    expect(verdictOf(required)).toEqual({ valid: true });
    const bazaar = required.extensions!.bazaar as { info: { input: Record<string, unknown> } };
    expect(validateDiscoveryExtension(bazaar as never)).toEqual({ valid: true });
    expect(validateDiscoveryExtensionSpec(bazaar as never).valid).toBe(true);
    expect(bazaar.info.input).toMatchObject({ type: "mcp", toolName: "explore", transport: "streamable-http" });
    expect(required.resource).toMatchObject({ url: `${BASE}/mcp#explore`, serviceName: "ckg" });
  });

  test("free tools stay free; errors are not charged, paid or not", async () => {
    expect((await callTool("signals_catalog", {})).isError).toBeFalsy();
    const before = await chain.balanceOf(PAY_TO);
    const ledger = await ledgerRows();
    // Unpaid, bad arguments get the requirements first, saying what is wrong; paid anyway, the error, not charged.
    const unknown = { entity_name: "No Such Entity Anywhere" };
    const offered = await callTool("entity_insights", unknown);
    expect(offered.isError).toBe(true);
    const offer = offered.structuredContent as unknown as PaymentRequired;
    expect(offer.accepts[0]).toMatchObject({ payTo: PAY_TO });
    expect(verdictOf(offer)).toMatchObject({ valid: false, error: { code: "entity_not_found" } });
    const invalid = await callTool("entity_insights", unknown, { "x402/payment": await new x402HTTPClient(client()).createPaymentPayload(offer) });
    expect(invalid.structuredContent!.error.code).toBe("entity_not_found");
    expect(invalid._meta?.["x402/payment-response"]).toBeUndefined();
    expect(await ledgerRows()).toBe(ledger);
    const wrongTypes = (await callTool("search", { query: 5, zz_unknown: true })).structuredContent as unknown as PaymentRequired;
    expect(verdictOf(wrongTypes)).toMatchObject({ valid: false, error: { code: "invalid_request" } });
    expect(validateDiscoveryExtension(wrongTypes.extensions!.bazaar as never)).toEqual({ valid: true });
    const bad = { sql_query: "SELECT CAST(entity_id AS INTEGER) AS n FROM ts_synthetic_token" };
    const required = (await callTool("timeseries", bad)).structuredContent as unknown as PaymentRequired;
    const payload = await new x402HTTPClient(client()).createPaymentPayload(required);
    const failed = await callTool("timeseries", bad, { "x402/payment": payload });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent!.error.code).toBe("invalid_sql");
    expect(failed._meta?.["x402/payment-response"]).toBeUndefined();
    expect(await chain.balanceOf(PAY_TO)).toBe(before);
  });
});
}
