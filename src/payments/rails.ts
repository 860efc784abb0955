/**
 * @module payments/rails
 * Where a paid route may be paid: USDC on Base (`pay_to`, `network`) and USDC on Solana
 * (`pay_to_solana`, `solana_network`), each one `exact` entry of every 402's accepts, Base first.
 * Payments are on while at least one is configured. A wallet is known by its address: EVM
 * addresses are case-insensitive (kept lowercased), Solana's base58 ones are not (kept as they are).
 */
import type { Network } from "@x402/core/types";
import type { Config } from "../config/config.ts";

export interface Rail {
  family: "evm" | "svm";
  network: Network;
  payTo: string;
}

export type RailConfig = Pick<Config, "pay_to" | "network" | "pay_to_solana" | "solana_network">;

export function railsOf(config: RailConfig): Rail[] {
  const rails: Rail[] = [];
  if (config.pay_to) rails.push({ family: "evm", network: config.network, payTo: config.pay_to });
  if (config.pay_to_solana) rails.push({ family: "svm", network: config.solana_network as Network, payTo: config.pay_to_solana });
  return rails;
}

/** One spelling per wallet, for comparing and keeping payers. */
export function walletKey(address: string): string {
  return address.startsWith("0x") ? address.toLowerCase() : address;
}

/** A chain RPC's URL as /readyz may show it: its host (providers put API keys in the path or query). */
export function hostOf(url: string): string {
  return new URL(url).host;
}
