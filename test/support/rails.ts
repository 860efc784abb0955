/**
 * Both payment rails at once, for the tests and the benchmark that pay on Base and on Solana: anvil
 * and the local Solana started, the payer funded with USDC on each, the settling keys written to
 * files, and the settings that point a server at them (its in-process facilitator settles on both).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KeyPairSigner } from "@solana/kit";
import { privateKeyToAccount } from "viem/accounts";
import type { Config } from "../../src/config/config.ts";
import { type LocalChain, PAYER_KEY, PAY_TO, SECOND_SETTLER_KEY, startChain } from "./chain.ts";
import { FEE_PAYER_SEED, type LocalSolana, SOLANA_MAINNET, keygenFile, solanaKeys, startSolana } from "./solana.ts";
import { tempDir } from "./temp-dirs.ts";

export interface TwoRails {
  chain: LocalChain;
  solana: LocalSolana;
  solPayer: KeyPairSigner;
  solPayTo: KeyPairSigner;
  /** Server settings paying to both, settled in-process on both. */
  settings: Partial<Record<keyof Config, string | number | boolean>>;
  stop(): Promise<void>;
}

/**
 * Starts both chains; the EVM payer (PAYER_KEY) and the Solana payer each hold `usdc` (atomic
 * units). `settlerKey` settles on Base: one per test file (chain.ts says why).
 */
export async function startTwoRails(usdc: bigint, settlerKey: `0x${string}` = SECOND_SETTLER_KEY): Promise<TwoRails> {
  const [chain, solana] = await Promise.all([startChain(), startSolana()]);
  const [solPayer, solPayTo, feePayer] = await Promise.all([solanaKeys.payer(), solanaKeys.payTo(), solanaKeys.feePayer()]);
  await chain.mint(privateKeyToAccount(PAYER_KEY).address, usdc);
  await solana.fundUsdc(solPayer.address, usdc);
  const keys = tempDir("ckg-keys-");
  writeFileSync(join(keys, "settler.key"), settlerKey, { mode: 0o600 });
  writeFileSync(join(keys, "fee-payer.json"), keygenFile(FEE_PAYER_SEED, feePayer), { mode: 0o600 });
  return {
    chain,
    solana,
    solPayer,
    solPayTo,
    settings: {
      pay_to: PAY_TO,
      network: "eip155:84532",
      rpc_url: chain.rpcUrl,
      settlement_key_file: join(keys, "settler.key"),
      pay_to_solana: solPayTo.address,
      solana_network: SOLANA_MAINNET,
      solana_rpc_url: solana.rpcUrl,
      solana_settlement_key_file: join(keys, "fee-payer.json"),
    },
    stop: async () => {
      await Promise.all([chain.stop(), solana.stop()]);
    },
  };
}
