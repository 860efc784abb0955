/**
 * @module payments/client-cap
 * x402 clients refuse, by default, to pay more than 1 USD in one payment: the official client
 * (@x402/core's x402Client, which @x402/fetch wraps) caps every payment in an asset it knows, USDC
 * included, at DEFAULT_MAX_AMOUNT_PER_PAYMENT ("$1") unless its buyer raises
 * `spendControls.maxAmountPerPayment`. An agent with default settings cannot buy a route priced
 * above it (entity insights 1.50, the batch 7.50): its client throws before it pays, saying only
 * that "all payment requirements were rejected by spendControls.maxAmountPerPayment"
 * (test/payments/client-cap.test.ts shows it). So the offer of such a route says the price, the
 * cap and how a buyer raises it: in the 402's `error`, the MCP tool's description and OpenAPI.
 * The cap is read from the official package, so the sentence follows it if it changes.
 */
import { DEFAULT_MAX_AMOUNT_PER_PAYMENT } from "@x402/core/client";
import { parseMoney } from "@x402/core/utils";

/** The official client's default cap per payment, in USD. */
export const CLIENT_DEFAULT_CAP_USD = Number(parseMoney(DEFAULT_MAX_AMOUNT_PER_PAYMENT).amount);

/** "1.50 USD per request". */
function priceSentence(priceUsd: number): string {
  return `${priceUsd.toFixed(2)} USD per request`;
}

/**
 * For a price over the default cap: that clients refuse it unless raised, and how to raise it
 * (the official client's option, on each of its two entry points). Undefined at or under the cap.
 */
export function capNote(priceUsd: number): string | undefined {
  if (priceUsd <= CLIENT_DEFAULT_CAP_USD) return undefined;
  const raised = `"$${priceUsd.toFixed(2)}"`;
  return (
    `x402 clients pay at most ${CLIENT_DEFAULT_CAP_USD} USD per payment unless told otherwise, so one with default settings refuses this price: ` +
    `raise the official client's spendControls.maxAmountPerPayment (default "${String(DEFAULT_MAX_AMOUNT_PER_PAYMENT)}") to at least ${raised}, ` +
    `e.g. new x402Client().setSpendControls({ maxAmountPerPayment: ${raised} }) or wrapFetchWithPaymentFromConfig(fetch, { schemes, spendControls: { maxAmountPerPayment: ${raised} } })`
  );
}

/** The reason of an unpaid request's 402: that payment is required, the price, and the cap when the price is over it. */
export function paymentRequiredReason(priceUsd: number): string {
  const note = capNote(priceUsd);
  return `payment required: ${priceSentence(priceUsd)}${note ? `; ${note}` : ""}`;
}
