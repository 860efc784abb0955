/**
 * @module payments/reconcile
 * A settlement whose outcome never came back (a timeout) is recorded as unknown, never answered
 * with a fresh 402: the payer may have paid. Reconciling reads the token's EIP-3009 authorization
 * state on chain: used means settled, expired unused means failed, anything else waits.
 */
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
    if (!record.payer || !record.nonce) continue;
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
