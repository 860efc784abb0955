/**
 * @module payments/matching
 * How a payment meets a route's requirements: which field differs when it does not (said in words
 * in the 402), and the key one authorization is known by in the ledger.
 */
import { createHash } from "node:crypto";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";

/** Which field of the client's accepted requirements differs from ours, in words. */
export function mismatch(ours: PaymentRequirements, theirs: PaymentRequirements | undefined): string {
  if (!theirs) return "the payment does not say which requirements it accepts";
  const fields: (keyof PaymentRequirements)[] = ["scheme", "network", "asset", "payTo", "amount"];
  const differs = fields.filter((f) => String(theirs[f] ?? "").toLowerCase() !== String(ours[f] ?? "").toLowerCase());
  if (differs.length === 0) return "the payment's requirements do not match this route's";
  return `the payment does not match this route: ${differs.map((f) => `${f} is ${String(theirs[f])}, expected ${String(ours[f])}`).join("; ")}`;
}

/** One key per authorization: the same signed authorization is the same payment, whatever the header's encoding. */
export function paymentKey(requirements: PaymentRequirements, payload: PaymentPayload): string {
  const authorization = (payload.payload as { authorization?: { from?: string; nonce?: string } }).authorization;
  const identity = authorization?.from && authorization.nonce
    ? `${authorization.from.toLowerCase()}|${authorization.nonce.toLowerCase()}`
    : JSON.stringify(payload.payload);
  return createHash("sha256").update(`${requirements.network}|${requirements.asset.toLowerCase()}|${identity}`).digest("hex");
}
