/**
 * @module payments/prices
 * The one price list of a running server, built once at start: each operation's default (spec 5.3,
 * prose column), replaced by `CKG_PRICES` (`sparql=0.05,signals=0.10`), and every price 0 when
 * payments are off (no pay-to address on any rail: nothing is charged, so nothing may be advertised as paid).
 * The gate charges from it; MCP tool descriptions, /openapi.json and /docs show it. Free operations
 * stay free; an override naming an operation that does not exist is an error at start.
 */
import type { Config } from "../config/config.ts";
import { type PaymentSettings, paymentMode } from "./facilitator.ts";

/** What the price list needs of an operation: its name (the price key) and its default price. */
export interface Priced {
  readonly name: string;
  readonly priceUsd: number;
}

export class PriceList {
  private constructor(
    private readonly prices: ReadonlyMap<string, number>,
    /** False when payments are off: every price reads 0. */
    readonly charging: boolean,
  ) {}

  /** The list for this configuration: its overrides, and whether payments are on. */
  static forConfig(operations: readonly Priced[], config: PaymentSettings & Pick<Config, "prices">): PriceList {
    return PriceList.from(operations, config.prices, paymentMode(config) !== "off");
  }

  static from(operations: readonly Priced[], overrides: string | undefined, charging: boolean): PriceList {
    const prices = new Map(operations.map((op) => [op.name, op.priceUsd]));
    for (const pair of overrides ? overrides.split(",") : []) {
      const [name, usd] = pair.split("=").map((s) => s.trim()) as [string, string];
      if (!prices.has(name)) {
        throw new Error(`setting prices names "${name}", which is no operation; known: ${[...prices.keys()].join(", ")}`);
      }
      if (prices.get(name) === 0) throw new Error(`setting prices: ${name} is a free route and stays free`);
      const value = Number(usd);
      if (!(value > 0)) throw new Error(`setting prices: ${name} needs a price above 0 (the route is paid)`);
      prices.set(name, value);
    }
    return new PriceList(prices, charging);
  }

  /** The price in USD an operation is charged now: 0 when it is free or payments are off. */
  of(name: string): number {
    return this.charging ? (this.prices.get(name) ?? 0) : 0;
  }
}

/** "$0.10": the x402 money format for USDC prices. */
export function dollars(usd: number): string {
  return `$${usd.toFixed(6).replace(/0+$/, "").replace(/\.$/, ".00")}`;
}
