/**
 * @module payments/reconcile
 * A settlement whose outcome never came back (a timeout) is recorded as unknown, never answered
 * with a fresh 402: the payer may have paid. Reconciling reads the chain: on Base the token's
 * EIP-3009 authorization state (used means settled, expired unused means failed); on Solana the
 * status of the transaction the facilitator sent (confirmed means settled, failed or never landed
 * after its blockhash expired means failed). Anything else waits for the next round.
 */
import type { Rpc, Signature, SolanaRpcApi } from "@solana/kit";
import type { PublicClient } from "viem";
import type { Logger } from "../log.ts";
import type { PaymentLedger } from "./ledger.ts";

const AUTHORIZATION_STATE_ABI = [
  {
    type: "function",
    name: "authorizationState",
    stateMutability: "view",
    inputs: [{ name: "authorizer", type: "address" }, { name: "nonce", type: "bytes32" }],
    outputs: [{ type: "bool" }],
  },
] as const;

/** Settles or fails the ledger's unknown payments from the chain; returns how many it resolved. */
export async function reconcileUnknown(ledger: PaymentLedger, chain: PublicClient, log: Logger): Promise<number> {
  let resolved = 0;
  for (const record of await ledger.unknown()) {
    if (!record.network.startsWith("eip155:") || !record.payer || !record.nonce) continue;
    try {
      const used = await chain.readContract({
        address: record.asset as `0x${string}`,
        abi: AUTHORIZATION_STATE_ABI,
        functionName: "authorizationState",
        args: [record.payer as `0x${string}`, record.nonce as `0x${string}`],
      });
      if (used) {
        await ledger.mark(record.payment_key, "settled", { error: "reconciled: the authorization was used on chain" });
        resolved++;
      } else if (record.valid_before !== null && Date.now() / 1000 > record.valid_before) {
        await ledger.mark(record.payment_key, "failed", { error: "reconciled: the authorization expired unused" });
        resolved++;
      }
    } catch (error) {
      log.warn({ payment: record.payment_key, err: (error as Error).message }, "reconciling a payment failed; will retry");
    }
  }
  return resolved;
}

/** A Solana transaction not seen this long after it went unknown never will be: its blockhash (about 60-90 s) has expired. */
const SOLANA_LANDING_MS = 5 * 60_000;

/** Settles or fails the ledger's unknown Solana payments whose transaction was sent; returns how many it resolved. */
export async function reconcileSolana(ledger: PaymentLedger, rpc: Rpc<SolanaRpcApi>, log: Logger, now = Date.now()): Promise<number> {
  let resolved = 0;
  for (const record of await ledger.unknown()) {
    if (!record.network.startsWith("solana:") || !record.tx_hash) continue;
    try {
      const { value } = await rpc.getSignatureStatuses([record.tx_hash as Signature], { searchTransactionHistory: true }).send();
      const status = value[0];
      if (status && (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized")) {
        await ledger.mark(record.payment_key, status.err ? "failed" : "settled", { error: status.err ? `reconciled: the transaction failed on chain (${JSON.stringify(status.err, (_, v) => (typeof v === "bigint" ? v.toString() : v))})` : "reconciled: the transaction landed" });
        resolved++;
      } else if (!status && now - Date.parse(record.updated_at) > SOLANA_LANDING_MS) {
        await ledger.mark(record.payment_key, "failed", { error: "reconciled: the transaction never landed and its blockhash has expired" });
        resolved++;
      }
    } catch (error) {
      log.warn({ payment: record.payment_key, err: (error as Error).message }, "reconciling a payment failed; will retry");
    }
  }
  return resolved;
}
