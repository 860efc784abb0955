import { z } from "zod";
import { CATALOG_VIEW } from "../../timeseries/kinds.ts";
import { MAX_SQL_ROWS, sqlAnswerSchema } from "../../timeseries/store.ts";
import { READS } from "../effects.ts";
import { defineOperation, seconds } from "../operation.ts";

export const timeseries = defineOperation({
  name: "timeseries",
  method: "POST",
  path: "/api/timeseries",
  summary: "Run a read-only SQL query over the daily time-series (ts_* tables) and the graph's tables",
  description: ({ query_timeout_ms }) =>
    "Runs one SELECT (WITH, UNION and subqueries allowed) over the ts_* tables: daily prices, market caps, TVL, fees, " +
    "revenue, pool APY, lending rates, stablecoin supply, treasuries, insider flows, holders, listings, governance votes " +
    "and unlocks; and over the graph itself: graph_entities (id, type, name, symbol, source, ...) and graph_facts " +
    "(subject_id, predicate, object, object_kind, source), for counting and grouping over the whole graph. " +
    `${CATALOG_VIEW} lists every table's columns; /api/schema adds row counts and date ranges. entity_id is the ` +
    "graph entity id (the entity URI without https://ckg.example/id/). Quote camelCase columns (\"currentPrice\"). " +
    "PostgreSQL habits work (date_trunc, INTERVAL, generate_series, CTEs, window functions, ILIKE). Answers " +
    `{columns: [{name, type}], data: [rows], count, truncated}: at most ${MAX_SQL_ROWS.toLocaleString("en")} rows, ` +
    `numbers stay numbers, dates are ISO strings, integers beyond 2^53 are strings. ${seconds(query_timeout_ms)} per query (504 query_timeout beyond). Anything but a ` +
    "single SELECT over the published tables is refused with 403 read_only.",
  priceUsd: 0.1,
  effects: READS,
  input: z.strictObject({
    sql_query: z.string().min(1, "sql_query must not be empty").max(65_536),
  }),
  output: sqlAnswerSchema,
  needs: ["snapshot"],
  example: {
    sql_query:
      `SELECT entity_id, "currentPrice", "marketCap" FROM ts_synthetic_token WHERE date = (SELECT max(date) FROM ts_synthetic_token) ORDER BY "marketCap" DESC LIMIT 7`,
  },
  prepare(input, { live }) {
    return live.timeseries.check(input.sql_query);
  },
  handler(checked, { services, live }) {
    return live.timeseries.query(checked, { timeoutMs: services.config.query_timeout_ms });
  },
});
