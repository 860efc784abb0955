/**
 * @module payments/payment-required
 * The 402 answer: the x402 PaymentRequired object, encoded once for the PAYMENT-REQUIRED header
 * and once as the JSON body (HTTP), or handed as is to an MCP error result.
 */
import { encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";

/** A 402: the x402 PaymentRequired object goes in the header and as the body. */
export class PaymentRequiredError extends Error {
  private encoded: string | undefined;

  constructor(readonly paymentRequired: PaymentRequired) {
    super(paymentRequired.error ?? "payment required");
    this.name = "PaymentRequiredError";
  }

  private text: string | undefined;

  get header(): string {
    this.encoded ??= encodePaymentRequiredHeader(this.paymentRequired);
    return this.encoded;
  }

  /** The same object as the JSON body. */
  get body(): string {
    this.text ??= JSON.stringify(this.paymentRequired);
    return this.text;
  }
}
