/**
 * @module payments/accepts
 * What each paid operation accepts: one `exact` requirement per rail (payments/rails.ts) at the
 * operation's price, built by the resource server (which adds what a facilitator needs, such as
 * Solana's fee payer) once per operation. A rail the facilitator does not settle is said at start,
 * not discovered by a payer.
 */
import type { x402ResourceServer } from "@x402/core/server";
import type { PaymentRequirements } from "@x402/core/types";
import { dollars } from "./prices.ts";
import type { Rail } from "./rails.ts";

/** How long a signed payment may wait for its settlement. */
const MAX_TIMEOUT_SECONDS = 120;

export class Accepts {
  private readonly byOperation = new Map<string, PaymentRequirements[]>();

  constructor(
    private readonly server: x402ResourceServer,
    private readonly rails: readonly Rail[],
  ) {}

  /** After the server has read the facilitator's supported kinds: every rail must be among them. */
  check(): void {
    const missing = this.rails.filter((rail) => !this.server.getSupportedKind(2, rail.network, "exact"));
    if (missing.length > 0) {
      throw new Error(`the facilitator does not settle exact payments on ${missing.map((rail) => rail.network).join(", ")}`);
    }
  }

  /** The accepts of an operation at its price, Base first. */
  async of(operation: string, priceUsd: number): Promise<PaymentRequirements[]> {
    let accepts = this.byOperation.get(operation);
    if (!accepts) {
      const built = await Promise.all(
        this.rails.map((rail) =>
          this.server.buildPaymentRequirements({ scheme: "exact", payTo: rail.payTo, price: dollars(priceUsd), network: rail.network, maxTimeoutSeconds: MAX_TIMEOUT_SECONDS }),
        ),
      );
      accepts = built.flat();
      this.byOperation.set(operation, accepts);
    }
    return accepts;
  }
}
