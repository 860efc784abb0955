/**
 * @module ingest/providers/defillama/schemas
 * Shapes of DefiLlama's answers (only the fields read; everything else passes unread).
 */
import { z } from "zod";

const num = z.number();
const optNum = num.nullish();
const optStr = z.string().nullish();
const idString = z.union([z.string().min(1), z.number()]).transform(String);
/** Numbers DefiLlama sends either as numbers or as strings (dates, timestamps, prices, ids). */
const numOrString = z.union([num, z.string()]);

/** A saved answer: DefiLlama's body with the run's day and the history's last stored day. */
export const savedSchema = z.object({ day: z.string(), since: z.string().nullable(), body: z.unknown() });
export type Saved = z.infer<typeof savedSchema>;

export const chainSchema = z.object({
  name: z.string().min(1),
  chainId: z.unknown().optional(),
  gecko_id: optStr,
  tokenSymbol: optStr,
  tvl: optNum,
});

/** What a protocol and a parent protocol (a family of them) both say. */
const protocolFields = {
  name: z.string().min(1),
  address: optStr,
  symbol: optStr,
  url: optStr,
  description: optStr,
  gecko_id: optStr,
  category: optStr,
  chains: z.array(z.string()).nullish(),
  governanceID: z.array(z.string()).nullish(),
};

export const protocolSchema = z.object({
  ...protocolFields,
  id: idString,
  slug: z.string().min(1),
  forkedFrom: z.array(z.string()).nullish(),
  parentProtocol: optStr,
  parentProtocolSlug: optStr,
  tvl: optNum,
  /** GitHub organizations: read by the GitHub connector only, so a malformed value is dropped, not the protocol. */
  github: z.array(z.string()).nullish().catch(null),
});
export type Protocol = z.infer<typeof protocolSchema>;

export const parentSchema = z.object({ ...protocolFields, id: z.string().regex(/^parent#/, "parent id without parent#") });
/** What a parent protocol says; a protocol says all of it too. */
export type Parent = z.infer<typeof parentSchema>;

export const tvlPoint = z.object({ date: numOrString, totalLiquidityUSD: optNum });
export const protocolDetailSchema = z.object({
  tvl: z.array(z.unknown()),
  chainTvls: z.record(z.string(), z.object({ tvl: z.array(z.unknown()).nullish() })).nullish(),
});

export const feesSchema = z.object({ totalDataChart: z.array(z.unknown()) });
export const chartPoint = z.tuple([numOrString, optNum]);

export const poolSchema = z.object({
  pool: z.string().min(1),
  chain: z.string().min(1),
  project: z.string().min(1),
  symbol: z.string(),
  tvlUsd: optNum,
  apy: optNum,
  apyBase: optNum,
  apyReward: optNum,
  volumeUsd1d: optNum,
  underlyingTokens: z.array(z.string()).nullish(),
  poolMeta: optStr,
  exposure: optStr,
});
export type Pool = z.infer<typeof poolSchema>;

export const poolChartPoint = z.object({
  timestamp: numOrString,
  tvlUsd: optNum,
  apy: optNum,
  apyBase: optNum,
  apyReward: optNum,
});

export const lendBorrowSchema = z.object({
  pool: z.string().min(1),
  totalSupplyUsd: optNum,
  totalBorrowUsd: optNum,
  apyBaseBorrow: optNum,
  apyRewardBorrow: optNum,
  debtCeilingUsd: optNum,
});

export const stablecoinSchema = z.object({
  id: idString,
  name: z.string().min(1),
  symbol: z.string().min(1),
  gecko_id: optStr,
  pegType: z.string().min(1),
  pegMechanism: optStr,
  circulating: z.record(z.string(), optNum).nullish(),
  chains: z.array(z.string()).nullish(),
  price: numOrString.nullish(),
});
export type Stablecoin = z.infer<typeof stablecoinSchema>;

export const stablecoinPoint = z.object({
  date: numOrString,
  circulating: z.record(z.string(), optNum).nullish(),
});

export const raiseSchema = z.object({
  date: numOrString,
  name: z.string().min(1),
  round: optStr,
  amount: optNum,
  leadInvestors: z.array(z.string()).nullish(),
  otherInvestors: z.array(z.string()).nullish(),
  defillamaId: numOrString.nullish(),
  source: optStr,
});
export type Raise = z.infer<typeof raiseSchema>;

/**
 * One incident of `/hacks`. DefiLlama gives no id: an incident is who (`defillamaId`, a protocol id,
 * and `parentProtocolId`, its family's) and when (`date`, unix seconds at 00:00 UTC). Amounts are
 * whole US dollars (not millions, unlike raises); a negative one is a broken record.
 */
export const hackSchema = z.object({
  date: numOrString,
  name: z.string().trim().min(1),
  classification: optStr,
  technique: optStr,
  amount: num.nonnegative().nullish(),
  chain: z.array(z.string()).nullish(),
  bridgeHack: z.boolean().nullish(),
  targetType: optStr,
  source: optStr,
  returnedFunds: num.nonnegative().nullish(),
  defillamaId: numOrString.nullish(),
  parentProtocolId: optStr,
  language: optStr,
});
export type Hack = z.infer<typeof hackSchema>;

/** An answer's value as an object to read fields from ({} when it is not one). */
export const record = (value: unknown): Record<string, unknown> => (value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {});
export const numberOr0 = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);
