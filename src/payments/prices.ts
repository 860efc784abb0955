/**
 * @module payments/prices
 * The price of each operation: the operations table's default (spec 5.3, prose column), replaced
 * by `CKG_PRICES` (`sparql=0.05,signals=0.10`). Free operations stay free; an override naming an
 * operation that does not exist is an error at start.
 */
import type { AnyOperation } from "../api/operation.ts";

export function priceTable(operations: readonly AnyOperation[], overrides: string | undefined): Map<string, number> {
  const prices = new Map(operations.map((op) => [op.name, op.priceUsd]));
  if (!overrides) return prices;
  for (const pair of overrides.split(",")) {
    const [name, usd] = pair.split("=").map((s) => s.trim()) as [string, string];
    if (!prices.has(name)) {
      throw new Error(`setting prices names "${name}", which is no operation; known: ${[...prices.keys()].join(", ")}`);
    }
    if (prices.get(name) === 0) throw new Error(`setting prices: ${name} is a free route and stays free`);
    const value = Number(usd);
    if (!(value > 0)) throw new Error(`setting prices: ${name} needs a price above 0 (the route is paid)`);
    prices.set(name, value);
  }
  return prices;
}

/** "$0.10": the x402 money format for USDC prices. */
export function dollars(usd: number): string {
  return `$${usd.toFixed(6).replace(/0+$/, "").replace(/\.$/, ".00")}`;
}
