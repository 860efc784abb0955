/**
 * @module timeseries/kinds
 * The kinds of daily series and their columns: one table per source and kind, named
 * `ts_<source>_<kind>` (ts_synthetic_token, later ts_defillama_protocol, ...). Every source writes
 * the same columns for a kind, so SQL and the signal detectors work on any of them.
 *
 * `entity_id` is the graph entity id (`token/usdc-usdc`); its URI is the entity base plus the id
 * (`https://ckg.example/id/token/usdc-usdc`). Metric columns are camelCase, as the providers name
 * them; quote them in SQL ("currentPrice").
 */
import type { NodeType } from "../entities/vocabulary.ts";

export type ColumnType = "VARCHAR" | "DATE" | "DOUBLE" | "BIGINT" | "BOOLEAN" | "TIMESTAMP" | "VARCHAR[]";

export interface ColumnDef {
  name: string;
  type: ColumnType;
  description: string;
}

export interface KindDef {
  /** Type of the entity `entity_id` names. */
  entity: NodeType;
  description: string;
  columns: ColumnDef[];
}

const id = (what: string): ColumnDef => ({ name: "entity_id", type: "VARCHAR", description: `graph id of the ${what}` });
const date: ColumnDef = { name: "date", type: "DATE", description: "day (UTC)" };
const usd = (name: string, description: string): ColumnDef => ({ name, type: "DOUBLE", description: `${description}, USD` });
const num = (name: string, description: string): ColumnDef => ({ name, type: "DOUBLE", description });
const text = (name: string, description: string): ColumnDef => ({ name, type: "VARCHAR", description });

export const KINDS = {
  token: {
    entity: "Token",
    description: "daily market data of a token",
    columns: [
      id("token"),
      date,
      usd("currentPrice", "price"),
      usd("marketCap", "market capitalisation (price x circulating supply)"),
      usd("totalVolume", "traded volume over the day"),
      num("circulatingSupply", "tokens in circulation"),
      num("totalSupply", "tokens in existence"),
    ],
  },
  protocol: {
    entity: "Protocol",
    description: "daily fundamentals of a protocol, all chains together",
    columns: [
      id("protocol"),
      date,
      usd("tvlUsd", "total value locked"),
      usd("feesUsd", "fees paid by users over the day"),
      usd("revenueUsd", "fees kept by the protocol over the day"),
      usd("incentivesUsd", "token incentives paid out over the day"),
      usd("earningsUsd", "revenue minus incentives"),
      num("dailyUsers", "distinct active addresses"),
      num("transactions", "transactions over the day"),
    ],
  },
  protocol_chain: {
    entity: "Protocol",
    description: "a protocol's total value locked on each chain it is deployed on (sums to the protocol's tvlUsd)",
    columns: [id("protocol"), date, text("chain_id", "graph id of the chain"), usd("tvlUsd", "total value locked on that chain")],
  },
  pool: {
    entity: "Pool",
    description: "daily liquidity and yield of a pool",
    columns: [
      id("pool"),
      date,
      text("protocol_id", "graph id of the protocol the pool belongs to"),
      text("chain_id", "graph id of the chain it is on"),
      usd("tvlUsd", "total value locked"),
      num("apy", "total annual percentage yield, percent (apyBase + apyReward)"),
      num("apyBase", "yield from fees or interest, percent"),
      num("apyReward", "yield from token rewards, percent"),
      usd("volumeUsd", "traded volume over the day"),
    ],
  },
  lending: {
    entity: "LendingMarket",
    description: "daily state of one asset's lending market",
    columns: [
      id("lending market"),
      date,
      text("protocol_id", "graph id of the lending protocol"),
      text("asset_id", "graph id of the token supplied and borrowed"),
      usd("totalSupplyUsd", "supplied"),
      usd("totalBorrowUsd", "borrowed"),
      num("utilization", "borrowed / supplied, 0..1"),
      num("supplyApy", "supply rate, percent a year"),
      num("borrowApy", "borrow rate, percent a year"),
      usd("debtCeilingUsd", "governance cap on borrowing, when the market has one (else null)"),
    ],
  },
  stablecoin: {
    entity: "Token",
    description: "daily price and supply of a stablecoin",
    columns: [id("stablecoin"), date, usd("price", "price"), usd("circulatingUsd", "circulating supply valued at the peg"), text("pegCurrency", "currency it tracks")],
  },
  treasury: {
    entity: "Organization",
    description: "daily holdings of a protocol's or DAO's treasury",
    columns: [
      { name: "entity_id", type: "VARCHAR", description: "graph id of the treasury holder (DAO or protocol)" },
      date,
      text("token_id", "graph id of the holder's own token"),
      usd("totalUsd", "everything held"),
      usd("ownTokenUsd", "held in its own token"),
      usd("stablecoinUsd", "held in stablecoins"),
      usd("otherUsd", "held in other assets"),
      num("ownTokenShare", "ownTokenUsd / totalUsd, 0..1"),
      usd("monthlyExpensesUsd", "spending a month"),
    ],
  },
  insider_flows: {
    entity: "Token",
    description: "net token flows of known insider and whale wallets (days with activity only)",
    columns: [
      id("token"),
      date,
      text("wallet", "CAIP-10 account"),
      text("holder_id", "graph id of the person or organization behind the wallet"),
      text("holder_role", "team, investor, market_maker or whale"),
      usd("netFlowUsd", "bought minus sold over the day (negative: net seller)"),
      num("balance", "tokens held after the day"),
    ],
  },
  holders: {
    entity: "Token",
    description: "a token's ten largest holders (exchange, bridge and burn addresses left out), weekly in the demo, daily from explorers",
    columns: [
      id("token"),
      date,
      { name: "rank", type: "BIGINT", description: "1 = largest" },
      text("wallet", "CAIP-10 account"),
      text("holder_id", "graph id of the holder when known (else null)"),
      text("holder_label", "what the chain explorer calls the wallet (a treasury, a fund, a contract), when it names it"),
      num("balance", "tokens held"),
      num("shareOfSupply", "balance / total supply, 0..1"),
    ],
  },
  wallet_activity: {
    entity: "Protocol",
    description: "daily use of protocols by large wallets (days with activity only)",
    columns: [id("protocol"), date, text("wallet", "CAIP-10 account"), usd("volumeUsd", "value moved through the protocol"), { name: "transactions", type: "BIGINT", description: "transactions" }],
  },
  listings: {
    entity: "Token",
    description: "a token's trading pairs on exchanges, weekly",
    columns: [
      id("token"),
      date,
      text("exchange_id", "graph id of the exchange"),
      text("pair", "trading pair, BASE/QUOTE"),
      num("spreadPct", "bid-ask spread, percent of mid price"),
      usd("volumeUsd", "traded volume over the day"),
    ],
  },
  governance: {
    entity: "Organization",
    description: "daily vote tallies of governance proposals while they are open, and their result",
    columns: [
      { name: "entity_id", type: "VARCHAR", description: "graph id of the DAO or protocol that votes" },
      date,
      text("proposal_id", "graph id of the proposal"),
      num("votesFor", "voting power for"),
      num("votesAgainst", "voting power against"),
      num("votesAbstain", "voting power abstaining"),
      num("turnout", "votes cast / voting supply, 0..1"),
      num("margin", "(for - against) / (for + against), -1..1"),
      text("status", "active, passed, failed or cancelled"),
    ],
  },
  unlocks: {
    entity: "Token",
    description: "token unlock events of vesting schedules, past and scheduled",
    columns: [
      id("token"),
      date,
      text("schedule_id", "graph id of the vesting schedule"),
      text("allocation_group", "team, investors, ecosystem or treasury"),
      num("amount", "tokens unlocked"),
      usd("valueUsd", "amount at the day's price (latest price for future events)"),
      num("shareOfSupply", "amount / total supply, 0..1"),
      num("shareOfCirculating", "amount / circulating supply before the unlock, 0..1"),
    ],
  },
} as const satisfies Record<string, KindDef>;

export type Kind = keyof typeof KINDS;

/** Source name of the generated demo series: it says what it is. */
export const SYNTHETIC_SERIES_SOURCE = "synthetic";

export function tableName(source: string, kind: Kind): string {
  return `ts_${source}_${kind}`;
}

/** The catalogue view of every published table's columns. */
export const CATALOG_VIEW = "ts_catalog";

/**
 * Row order of every series table: clustered by month, then entity and date. A day's cross-section
 * (every entity on one date) sits in a few row groups and one entity's history in one row group a
 * month, so both kinds of filter skip most of the data.
 */
export const SERIES_ORDER = "date_trunc('month', date), entity_id, date";
export const SERIES_PARQUET = "(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 30720)";

/** The SELECT list of a kind's published columns, each cast to its published type. */
export function publishedColumns(kind: Kind): string {
  return KINDS[kind].columns.map((col) => `"${col.name}"::${col.type} AS "${col.name}"`).join(", ");
}

/** The latest figures explore shows for an entity, by explore focus category. */
export const FIGURES: Partial<Record<Kind, { category: "market" | "financial_metrics"; columns: string[] }>> = {
  token: { category: "market", columns: ["currentPrice", "marketCap", "totalVolume", "circulatingSupply"] },
  stablecoin: { category: "market", columns: ["price", "circulatingUsd"] },
  protocol: { category: "financial_metrics", columns: ["tvlUsd", "feesUsd", "revenueUsd", "earningsUsd", "dailyUsers"] },
  pool: { category: "financial_metrics", columns: ["tvlUsd", "apy", "apyBase", "apyReward", "volumeUsd"] },
  lending: { category: "financial_metrics", columns: ["totalSupplyUsd", "totalBorrowUsd", "utilization", "supplyApy", "borrowApy", "debtCeilingUsd"] },
  treasury: { category: "financial_metrics", columns: ["totalUsd", "ownTokenUsd", "stablecoinUsd", "ownTokenShare", "monthlyExpensesUsd"] },
};
