/**
 * @module payments/offer
 * The gate's boundary types: what a transport (HTTP route, MCP tool) hands it for a paid request,
 * and what it hands back when the request may go on.
 */
import type { SettleResponse } from "@x402/core/types";
import type { KeptAnswer } from "./idempotency.ts";

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

export interface PaidRequest {
  /** The answer already paid for under the payment's identifier (a retry): given again, not charged. */
  kept?: KeptAnswer;
  /** Settles, keeping `answer` under the payment's identifier; resolves to the settlement. Throws a 402 or a 504 when it cannot. */
  settle(answer: unknown): Promise<SettleResponse>;
  /** The handler failed: nothing is settled, and the payment may be used again. */
  release(): Promise<void>;
}
