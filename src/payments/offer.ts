/**
 * @module payments/offer
 * The gate's boundary types: what a transport (HTTP route, MCP tool) hands it for a paid request,
 * and what it hands back: a value for every outcome, never a thrown 402, for each transport to
 * render in one place (as x402's own HTTP server returns a result for its adapters to render).
 */
import type { PaymentRequired, SettleResponse } from "@x402/core/types";
import { type CkgError, isCkgError } from "../errors.ts";

/** What the gate needs of an operation: its name (the price key) and a line describing the resource. */
export interface PaidOperation {
  readonly name: string;
  readonly summary: string;
}

/** What a transport hands the gate: the resource paid for, and the payment if one came with it. */
export interface PaymentOffer {
  /** The URL of the resource (the request URL over HTTP; `<base>/mcp#<tool>` over MCP). */
  resourceUrl: string;
  /** HTTP: the `payment-signature` header (base64 JSON). */
  header?: string | null;
  /** MCP: `_meta["x402/payment"]`, a PaymentPayload object (or the same base64 string). */
  payload?: unknown;
  /** HTTP: the `sign-in-with-x` header, a signed CAIP-122 message (repeat access for a wallet that paid). */
  signIn?: string | null;
  /** The request carries the signed-in operator's console session (api/console.ts): not charged. */
  operator?: boolean;
  /** What a 402 says of the resource beyond its price: service name, tags, the bazaar extension (made when a 402 is). */
  describe?: () => ResourceDiscovery;
  /** The operation and its input: a retry under a payment identifier must ask the same. */
  requestKey?: string;
}

/** The discovery part of a 402 (operations/discovery.ts builds it from the operations table). */
export interface ResourceDiscovery {
  serviceName: string;
  tags: string[];
  extensions: Record<string, unknown>;
}

/** A paid answer kept under its payment identifier (payments/idempotency.ts), and its settlement. */
export interface KeptAnswer {
  answer: unknown;
  settlement: SettleResponse;
}

/** The request must pay first: the x402 PaymentRequired object, its reason in `error`. */
export interface PaymentRequiredOutcome {
  type: "payment-required";
  paymentRequired: PaymentRequired;
}

/** The request is refused with a documented error (a payment identifier misused, payments not ready, the facilitator down); nothing is charged. */
export interface Refused {
  type: "refused";
  error: CkgError;
}

/** Runs `run`, its documented errors (CkgError, thrown where they arise) as a refusal; anything else is thrown on. */
export async function refusing<T>(run: () => Promise<T>): Promise<T | Refused> {
  try {
    return await run();
  } catch (error) {
    if (isCkgError(error)) return { type: "refused", error };
    throw error;
  }
}

/** What the gate makes of a paid request with a valid input (PaymentGate.begin). */
export type Admission =
  /** Not charged: a free route, payments off, the operator's session, or a wallet signed in to what it paid for. */
  | { type: "free" }
  /** A payment verified and claimed in the ledger: the handler runs, then the payment settles. */
  | { type: "payment-verified"; payment: ClaimedPayment }
  /** A retry under a payment identifier, by the wallet that paid: the answer kept for it, given again, not charged. */
  | { type: "paid-before"; kept: KeptAnswer }
  | PaymentRequiredOutcome
  | Refused;

/** Makes the challenge of one request for a reason (a payment refused, a settlement failed): payments/challenge.ts. */
export type Challenge = (reason: string) => Promise<PaymentRequiredOutcome>;

/** How a claimed payment ends: settled (the answer goes out with its receipt), or the answer withheld. */
export type Settlement =
  | { type: "settled"; settlement: SettleResponse }
  /** The chain refused the transfer: nothing was charged. */
  | PaymentRequiredOutcome
  /** The outcome is unknown (settlement_unknown): recorded, reconciled from the chain later. */
  | Refused;

/** A payment verified and claimed for one request. */
export interface ClaimedPayment {
  /** Settles, keeping `answer` under the payment's identifier. */
  settle(answer: unknown): Promise<Settlement>;
  /** The handler failed: nothing is settled, and the payment may be used again. */
  release(): Promise<void>;
}
