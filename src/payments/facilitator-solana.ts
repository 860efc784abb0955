/**
 * @module payments/facilitator-solana
 * The in-process facilitator's Solana side: the `exact` SVM scheme with the fee payer's keypair
 * (it co-signs each payer's transfer as fee payer and sends it) on the configured Solana RPC.
 * The keypair comes from a file or the environment, in solana-keygen's format (a JSON array of
 * its 64 bytes) or base58, and is never logged.
 */
import { readFileSync } from "node:fs";
import type { x402Facilitator } from "@x402/core/facilitator";
import type { Network } from "@x402/core/types";
import { createKeyPairSignerFromBytes, getBase58Encoder } from "@solana/kit";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { registerExactSvmScheme } from "@x402/svm/exact/facilitator";
import type { Config } from "../config/config.ts";
import { hostOf } from "./rails.ts";

type SolanaConfig = Pick<Config, "solana_rpc_url" | "solana_settlement_key" | "solana_settlement_key_file">;

/**
 * Checks the settings now (a missing RPC or a key that is not 64 bytes stops the start). Registering
 * imports the key, which is async: a keypair whose halves do not match fails the payments' start
 * then (logged, in /readyz, paid routes 503).
 */
export function solanaSettlement(config: SolanaConfig, network: Network): { describe: { solana_rpc: string }; register(facilitator: x402Facilitator): Promise<void> } {
  if (!config.solana_rpc_url) {
    throw new Error("Solana payments settled in-process need solana_rpc_url (or a remote facilitator_url)");
  }
  const rpcUrl = config.solana_rpc_url;
  const bytes = feePayerKey(config);
  return {
    describe: { solana_rpc: hostOf(rpcUrl) },
    register: async (facilitator) => {
      const signer = await createKeyPairSignerFromBytes(bytes);
      registerExactSvmScheme(facilitator, { signer: toFacilitatorSvmSigner(signer, { defaultRpcUrl: rpcUrl }), networks: network });
    },
  };
}

function feePayerKey(config: SolanaConfig): Uint8Array {
  let raw = config.solana_settlement_key;
  if (!raw && config.solana_settlement_key_file) {
    try {
      raw = readFileSync(config.solana_settlement_key_file, "utf8");
    } catch (error) {
      throw new Error(`solana_settlement_key_file ${config.solana_settlement_key_file} cannot be read: ${(error as Error).message}`);
    }
  }
  if (!raw) throw new Error("Solana payments settled in-process need the fee payer's keypair: set solana_settlement_key_file (or CKG_SOLANA_SETTLEMENT_KEY)");
  const text = raw.trim();
  let bytes: Uint8Array;
  try {
    if (text.startsWith("[")) {
      const numbers = JSON.parse(text) as unknown[];
      if (!numbers.every((n) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 255)) throw new Error("not bytes");
      bytes = Uint8Array.from(numbers as number[]);
    } else {
      bytes = new Uint8Array(getBase58Encoder().encode(text));
    }
  } catch {
    throw new Error("the Solana settlement key must be a JSON array of 64 bytes (solana-keygen) or base58");
  }
  if (bytes.length !== 64) throw new Error(`the Solana settlement key must hold 64 bytes (secret and public key); it holds ${bytes.length}`);
  return bytes;
}
