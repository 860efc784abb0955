/**
 * @module payments/facilitator
 * Who verifies and settles payments: a remote facilitator (HTTP, optional Authorization header) or
 * the in-process one (x402Facilitator with the exact EVM scheme, a viem wallet on the configured
 * RPC, its key read from a file or the environment and never logged). The in-process mode also
 * gives a chain reader, used to reconcile settlements whose outcome was unknown.
 */
import { readFileSync } from "node:fs";
import { x402Facilitator } from "@x402/core/facilitator";
import { type FacilitatorClient, HTTPFacilitatorClient } from "@x402/core/server";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { http, type PublicClient, createPublicClient, createWalletClient, publicActions } from "viem";
import { privateKeyToAccount, nonceManager } from "viem/accounts";
import { base, baseSepolia } from "viem/chains";
import type { Config } from "../config/config.ts";
import { RECEIPT_TIMEOUT_MS, waitForReceipt } from "./receipt.ts";

export type PaymentMode = "off" | "remote" | "in-process";

export interface Facilitation {
  mode: Exclude<PaymentMode, "off">;
  client: FacilitatorClient;
  /** Reads the chain (in-process mode, or whenever an RPC URL is configured). */
  chain?: PublicClient;
  /** For logs and /readyz: never the key. */
  describe: Record<string, unknown>;
}

export function paymentMode(config: Pick<Config, "pay_to" | "facilitator_url">): PaymentMode {
  if (!config.pay_to) return "off";
  return config.facilitator_url ? "remote" : "in-process";
}

const CHAINS = { "eip155:8453": base, "eip155:84532": baseSepolia } as const;

export function createFacilitation(config: Config): Facilitation {
  const chainDef = CHAINS[config.network];
  const reader = config.rpc_url ? (createPublicClient({ chain: chainDef, transport: http(config.rpc_url) }) as PublicClient) : undefined;
  if (config.facilitator_url) {
    const auth = config.facilitator_auth;
    const client = new HTTPFacilitatorClient({
      url: config.facilitator_url,
      ...(auth ? { createAuthHeaders: async () => ({ verify: { Authorization: auth }, settle: { Authorization: auth }, supported: { Authorization: auth } }) } : {}),
    });
    return { mode: "remote", client, chain: reader, describe: { facilitator: config.facilitator_url, network: config.network } };
  }
  if (!config.rpc_url) {
    throw new Error("payments need a facilitator: set facilitator_url (remote), or rpc_url with settlement_key_file (in-process)");
  }
  const key = settlementKey(config);
  const account = privateKeyToAccount(key, { nonceManager });
  const wallet = createWalletClient({ account, chain: chainDef, transport: http(config.rpc_url) }).extend(publicActions);
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: (args) => wallet.readContract(args as never),
    verifyTypedData: (args) => wallet.verifyTypedData(args as never),
    writeContract: (args) => wallet.writeContract(args as never),
    sendTransaction: (args) => wallet.sendTransaction(args as never),
    waitForTransactionReceipt: (args) => waitForReceipt(wallet, args.hash, args.timeout ?? RECEIPT_TIMEOUT_MS),
    getCode: (args) => wallet.getCode(args),
  });
  const facilitator = registerExactEvmScheme(new x402Facilitator(), { signer, networks: config.network });
  const client: FacilitatorClient = {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    // The facilitator lists networks as plain strings; they are the CAIP-2 ids it was registered with.
    getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient["getSupported"]>>,
  };
  return { mode: "in-process", client, chain: reader, describe: { rpc_url: config.rpc_url, settler: account.address, network: config.network } };
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
