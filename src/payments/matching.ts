/**
 * @module payments/matching
 * How a payment meets a route's requirements: which field differs when it does not (said in words
 * in the 402), and the key one payment is known by in the ledger (an EVM authorization by its
 * signer and nonce; a Solana payment by its signed transaction).
 */
import { createHash } from "node:crypto";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { type ExactSvmPayloadV2, decodeTransactionFromPayload, transactionMessageHash } from "@x402/svm";

/** Why the client's accepted requirements match none of ours, in words: the field that differs from ours on its network. */
export function mismatch(accepts: readonly PaymentRequirements[], theirs: PaymentRequirements | undefined): string {
  if (!theirs) return "the payment does not say which requirements it accepts";
  const ours = accepts.find((a) => a.network === theirs.network);
  if (!ours) return `the payment is on ${String(theirs.network)}; this route accepts payments on ${accepts.map((a) => a.network).join(", ")}`;
  const fields: (keyof PaymentRequirements)[] = ["scheme", "asset", "payTo", "amount"];
  // EVM addresses compare case-insensitively; Solana's base58 ones do not.
  const same = (f: keyof PaymentRequirements) => String(theirs[f] ?? "") === String(ours[f] ?? "") || (ours.network.startsWith("eip155:") && String(theirs[f] ?? "").toLowerCase() === String(ours[f] ?? "").toLowerCase());
  const differs = fields.filter((f) => !same(f));
  if (differs.length === 0) return "the payment's requirements do not match this route's";
  return `the payment does not match this route: ${differs.map((f) => `${f} is ${String(theirs[f])}, expected ${String(ours[f])}`).join("; ")}`;
}

/**
 * One key per payment: the same signed authorization (Base) or transaction (Solana, by its message's
 * hash, as the facilitator knows it) is the same payment, whatever the header's encoding or fields
 * added around it. Throws when a Solana payment carries no transaction that decodes.
 */
export function paymentKey(requirements: PaymentRequirements, payload: PaymentPayload): string {
  const authorization = (payload.payload as { authorization?: { from?: string; nonce?: string } }).authorization;
  const identity = authorization?.from && authorization.nonce
    ? `${authorization.from.toLowerCase()}|${authorization.nonce.toLowerCase()}`
    : requirements.network.startsWith("solana:")
      ? transactionMessageHash(decodeTransactionFromPayload(payload.payload as ExactSvmPayloadV2))
      : JSON.stringify(payload.payload);
  return createHash("sha256").update(`${requirements.network}|${requirements.asset.toLowerCase()}|${identity}`).digest("hex");
}
