/**
 * Paying from Solana beside Base, and signing in to what a wallet paid for, end to end and offline:
 * anvil (Base, EIP-3009 USDC) and litesvm behind a JSON-RPC port (Solana, the SPL token program and
 * USDC at its mainnet mint), the server's in-process facilitator settling on both, and the official
 * @x402/fetch client paying and signing in (SIWE with an EVM wallet, SIWS with a Solana one,
 * through the sign-in-with-x client extension). Balances are read from the chains. Nothing of ours
 * is mocked.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { KeyPairSigner } from "@solana/kit";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { PAYMENT_IDENTIFIER, appendPaymentIdentifierToExtensions, declarePaymentIdentifierExtension } from "@x402/extensions/payment-identifier";
import { SIGN_IN_WITH_X, type SIWxExtension, type SolanaSigner, createSIWxClientExtension, createSIWxPayload, encodeSIWxHeader } from "@x402/extensions/sign-in-with-x";
import { wrapFetchWithPayment } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { http, createPublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { silentLogger } from "../../src/log.ts";
import { PaymentGate } from "../../src/payments/gate.ts";
import { VALID_INPUT } from "../../src/payments/input-verdict.ts";
import type { PaymentRequiredOutcome } from "../../src/payments/offer.ts";
import { PriceList } from "../../src/payments/prices.ts";
import { OPERATIONS } from "../../src/operations/table/index.ts";
import { createServer } from "../../src/supervisor/assemble.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { type LocalChain, PAYER_KEY, PAY_TO, SECOND_SETTLER_KEY, USDC } from "../support/chain.ts";
import { copyOfFixture, testConfig } from "../support/fixture.ts";
import { type PaidCall, init, requestFor } from "../support/paid-requests.ts";
import { type TwoRails, startTwoRails } from "../support/rails.ts";
import { type LocalSolana, SOLANA_MAINNET, SOLANA_USDC, solanaKeys } from "../support/solana.ts";

const BASE = "http://127.0.0.1:8402";
let rails: TwoRails;
let chain: LocalChain;
let solana: LocalSolana;
let dir: string;
let services: Supervisor;
let app: ReturnType<typeof createServer>;
let solPayer: KeyPairSigner;
let solStranger: KeyPairSigner;
let solPayTo: KeyPairSigner;
const evmPayer = privateKeyToAccount(PAYER_KEY);
/** anvil's dev account 3: a wallet that never paid. */
const evmStranger = privateKeyToAccount("0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6");

const send = (input: string | URL | Request, init?: RequestInit) => app.handle(new Request(input as string, init));
const sql = requestFor("timeseries");
const search = requestFor("search");

/** A client paying from Solana only (the official exact SVM scheme, on the local RPC), optionally signing in. */
const solanaClient = (signer: KeyPairSigner, signIn = false) => {
  const client = new x402Client().register("solana:*", new ExactSvmScheme(signer, { rpcUrl: solana.rpcUrl })).setSpendControls({ maxAmountPerPayment: false });
  // A kit KeyPairSigner is the library's SolanaKitSigner (address, signMessages); only readonly-ness differs in the types.
  return signIn ? client.registerExtension(createSIWxClientExtension({ signers: [signer as unknown as SolanaSigner] })) : client;
};
/** A client paying from Base, optionally signing in with the same wallet. */
const evmClient = (account = evmPayer, signIn = false) => {
  const signer = toClientEvmSigner(account, createPublicClient({ chain: baseSepolia, transport: http(chain.rpcUrl) }));
  const client = new x402Client().register("eip155:*", new ExactEvmScheme(signer)).setSpendControls({ maxAmountPerPayment: false });
  return signIn ? client.registerExtension(createSIWxClientExtension({ signers: [account] })) : client;
};

/** Every request the client makes, with the headers it sent and the status it got. */
function recording(client: x402Client) {
  const seen: { headers: Headers; status: number }[] = [];
  const fetcher = wrapFetchWithPayment((async (input: Request | string, options?: RequestInit) => {
    const request = new Request(input as string, options);
    const response = await app.handle(request);
    seen.push({ headers: request.headers, status: response.status });
    return response;
  }) as typeof fetch, client);
  return { fetcher, seen };
}

async function challenge(r: PaidCall): Promise<PaymentRequired> {
  const response = await send(`${BASE}${r.path}`, init(r));
  expect(response.status).toBe(402);
  return decodePaymentRequiredHeader(response.headers.get("payment-required")!);
}

beforeAll(async () => {
  rails = await startTwoRails(1_000_000_000n);
  ({ chain, solana, solPayer, solPayTo } = rails);
  solStranger = await solanaKeys.stranger();
  await solana.fundUsdc(solStranger.address, 1_000_000_000n);
  dir = await copyOfFixture();
  const config = testConfig({ ...rails.settings, data_dir: dir, base_url: BASE, siwx_access_seconds: 3600 });
  services = await Supervisor.open(config, silentLogger);
  await services.start();
  app = createServer(services, { baseUrl: BASE });
});

afterAll(async () => {
  await services?.close();
  await rails?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("paying from Solana beside Base", () => {
  test("every 402 accepts USDC on Base and on Solana, with the fee payer a Solana payer needs; the manifest says the same", async () => {
    const required = await challenge(sql);
    expect(required.accepts.map((a) => [a.network, a.asset, a.payTo, a.amount])).toEqual([
      ["eip155:84532", USDC, PAY_TO, "100000"],
      [SOLANA_MAINNET, SOLANA_USDC, solPayTo.address, "100000"],
    ]);
    expect(required.accepts[1]!.extra?.feePayer).toBe((await solanaKeys.feePayer()).address);
    const manifest = (await (await send(`${BASE}/.well-known/x402.json`)).json()) as { items: { resource: string; accepts: unknown[] }[] };
    const listed = manifest.items.find((item) => item.resource === `${BASE}/api/timeseries`)!;
    expect(listed.accepts).toEqual(required.accepts);
  });

  test("on devnet, the 402 asks for devnet's USDC mint on devnet", async () => {
    const { pay_to: _base, ...solanaOnly } = rails.settings;
    const config = testConfig({ ...solanaOnly, data_dir: dir, solana_network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" });
    const gate = new PaymentGate(config, PriceList.forConfig(OPERATIONS, config), services.state, silentLogger);
    const op = OPERATIONS.find((o) => o.name === "timeseries")!;
    const asked = await gate.begin(op, { resourceUrl: `${BASE}/api/timeseries`, input: VALID_INPUT }, "devnet");
    gate.close();
    expect(asked.type).toBe("payment-required");
    expect((asked as PaymentRequiredOutcome).paymentRequired.accepts.map((a) => [a.network, a.asset, a.payTo])).toEqual([
      ["solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", solPayTo.address],
    ]);
  });

  test("the official client pays from Solana: the transfer lands in the VM, the ledger records it, a replay is refused", async () => {
    const before = { payer: solana.usdcOf(solPayer.address), payTo: solana.usdcOf(solPayTo.address), landed: solana.landed() };
    const { fetcher } = recording(solanaClient(solPayer));
    const paid = await fetcher(`${BASE}${sql.path}`, init(sql));
    expect(paid.status).toBe(200);
    expect(((await paid.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
    const settlement = decodePaymentResponseHeader(paid.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, network: SOLANA_MAINNET, payer: solPayer.address });
    expect(solana.usdcOf(solPayer.address)).toBe(before.payer - 100_000n);
    expect(solana.usdcOf(solPayTo.address)).toBe(before.payTo + 100_000n);
    expect(solana.landed()).toBe(before.landed + 1);
    const row = await services.state.get<{ state: string; payer: string; tx_hash: string }>("SELECT state, payer, tx_hash FROM payments WHERE network = ? ORDER BY created_at DESC LIMIT 1", [SOLANA_MAINNET]);
    expect(row).toEqual({ state: "settled", payer: solPayer.address, tx_hash: settlement.transaction });

    // The same signed transaction again: refused by the ledger, nothing moves.
    const payload = await new x402HTTPClient(solanaClient(solPayer)).createPaymentPayload(await challenge(sql));
    const signature = encodePaymentSignatureHeader(payload);
    expect((await send(`${BASE}${sql.path}`, init(sql, { "payment-signature": signature }))).status).toBe(200);
    const replay = await send(`${BASE}${sql.path}`, init(sql, { "payment-signature": signature }));
    expect(replay.status).toBe(402);
    expect(((await replay.json()) as PaymentRequired).error).toContain("already used");
    expect(solana.usdcOf(solPayTo.address)).toBe(before.payTo + 200_000n);
  });

  test("a payment identifier on Solana: the retry gets the same answer and is charged once", async () => {
    const before = solana.usdcOf(solPayTo.address);
    const withId = async (signer: KeyPairSigner) => {
      const payload = await new x402HTTPClient(solanaClient(signer)).createPaymentPayload(await challenge(sql));
      payload.extensions = appendPaymentIdentifierToExtensions({ ...(payload.extensions ?? {}), [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) }, "sol-retry-0000000000000001");
      return send(`${BASE}${sql.path}`, init(sql, { "payment-signature": encodePaymentSignatureHeader(payload) }));
    };
    const first = await withId(solPayer);
    const retry = await withId(solPayer);
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(await retry.json()).toEqual(await first.json());
    expect(retry.headers.get("payment-response")).toBe(first.headers.get("payment-response"));
    expect(solana.usdcOf(solPayTo.address)).toBe(before + 100_000n);
    // Another wallet's valid payment under the identifier does not get the answer.
    const theirs = await withId(solStranger);
    expect(theirs.status).toBe(400);
    expect(solana.usdcOf(solPayTo.address)).toBe(before + 100_000n);
  });

  test("@x402/fetch naming its payment: an answer lost on the way is fetched again under the same identifier, charged once, on either chain", async () => {
    /** A client extension naming every payment `id` (appended to the payment-identifier the 402 declares). */
    const naming = (id: string) => ({
      key: PAYMENT_IDENTIFIER,
      enrichPaymentPayload: async (payload: PaymentPayload, required: PaymentRequired) => ({
        ...payload,
        extensions: appendPaymentIdentifierToExtensions({ ...(payload.extensions ?? {}), [PAYMENT_IDENTIFIER]: required.extensions?.[PAYMENT_IDENTIFIER] }, id),
      }),
    });
    const chains = [
      { name: "Base", client: () => evmClient(), paidTo: async () => chain.balanceOf(PAY_TO) },
      { name: "Solana", client: () => solanaClient(solPayer), paidTo: async () => solana.usdcOf(solPayTo.address) },
    ];
    for (const { name, client, paidTo } of chains) {
      const id = `lost-answer-${name}-${crypto.randomUUID()}`;
      const before = await paidTo();
      // The paid answer is lost on the way back (the connection drops after the server answered).
      let drop = true;
      const flaky = wrapFetchWithPayment((async (input: Request | string, options?: RequestInit) => {
        const request = new Request(input as string, options);
        const response = await app.handle(request);
        if (request.headers.has("payment-signature") && drop) {
          drop = false;
          throw new TypeError("connection reset");
        }
        return response;
      }) as typeof fetch, client().registerExtension(naming(id)));
      await expect(flaky(`${BASE}${sql.path}`, init(sql))).rejects.toThrow("connection reset");
      expect(await paidTo()).toBe(before + 100_000n);
      // The retry signs a new payment under the same identifier: the kept answer, nothing more charged.
      const retried = await flaky(`${BASE}${sql.path}`, init(sql));
      expect(retried.status).toBe(200);
      expect(decodePaymentResponseHeader(retried.headers.get("payment-response")!).success).toBe(true);
      expect(((await retried.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
      expect(await paidTo()).toBe(before + 100_000n);
    }
  });

  test("a Solana transfer sent but not confirmed: 504 settlement_unknown with its transaction (never a 402), then reconciled from the chain", async () => {
    const before = solana.usdcOf(solPayTo.address);
    solana.failStatuses(true);
    let response: Response;
    try {
      const payload = await new x402HTTPClient(solanaClient(solPayer)).createPaymentPayload(await challenge(sql));
      response = await send(`${BASE}${sql.path}`, init(sql, { "payment-signature": encodePaymentSignatureHeader(payload) }));
    } finally {
      solana.failStatuses(false);
    }
    expect(response.status).toBe(504);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("settlement_unknown");
    // The transfer did land: the payer paid, so it must not be asked again.
    expect(solana.usdcOf(solPayTo.address)).toBe(before + 100_000n);
    const unknown = await services.state.get<{ payment_key: string; tx_hash: string }>("SELECT payment_key, tx_hash FROM payments WHERE state = 'unknown' AND network = ?", [SOLANA_MAINNET]);
    expect(unknown?.tx_hash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    // One whose transaction never landed, gone unknown ten minutes ago: its blockhash has expired.
    const stale = new Date(Date.now() - 600_000).toISOString().slice(0, 19) + "Z";
    await services.state.run(
      `INSERT INTO payments (payment_key, state, operation, amount, asset, network, pay_to, tx_hash, created_at, updated_at)
       VALUES ('never-landed', 'unknown', 'timeseries', '100000', ?, ?, ?, ?, ?, ?)`,
      [SOLANA_USDC, SOLANA_MAINNET, solPayTo.address, "5".repeat(87), stale, stale],
    );
    const gate = new PaymentGate(services.config, PriceList.forConfig(OPERATIONS, services.config), services.state, silentLogger);
    expect(await gate.reconcile()).toBe(2);
    gate.close();
    const states = await services.state.all<{ payment_key: string; state: string }>("SELECT payment_key, state FROM payments WHERE payment_key IN (?, 'never-landed') ORDER BY payment_key", [unknown!.payment_key]);
    expect(Object.fromEntries(states.map((r) => [r.payment_key, r.state]))).toEqual({ [unknown!.payment_key]: "settled", "never-landed": "failed" });
  });

  test("bad Solana payments get a 402 naming what is wrong, and nothing moves", async () => {
    const before = { payer: solana.usdcOf(solPayer.address), landed: solana.landed() };
    const refusedWith = async (alter: (required: PaymentRequired) => PaymentRequired) => {
      const required = alter(await challenge(sql));
      // Spend controls off: the client signs whatever it is given, as a careless or hostile one may.
      const payload = await new x402HTTPClient(solanaClient(solPayer).setSpendControls(false)).createPaymentPayload(required);
      const response = await send(`${BASE}${sql.path}`, init(sql, { "payment-signature": encodePaymentSignatureHeader(payload) }));
      expect(response.status).toBe(402);
      return ((await response.json()) as PaymentRequired).error!;
    };
    const solanaOnly = (required: PaymentRequired, change: Record<string, unknown>) => ({ ...required, accepts: required.accepts.filter((a) => a.network === SOLANA_MAINNET).map((a) => ({ ...a, ...change })) });
    expect(await refusedWith((r) => solanaOnly(r, { amount: "1" }))).toContain("amount is 1, expected 100000");
    expect(await refusedWith((r) => solanaOnly(r, { payTo: solStranger.address }))).toContain(`payTo is ${solStranger.address}`);
    expect(await refusedWith((r) => solanaOnly(r, { network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" }))).toContain(
      "the payment is on solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1; this route accepts payments on eip155:84532, solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    );
    expect(solana.usdcOf(solPayer.address)).toBe(before.payer);
    expect(solana.landed()).toBe(before.landed);
  });
});

describe("sign-in-with-x: a wallet that paid signs in instead of paying again", () => {
  test("every 402 declares a fresh message bound to base_url, for the chains of its accepts", async () => {
    const [a, b] = [await challenge(search), await challenge(search)];
    const declared = a.extensions![SIGN_IN_WITH_X] as SIWxExtension;
    expect(declared.info).toMatchObject({ domain: "127.0.0.1:8402", uri: `${BASE}/api/search`, version: "1" });
    expect(declared.supportedChains.map((c) => [c.chainId, c.type])).toEqual([
      ["eip155:84532", "eip191"],
      [SOLANA_MAINNET, "ed25519"],
    ]);
    expect((b.extensions![SIGN_IN_WITH_X] as SIWxExtension).info.nonce).not.toBe(declared.info.nonce);
  });

  test("EVM (SIWE): the first request pays, the next ones sign in and are not charged; another wallet still pays", async () => {
    const before = await chain.balanceOf(PAY_TO);
    const { fetcher, seen } = recording(evmClient(evmPayer, true));
    const first = await fetcher(`${BASE}${search.path}`, init(search));
    expect(first.status).toBe(200);
    expect(first.headers.get("payment-response")).not.toBeNull();
    // The client tried to sign in first (refused: no payment yet), then paid.
    expect(seen.map((s) => [s.status, s.headers.has(SIGN_IN_WITH_X), s.headers.has("payment-signature")])).toEqual([
      [402, false, false],
      [402, true, false],
      [200, false, true],
    ]);
    expect(await chain.balanceOf(PAY_TO)).toBe(before + 100_000n);

    seen.length = 0;
    for (let i = 0; i < 2; i++) {
      const again = await fetcher(`${BASE}${search.path}`, init(search));
      expect(again.status).toBe(200);
      expect(again.headers.get("payment-response")).toBeNull();
      expect(((await again.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    }
    expect(seen.map((s) => [s.status, s.headers.has(SIGN_IN_WITH_X), s.headers.has("payment-signature")])).toEqual([
      [402, false, false],
      [200, true, false],
      [402, false, false],
      [200, true, false],
    ]);
    expect(await chain.balanceOf(PAY_TO)).toBe(before + 100_000n);

    // Signing in covers the resource paid for, not another one.
    const other = recording(evmClient(evmPayer, true));
    const sparql = requestFor("sparql");
    expect((await other.fetcher(`${BASE}${sparql.path}`, init(sparql))).status).toBe(200);
    expect(other.seen.at(-1)!.headers.has("payment-signature")).toBe(true);
    // A wallet that never paid signs in validly, is refused, and pays.
    await chain.mint(evmStranger.address, 1_000_000n);
    const paidTo = await chain.balanceOf(PAY_TO);
    const stranger = recording(evmClient(evmStranger, true));
    const strangerAnswer = await stranger.fetcher(`${BASE}${search.path}`, init(search));
    expect(strangerAnswer.status).toBe(200);
    expect(stranger.seen.map((s) => [s.status, s.headers.has(SIGN_IN_WITH_X), s.headers.has("payment-signature")])).toEqual([
      [402, false, false],
      [402, true, false],
      [200, false, true],
    ]);
    expect(await chain.balanceOf(evmStranger.address)).toBe(1_000_000n - 100_000n);
    expect(await chain.balanceOf(PAY_TO)).toBe(paidTo + 100_000n);
  });

  test("Solana (SIWS): the wallet that paid on Solana signs in with its key", async () => {
    const entity = requestFor("explore");
    const { fetcher, seen } = recording(solanaClient(solPayer, true));
    expect((await fetcher(`${BASE}${entity.path}`, init(entity))).status).toBe(200);
    const afterPaying = solana.usdcOf(solPayTo.address);
    seen.length = 0;
    const again = await fetcher(`${BASE}${entity.path}`, init(entity));
    expect(again.status).toBe(200);
    expect(seen.map((s) => [s.status, s.headers.has(SIGN_IN_WITH_X)])).toEqual([
      [402, false],
      [200, true],
    ]);
    expect(solana.usdcOf(solPayTo.address)).toBe(afterPaying);
  });

  test("refused with a 402 saying why: a message for the host a request names (not base_url), replayed, signed by another wallet, for another path or chain, malformed", async () => {
    // The payer has paid for search above; sign messages by hand for each case.
    const required = await challenge(search);
    const declared = required.extensions![SIGN_IN_WITH_X] as SIWxExtension;
    const signed = (info: SIWxExtension["info"], { url = `${BASE}${search.path}`, wallet = evmPayer, chainId = "eip155:84532" } = {}) =>
      createSIWxPayload({ ...info, chainId, type: "eip191" }, wallet, url);
    const attempt = async (header: string, url = `${BASE}${search.path}`) => {
      const response = await send(url, init(search, { [SIGN_IN_WITH_X]: header }));
      return { status: response.status, error: response.status === 402 ? ((await response.json()) as PaymentRequired).error : undefined };
    };
    // Sent to http://evil.example (the Host a proxy would pass on), signed for it: checked against base_url, refused.
    const evilUrl = `http://evil.example${search.path}`;
    const evil = await signed({ ...declared.info, domain: "evil.example", uri: "http://evil.example/api/search", resources: [] }, { url: evilUrl });
    const spoofed = await attempt(encodeSIWxHeader(evil), evilUrl);
    expect(spoofed.status).toBe(402);
    expect(spoofed.error).toContain('Domain mismatch: expected "127.0.0.1:8402", got "evil.example"');

    const good = encodeSIWxHeader(await signed(declared.info));
    // Signed in with an input that would be refused: the refusal, as when paying (no offer), and the message is not used up by it.
    const badInput = await send(`${BASE}${search.path}`, init({ ...search, body: { query: 5 } }, { [SIGN_IN_WITH_X]: good }));
    expect(badInput.status).toBe(400);
    expect(badInput.headers.get("payment-required")).toBeNull();
    expect((await attempt(good)).status).toBe(200);
    const replayed = await attempt(good);
    expect(replayed.status).toBe(402);
    expect(replayed.error).toContain("used already");

    const fresh = (await challenge(search)).extensions![SIGN_IN_WITH_X] as SIWxExtension;
    // Signed by a wallet that never paid, claiming to be the one that did.
    const forged = { ...(await signed(fresh.info, { wallet: evmStranger })), address: evmPayer.address };
    expect((await attempt(encodeSIWxHeader(forged))).error).toContain("sign-in-with-x not accepted (Signature verification failed)");
    const otherPath = await signed({ ...fresh.info, uri: `${BASE}/api/sparql` });
    expect((await attempt(encodeSIWxHeader(otherPath))).error).toContain("not to /api/search");
    const otherChain = await signed(fresh.info, { chainId: "eip155:1" });
    expect((await attempt(encodeSIWxHeader(otherChain))).error).toContain("signed for eip155:1; this server accepts eip155:84532, solana:");
    // Fields SIWE does not allow (the library throws on them): a 402 saying so, never a 500.
    for (const odd of [{ nonce: "a-b" }, { address: "0xnothex" }, { version: "2" }, { statement: "two\nlines" }]) {
      const outcome = await attempt(encodeSIWxHeader({ ...(await signed(fresh.info)), ...odd }));
      expect(outcome.status).toBe(402);
      expect(outcome.error).toContain("sign-in-with-x not accepted (");
    }
    expect((await attempt("not base64 at all")).error).toContain("sign-in-with-x not accepted (Invalid SIWX header");
  });

  test("access lasts the configured window; sign-in needs base_url", async () => {
    // Paid two hours ago with a one-hour window: signing in no longer grants access.
    const paidUntil = new Date(Date.now() - 7200_000 + 3600_000).toISOString().slice(0, 19) + "Z";
    await services.state.run("INSERT INTO siwx_access (resource, payer, paid_until) VALUES (?, ?, ?)", ["/api/changes", evmPayer.address.toLowerCase(), paidUntil]);
    const changes = requestFor("changes");
    const declared = (await challenge(changes)).extensions![SIGN_IN_WITH_X] as SIWxExtension;
    const header = encodeSIWxHeader(await createSIWxPayload({ ...declared.info, chainId: "eip155:84532", type: "eip191" }, evmPayer, `${BASE}${changes.path}`));
    const late = await send(`${BASE}${changes.path}`, init(changes, { [SIGN_IN_WITH_X]: header }));
    expect(late.status).toBe(402);
    expect(((await late.json()) as PaymentRequired).error).toContain("has not paid for /api/changes within the last 3600 s");

    // Checked with the configuration, before anything starts (config/settings-payments.ts).
    expect(() => testConfig({ data_dir: dir, pay_to: PAY_TO, network: "eip155:84532", rpc_url: chain.rpcUrl, settlement_key: SECOND_SETTLER_KEY, siwx_access_seconds: 60 })).toThrow(
      "setting siwx_access_seconds (from --siwx-access-seconds) = 60 needs base_url (unset)",
    );
  });
});
