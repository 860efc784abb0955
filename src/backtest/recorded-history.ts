/**
 * @module backtest/recorded-history
 * The importer of the recorded market history (`../shared/real-history/`, see its SOURCES.md) into
 * the `ts_*` tables a backtest reads: which file feeds which table and column, for which entity,
 * and how its dates become UTC days. Only series a detector reads are imported; labels are dated
 * from other files (data/events/), so no detector is graded against its own input.
 *
 * The date caveat: the third party's CSVs marked "(local)" were written at US Eastern midnight
 * (`2022-05-11 20:00:00` is DefiLlama's 2022-05-12 00:00 UTC point), so their days move forward
 * by one; the reshaped `/stablecoinprices` JSON already carries UTC timestamps.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString } from "../store/duckdb.ts";
import { KINDS, type Kind } from "../timeseries/kinds.ts";

/** DefiLlama's and CoinGecko's stablecoin ids, to the graph's tokens (by their Ethereum contracts). */
const STABLECOIN_IDS: Record<string, string> = {
  "usd-coin": "token/usdc-usdc",
  tether: "token/usdt-tether-usd",
  dai: "token/dai-dai-stablecoin",
  frax: "token/frax-frax",
  "binance-usd": "token/busd-binance-usd",
  terrausd: "token/ustc-ust-token-shuttle",
  "paxos-standard": "token/usdp-pax-dollar",
  "true-usd": "token/tusd-trueusd",
  husd: "token/husd-husd",
  neutrino: "token/usdn-neutrino-usd",
};

/** CoinMarketCap files (`cmc/<name>_1_1_<year>-12_31_<year>_...csv`) and the token each is about. */
const CMC_FILES: { name: string; years: number[]; entity: string }[] = [
  { name: "USDC", years: [2022, 2023], entity: "token/usdc-usdc" },
  { name: "Dai", years: [2022, 2023], entity: "token/dai-dai-stablecoin" },
  { name: "Tether_USDt", years: [2022, 2023], entity: "token/usdt-tether-usd" },
  { name: "Pax_Dollar", years: [2023], entity: "token/usdp-pax-dollar" },
  { name: "TerraClassicUSD", years: [2022], entity: "token/ustc-ust-token-shuttle" },
  { name: "Terra_Classic", years: [2022], entity: "token/lunc-luna-classic" },
];

/** Entities the recorded history speaks of that a base world may lack; added when it does. */
export const HISTORY_ENTITIES = [
  { id: "protocol/anchor", type: "Protocol", name: "Anchor Protocol" },
  { id: "protocol/euler", type: "Protocol", name: "Euler" },
  { id: "protocol/compound", type: "Protocol", name: "Compound" },
  { id: "protocol/aave", type: "Protocol", name: "Aave" },
  { id: "lending-market/aave-arbitrum-all", type: "LendingMarket", name: "Aave on Arbitrum (all markets)" },
  { id: "pool/balancer-v2-rai-flx-reth-weth-rpl", type: "Pool", name: "Balancer v2 RAI-FLX-RETH-WETH-RPL" },
] as const;

/** One row of the mapping, as the report and `ckg backtest --help` show it. */
export interface HistoryMapping {
  table: string;
  columns: string;
  file: string;
  dates: string;
}

/** The source name of the imported tables (`ts_history_<kind>`). */
export const HISTORY_SOURCE = "history";

/** Each table the importer writes, its columns' files and their date rule. */
export const HISTORY_MAPPING: HistoryMapping[] = [
  { table: "ts_history_stablecoin", columns: "price", file: "defillama/stablecoinprices.reshaped-from-csv.json (gecko ids mapped by STABLECOIN_IDS)", dates: "UTC as recorded" },
  { table: "ts_history_stablecoin", columns: "circulatingUsd (USDC from 2022-05-12)", file: "defillama/derived-csv/stablecoin_usdc_circulating_by_chain.csv (sum of chains)", dates: "local: +1 day" },
  // Supply valued at the peg (units x 1 USD), as DefiLlama counts it: a market cap would move with a depegged price.
  { table: "ts_history_stablecoin", columns: "circulatingUsd (other coins, and USDC before)", file: "cmc/<coin>_*.csv circulatingSupply (x 1 USD, the peg)", dates: "UTC (timeOpen)" },
  { table: "ts_history_token", columns: "currentPrice, marketCap, totalVolume, circulatingSupply", file: "cmc/*.csv close, marketCap, volume, circulatingSupply", dates: "UTC (timeOpen)" },
  { table: "ts_history_protocol", columns: "feesUsd (Aave)", file: "defillama/derived-csv/aave_daily_fees.csv total_fees", dates: "local: +1 day" },
  { table: "ts_history_protocol", columns: "revenueUsd (Compound)", file: "defillama/derived-csv/compound_daily_revenue.csv total_fees", dates: "local: +1 day" },
  { table: "ts_history_lending", columns: "totalBorrowUsd, totalSupplyUsd = borrowed + TVL, utilization", file: "defillama/derived-csv/aave_arbitrum_borrowed_and_tvl_daily.csv", dates: "UTC" },
  { table: "ts_history_pool", columns: "tvlUsd, apy (x100: the file divided it)", file: "defillama/derived-csv/yields_chart_4399e512-....csv", dates: "UTC (MM/DD/YYYY)" },
];

class HistoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HistoryError";
  }
}

/** Writes `ts_history_<kind>` tables into the connection's database; returns the kinds written. */
export async function importRecordedHistory(c: DuckDBConnection, root: string): Promise<Kind[]> {
  const file = (path: string) => {
    const full = join(root, path);
    if (!existsSync(full)) throw new HistoryError(`the recorded history has no ${path} under ${root} (see its SOURCES.md)`);
    return sqlString(full);
  };
  const cmc = CMC_FILES.flatMap(({ name, years, entity }) =>
    years.map((y) => `SELECT ${sqlString(entity)} AS entity_id, timeOpen::DATE AS date, close, marketCap, volume, circulatingSupply
      FROM read_csv(${file(`cmc/${name}_1_1_${y}-12_31_${y}_historical_data_coinmarketcap.csv`)}, delim = ';', header = true)`),
  );
  // A file of one year also holds a few days of the year before: the later file's row wins.
  await c.run(`CREATE TEMP TABLE cmc AS SELECT * FROM (${cmc.join(" UNION ALL ")}) QUALIFY row_number() OVER (PARTITION BY entity_id, date ORDER BY date) = 1`);
  const ids = Object.entries(STABLECOIN_IDS).map(([gecko, id]) => `(${sqlString(gecko)}, ${sqlString(id)})`).join(", ");
  await c.run(`CREATE TEMP TABLE llama_prices AS
    WITH days AS (SELECT unnest(json_transform(j, '["JSON"]')) AS d FROM read_text(${file("defillama/stablecoinprices.reshaped-from-csv.json")}) t(filename, j, size, modified)),
      ids(gecko, entity_id) AS (VALUES ${ids})
    SELECT ids.entity_id, to_timestamp((d->>'date')::BIGINT)::DATE AS date, (d->'prices'->>ids.gecko)::DOUBLE AS price
    FROM days, ids WHERE d->'prices'->>ids.gecko IS NOT NULL`);
  await c.run(`CREATE TEMP TABLE usdc_supply AS
    WITH wide AS (SELECT * FROM read_csv(${file("defillama/derived-csv/stablecoin_usdc_circulating_by_chain.csv")}, header = true)),
      long AS (UNPIVOT wide ON COLUMNS(* EXCLUDE ("Date")) INTO NAME chain VALUE amount)
    SELECT 'token/usdc-usdc' AS entity_id, ("Date"::TIMESTAMP + INTERVAL 4 HOUR)::DATE AS date, sum(amount::DOUBLE) AS circulating FROM long GROUP BY ALL`);
  await createKindTable(c, "stablecoin", `SELECT p.entity_id, p.date, p.price, coalesce(u.circulating, m.circulatingSupply) AS "circulatingUsd", 'USD' AS "pegCurrency"
    FROM llama_prices p LEFT JOIN usdc_supply u USING (entity_id, date) LEFT JOIN cmc m USING (entity_id, date)`);
  await createKindTable(c, "token", `SELECT entity_id, date, close AS "currentPrice", marketCap AS "marketCap", volume AS "totalVolume", circulatingSupply AS "circulatingSupply" FROM cmc`);
  await createKindTable(c, "protocol", `
    SELECT 'protocol/aave' AS entity_id, ("date"::DATE + 1) AS date, total_fees AS "feesUsd" FROM read_csv(${file("defillama/derived-csv/aave_daily_fees.csv")}, header = true)
    UNION ALL BY NAME SELECT 'protocol/compound' AS entity_id, ("date"::DATE + 1) AS date, total_fees AS "revenueUsd" FROM read_csv(${file("defillama/derived-csv/compound_daily_revenue.csv")}, header = true)`);
  const money = (col: string) => `replace(replace(${col}, '$', ''), ',', '')::DOUBLE`;
  await createKindTable(c, "lending", `
    SELECT 'lending-market/aave-arbitrum-all' AS entity_id, strptime("date", '%Y/%m/%d')::DATE AS date, 'protocol/aave' AS protocol_id,
      ${money("Arbitrum_borrowed")} + ${money("Arbitrum_TVL")} AS "totalSupplyUsd", ${money("Arbitrum_borrowed")} AS "totalBorrowUsd",
      ${money("Arbitrum_borrowed")} / nullif(${money("Arbitrum_borrowed")} + ${money("Arbitrum_TVL")}, 0) AS utilization
    FROM read_csv(${file("defillama/derived-csv/aave_arbitrum_borrowed_and_tvl_daily.csv")}, header = true, all_varchar = true)`);
  await createKindTable(c, "pool", `
    SELECT 'pool/balancer-v2-rai-flx-reth-weth-rpl' AS entity_id, strptime("timestamp", '%m/%d/%Y')::DATE AS date, 'protocol/balancer-v2' AS protocol_id, 'chain/ethereum' AS chain_id,
      "tvlUSD"::DOUBLE AS "tvlUsd", "apy"::DOUBLE * 100 AS apy, "apy"::DOUBLE * 100 AS "apyBase", 0.0 AS "apyReward"
    FROM read_csv(${file("defillama/derived-csv/yields_chart_4399e512-4ce8-44cd-97af-13fd893b9f71.csv")}, header = true, all_varchar = true)`);
  return ["stablecoin", "token", "protocol", "lending", "pool"];
}

/**
 * `ts_history_<kind>` with every column of the kind, in its order and type: the select names the
 * columns it has, and `UNION ALL BY NAME` with an empty row of the kind adds the others as null.
 */
async function createKindTable(c: DuckDBConnection, kind: Kind, select: string): Promise<void> {
  const columns = KINDS[kind].columns;
  const empty = `SELECT ${columns.map((col) => `NULL::${col.type} AS "${col.name}"`).join(", ")} WHERE false`;
  await c.run(`CREATE TABLE ts_${HISTORY_SOURCE}_${kind} AS
    SELECT ${columns.map((col) => `"${col.name}"::${col.type} AS "${col.name}"`).join(", ")} FROM (${empty} UNION ALL BY NAME (${select}))
    WHERE entity_id IS NOT NULL AND date IS NOT NULL ORDER BY entity_id, date`);
}
