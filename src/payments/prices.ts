/**
 * @module payments/prices
 * The one price list of a running server, built once at start: each operation's default
 * (docs/spec.md §5.3, prose column; docs/decisions/0012-prices-and-networks.md), replaced by
 * `CKG_PRICES` (`sparql=0.05,signals=0.10`), and every price 0 when payments are off (no pay-to
 * address on any rail: nothing is charged, so nothing may be advertised as paid).
 * The gate charges from it; MCP tool descriptions, /openapi.json and /docs show it. Free operations
 * stay free; an override naming an operation that does not exist is a configuration error (pricesRule).
 */
import type { Config } from "../config/config.ts";
import type { SettingRule } from "../config/setting.ts";
import { type PaymentSettings, paymentMode } from "../config/settings-payments.ts";

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
    const problems = priceProblems(operations, overrides);
    if (problems.length > 0) throw new Error(`setting prices: ${problems.join("; ")}`);
    const prices = new Map(operations.map((op) => [op.name, op.priceUsd]));
    for (const [name, usd] of pairsOf(overrides)) prices.set(name, Number(usd));
    return new PriceList(prices, charging);
  }

  /** The price in USD an operation is charged now: 0 when it is free or payments are off. */
  of(name: string): number {
    return this.charging ? (this.prices.get(name) ?? 0) : 0;
  }
}

/** `sparql=0.05,signals=0.10` as [name, usd] pairs (the setting's own schema checked the shape). */
function pairsOf(overrides: string | undefined): [string, string][] {
  return (overrides ? overrides.split(",") : []).map((pair) => pair.split("=").map((s) => s.trim()) as [string, string]);
}

/** What is wrong with price overrides: an operation that does not exist, a free route priced, a price of 0. */
function priceProblems(operations: readonly Priced[], overrides: string | undefined): string[] {
  const defaults = new Map(operations.map((op) => [op.name, op.priceUsd]));
  return pairsOf(overrides).flatMap(([name, usd]) => {
    if (!defaults.has(name)) return [`names "${name}", which is no operation; known: ${[...defaults.keys()].join(", ")}`];
    if (defaults.get(name) === 0) return [`${name} is a free route and stays free`];
    return Number(usd) > 0 ? [] : [`${name} needs a price above 0 (the route is paid)`];
  });
}

/** The same, as a rule of the configuration: a server with a bad override stops before it starts, naming where the override came from. */
export function pricesRule(operations: readonly Priced[]): SettingRule<Pick<Config, "prices">> {
  return {
    settings: ["prices"],
    summary: "prices names only operations of the table, only paid ones, each at a price above 0",
    check(values, describe) {
      const problems = priceProblems(operations, values.prices);
      return problems.length > 0 ? [`${describe("prices")}: ${problems.join("; ")}`] : [];
    },
  };
}

/** "$0.10": the x402 money format for USDC prices. */
export function dollars(usd: number): string {
  return `$${usd.toFixed(6).replace(/0+$/, "").replace(/\.$/, ".00")}`;
}
