/**
 * The one price list (payments/prices.ts): the table's defaults, CKG_PRICES on top, nothing charged
 * when payments are off, and every mistake in CKG_PRICES refused at start.
 */
import { describe, expect, test } from "bun:test";
import { OPERATIONS } from "../../src/operations/table/index.ts";
import { PriceList } from "../../src/payments/prices.ts";

describe("the price list", () => {
  test("defaults come from the operations table; an override replaces one price", () => {
    const prices = PriceList.from(OPERATIONS, "sparql=0.05, entity_insights=2", true);
    expect(Object.fromEntries(OPERATIONS.map((op) => [op.name, prices.of(op.name)]))).toEqual({
      sparql: 0.05, search: 0.1, explore: 0.1, timeseries: 0.1, changes: 0.1, entity_insights: 2, signals: 0.2, insights_batch: 7.5,
      schema: 0, signals_catalog: 0, signals_overview: 0, subscribe: 1, subscription: 0, rotate_subscription_secret: 0, unsubscribe: 0,
    });
  });

  test("payments off: every price reads 0, so nothing is advertised as paid", () => {
    const prices = PriceList.forConfig(OPERATIONS, { prices: "sparql=0.05", pay_to: undefined, facilitator_url: undefined });
    expect(prices.charging).toBe(false);
    expect(OPERATIONS.map((op) => prices.of(op.name))).toEqual(OPERATIONS.map(() => 0));
  });

  test("a mistake in CKG_PRICES is an error at start, naming it", () => {
    expect(() => PriceList.from(OPERATIONS, "sparkle=1", true)).toThrow('names "sparkle", which is no operation');
    expect(() => PriceList.from(OPERATIONS, "schema=1", true)).toThrow("schema is a free route and stays free");
    expect(() => PriceList.from(OPERATIONS, "sparql=0", true)).toThrow("sparql needs a price above 0");
    expect(() => PriceList.from(OPERATIONS, "sparql=abc", true)).toThrow("sparql needs a price above 0");
  });
});
