/**
 * @module ingest/providers/coingecko/schemas
 * Shapes of CoinGecko's answers (API v3; only the fields read), and how their amounts are read.
 */
import { z } from "zod";

export const platformSchema = z.object({
  id: z.string().trim().min(1, "empty id"),
  chain_identifier: z.number().int().nonnegative().nullable().optional(),
  name: z.string().trim().min(1, "empty name"),
  shortname: z.string().nullable().optional(),
  native_coin_id: z.string().nullable().optional(),
});

export const coinSchema = z.object({
  id: z.string().trim().min(1, "empty id"),
  symbol: z.string(),
  name: z.string().trim().min(1, "empty name"),
  platforms: z.record(z.string(), z.string().nullable()).nullable().optional(),
});

const amount = z.number().nullable().optional();
export const marketSchema = z.object({
  id: z.string().trim().min(1, "empty id"),
  symbol: z.string(),
  name: z.string().trim().min(1, "empty name"),
  current_price: amount,
  market_cap: amount,
  market_cap_rank: z.number().int().positive().nullable().optional(),
  total_volume: amount,
  circulating_supply: amount,
  total_supply: amount,
});
export type Market = z.infer<typeof marketSchema>;

export const chartSchema = z.object({
  prices: z.array(z.unknown()),
  market_caps: z.array(z.unknown()).optional(),
  total_volumes: z.array(z.unknown()).optional(),
});
export const pointSchema = z.tuple([z.number().nonnegative(), z.number().nullable()]);

/** Zero market caps and supplies mean "unknown" at CoinGecko. */
export const positiveOrNull = (v: number | null | undefined) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : null);
export const finiteOrNull = (v: number | null | undefined) => (typeof v === "number" && Number.isFinite(v) ? v : null);
