/**
 * @module payments/payment-required
 * The 402 answer: the x402 PaymentRequired object, encoded once for the PAYMENT-REQUIRED header
 * and once as the JSON body (HTTP), or handed as is to an MCP error result.
 */
import { encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";

/** A 402: the x402 PaymentRequired object goes in the header and as the body. */
export class PaymentRequiredError extends Error {
  private headerText: string | undefined;

  constructor(readonly paymentRequired: PaymentRequired) {
    super(paymentRequired.error ?? "payment required");
    this.name = "PaymentRequiredError";
  }

  private text: string | undefined;

  get header(): string {
    this.headerText ??= encodePaymentRequiredHeader(this.paymentRequired);
    return this.headerText;
  }

  /** Encodes header and body now, for a challenge kept and sent many times. */
  encoded(): this {
    void this.header;
    void this.body;
    return this;
  }

  /** The same object as the JSON body. */
  get body(): string {
    this.text ??= JSON.stringify(this.paymentRequired);
    return this.text;
  }
}
