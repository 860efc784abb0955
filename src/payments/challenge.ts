/**
 * @module payments/challenge
 * The gate's 402s: the x402 PaymentRequired object of one request (made by @x402/core's resource
 * server), with the reason in `error` (for a request that sent no payment: the price, and the
 * default cap of x402 clients when the price is over it: payments/client-cap), the resource
 * described (service name, tags, the bazaar extension: made only when a 402 is), the
 * payment-identifier declaration, a fresh message to sign when sign-in is on, and the verdict on
 * the request's input (payments/input-verdict.ts). A challenge is a value (PaymentRequiredOutcome),
 * which each transport renders: the PAYMENT-REQUIRED header and body over HTTP, an error result over MCP.
 */
import { LRUCache } from "lru-cache";
import type { x402ResourceServer } from "@x402/core/server";
import type { PaymentRequirements, ResourceInfo } from "@x402/core/types";
import { paymentRequiredReason } from "./client-cap.ts";
import { PAYMENT_IDENTIFIER_DECLARATION } from "./idempotency.ts";
import { type InputVerdict, inputExtension, reasonWith, verdictKey } from "./input-verdict.ts";
import type { Challenge, PaidOperation, PaymentOffer, PaymentRequiredOutcome } from "./offer.ts";
import type { PriceList } from "./prices.ts";
import type { SignInAccess } from "./sign-in.ts";

/** A transport's offer once its input is judged: every 402 says what the input would get. */
export type JudgedOffer = PaymentOffer & { input: InputVerdict };

export class Challenges {
  /**
   * The plain challenge (no payment sent) by route, URL and verdict: the 402 path is the hot one
   * under load (and a crawler's). The same object each time, so a transport may keep its encoding.
   */
  private readonly kept = new LRUCache<string, PaymentRequiredOutcome>({ max: 2000 });

  constructor(
    private readonly server: x402ResourceServer,
    private readonly signIn: SignInAccess | undefined,
    private readonly prices: PriceList,
  ) {}

  /** The 402 maker of one request; `signInRefused`: why its signed message was not taken, said before any other reason. */
  of(op: PaidOperation, offer: JudgedOffer, accepts: PaymentRequirements[], signInRefused?: string): Challenge {
    let described: { resource: ResourceInfo; extensions?: Record<string, unknown> } | undefined;
    const describe = () => {
      const { extensions, ...meta } = offer.describe?.() ?? {};
      return (described ??= { resource: { url: offer.resourceUrl, description: op.summary, mimeType: "application/json", ...meta }, extensions });
    };
    return async (reason) => {
      const { resource, extensions } = describe();
      const signIn = this.signIn ? await this.signIn.declare(offer.resourceUrl, accepts) : {};
      const why = reasonWith(signInRefused ? `${signInRefused}; ${reason}` : reason, offer.input);
      const all = { ...PAYMENT_IDENTIFIER_DECLARATION, ...extensions, ...signIn, ...inputExtension(offer.input) };
      return { type: "payment-required", paymentRequired: await this.server.createPaymentRequiredResponse(accepts, resource, why, all) };
    };
  }

  /**
   * The 402 of a request that sent no payment. Kept and sent again by route, URL and verdict,
   * unless sign-in is on: each 402 then carries a new message to sign.
   */
  async unpaid(op: PaidOperation, offer: JudgedOffer, accepts: PaymentRequirements[], signInRefused?: string): Promise<PaymentRequiredOutcome> {
    const challenge = this.of(op, offer, accepts, signInRefused);
    const reason = paymentRequiredReason(this.prices.of(op.name));
    if (this.signIn) return challenge(reason);
    const key = `${op.name} ${offer.resourceUrl} ${verdictKey(offer.input)}`;
    let plain = this.kept.get(key);
    if (!plain) {
      plain = await challenge(reason);
      this.kept.set(key, plain);
    }
    return plain;
  }
}
