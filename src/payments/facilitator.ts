/**
 * @module payments/facilitator
 * Who verifies and settles payments: a remote facilitator (HTTP, optional Authorization header) or
 * the in-process one (x402Facilitator with the exact scheme of each rail: on Base a viem wallet on
 * rpc_url, on Solana a fee payer on solana_rpc_url (facilitator-solana.ts); keys read from a file or
 * the environment and never logged). The configured RPCs also give chain readers, used to reconcile
 * settlements whose outcome was unknown (payments/reconcile.ts).
 */
import { readFileSync } from "node:fs";
import { x402Facilitator } from "@x402/core/facilitator";
import { type FacilitatorClient, HTTPFacilitatorClient } from "@x402/core/server";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { http, type PublicClient, createPublicClient, createWalletClient, publicActions } from "viem";
import { createNonceManager, privateKeyToAccount } from "viem/accounts";
import { getTransactionCount } from "viem/actions";
import { base, baseSepolia } from "viem/chains";
import { type Rpc, type SolanaRpcApi, createSolanaRpc } from "@solana/kit";
import type { Config } from "../config/config.ts";
import type { PaymentMode } from "../config/settings-payments.ts";
import { solanaSettlement } from "./facilitator-solana.ts";
import { hostOf, railsOf } from "./rails.ts";
import { RECEIPT_TIMEOUT_MS, waitForReceipt } from "./receipt.ts";

/** Where payments are verified and settled, for logs and /readyz (hosts and addresses, never a key). */
export interface FacilitationDescription {
  networks: string[];
  /** A remote facilitator's URL. */
  facilitator?: string;
  /** In-process: the chain RPC's host and the settling wallet's address; Solana's RPC host. */
  rpc?: string;
  settler?: string;
  solana_rpc?: string;
}

export interface Facilitation {
  mode: Exclude<PaymentMode, "off">;
  client: FacilitatorClient;
  /** Reads the chain (in-process mode, or whenever an RPC URL is configured). */
  chain?: PublicClient;
  /** Reads Solana, whenever solana_rpc_url is configured: reconciles Solana settlements. */
  solana?: Rpc<SolanaRpcApi>;
  /** For logs and /readyz: never the key. */
  describe: FacilitationDescription;
  /** Resolves once the facilitator can work (its keys imported); rejects saying why not. */
  ready: Promise<unknown>;
}

const CHAINS = { "eip155:8453": base, "eip155:84532": baseSepolia } as const;

export function createFacilitation(config: Config): Facilitation {
  const rails = railsOf(config);
  const networks = rails.map((rail) => rail.network);
  const evm = rails.some((rail) => rail.family === "evm");
  const reader = evm && config.rpc_url ? (createPublicClient({ chain: CHAINS[config.network], transport: http(config.rpc_url) }) as PublicClient) : undefined;
  const solanaReader = config.pay_to_solana && config.solana_rpc_url ? createSolanaRpc(config.solana_rpc_url) : undefined;
  if (config.facilitator_url) {
    const auth = config.facilitator_auth;
    const client = new HTTPFacilitatorClient({
      url: config.facilitator_url,
      ...(auth ? { createAuthHeaders: async () => ({ verify: { Authorization: auth }, settle: { Authorization: auth }, supported: { Authorization: auth } }) } : {}),
    });
    return { mode: "remote", client, chain: reader, solana: solanaReader, describe: { facilitator: config.facilitator_url, networks }, ready: Promise.resolve() };
  }
  const facilitator = new x402Facilitator();
  let describe: FacilitationDescription = { networks };
  if (evm) {
    // loadConfig's payment rules make sure of it (config/settings-payments.ts); a configuration made in code may not.
    if (!config.rpc_url) throw new Error("payments on Base settled in-process need rpc_url");
    const settler = evmSigner(config, config.rpc_url);
    registerExactEvmScheme(facilitator, { signer: settler.signer, networks: config.network });
    describe = { ...describe, rpc: hostOf(config.rpc_url), settler: settler.address };
  }
  // The Solana fee payer's key is imported asynchronously (WebCrypto): the first call waits for it.
  const solana = rails.find((rail) => rail.family === "svm");
  let ready: Promise<unknown> = Promise.resolve();
  if (solana) {
    const settlement = solanaSettlement(config, solana.network);
    ready = settlement.register(facilitator);
    ready.catch(() => undefined); // a bad keypair is reported by the payments' start, which awaits `ready`
    describe = { ...describe, ...settlement.describe };
  }
  const registered = async () => {
    await ready;
    return facilitator;
  };
  const client: FacilitatorClient = {
    verify: async (payload, requirements) => (await registered()).verify(payload, requirements),
    settle: async (payload, requirements) => (await registered()).settle(payload, requirements),
    // The facilitator lists networks as plain strings; they are the CAIP-2 ids it was registered with.
    getSupported: async () => (await registered()).getSupported() as Awaited<ReturnType<FacilitatorClient["getSupported"]>>,
  };
  return { mode: "in-process", client, chain: reader, solana: solanaReader, describe, ready };
}

/** The settling wallet on Base: pays the gas of each EIP-3009 transfer it submits. */
function evmSigner(config: Config, rpcUrl: string): { address: string; signer: ReturnType<typeof toFacilitatorEvmSigner> } {
  // A nonce manager of this facilitator's own: viem's shared one keeps each address's last nonce
  // for the whole process, so a second facilitator on another chain (a restarted local chain, a
  // test after another) would send from a nonce that chain never reached, and nothing would mine.
  const nonceManager = createNonceManager({ source: { get: ({ address, client }) => getTransactionCount(client, { address, blockTag: "pending" }), set: () => {} } });
  const account = privateKeyToAccount(settlementKey(config), { nonceManager });
  const wallet = createWalletClient({ account, chain: CHAINS[config.network], transport: http(rpcUrl) }).extend(publicActions);
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: (args) => wallet.readContract(args as never),
    verifyTypedData: (args) => wallet.verifyTypedData(args as never),
    writeContract: (args) => wallet.writeContract(args as never),
    sendTransaction: (args) => wallet.sendTransaction(args as never),
    waitForTransactionReceipt: (args) => waitForReceipt(wallet, args.hash, args.timeout ?? RECEIPT_TIMEOUT_MS),
    getCode: (args) => wallet.getCode(args),
  });
  return { address: account.address, signer };
}

function settlementKey(config: Config): `0x${string}` {
  let raw = config.settlement_key;
  if (!raw && config.settlement_key_file) {
    try {
      raw = readFileSync(config.settlement_key_file, "utf8").trim();
    } catch (error) {
      throw new Error(`settlement_key_file ${config.settlement_key_file} cannot be read: ${(error as Error).message}`);
    }
  }
  if (!raw) throw new Error("the in-process facilitator needs the settling wallet's key: set settlement_key_file (or CKG_SETTLEMENT_KEY)");
  const hex = raw.startsWith("0x") ? raw : `0x${raw}`;
  if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) throw new Error("the settlement key must be a 32-byte hex private key");
  return hex as `0x${string}`;
}
