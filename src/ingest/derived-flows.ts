/**
 * @module ingest/derived-flows
 * Insider and whale flows derived from the daily holder snapshots ckg keeps: for each real
 * provider's `holders` table, a `<provider>_insider_flows` table with one row per token, wallet and
 * day whose balance changed since the wallet's previous snapshot (at most three days before),
 * valued at the day's price. It is computed afresh over the whole published history at every
 * ingest, so a day added late is counted like the others.
 *
 * Who the wallet is, as far as the explorer's label tells (`holder_role`): `team` when the label
 * names the token's issuing protocol or says treasury, foundation, team, vesting, timelock,
 * multisig, DAO, governance or reserve; `investor` when it is the name of a fund of the graph;
 * otherwise `whale`, a large holder that is not an exchange, bridge or burn address. Whale flows
 * are a proxy for insiders, and the insider signals say so (signals/detectors/insider-accumulation).
 */
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import type { SeriesTable } from "../model/series.ts";
import type { World } from "../model/world.ts";
import { sqlString } from "../store/duckdb.ts";
import { tableName } from "../timeseries/kinds.ts";
import { copyTable } from "./series.ts";

/** A wallet's previous snapshot further back than this says nothing of one day's flow. */
const MAX_GAP_DAYS = 3;
const TEAM_WORDS = "treasury|foundation|team|vesting|timelock|multisig|multi-sig|dao|governance|reserve";

/**
 * The flow tables derived from `tables` (the new snapshot's series, in `staging`): one per real
 * provider with holders. `synthetic(provenance)` tells the demo's tables, which carry their own flows.
 */
export async function deriveInsiderFlows(c: DuckDBConnection, staging: string, tables: SeriesTable[], world: World, synthetic: (provenance: string) => boolean): Promise<SeriesTable[]> {
  const real = tables.filter((t) => !synthetic(t.provenance));
  const prices = real.filter((t) => t.kind === "token").map((t) => sqlString(join(staging, t.file)));
  const derived: SeriesTable[] = [];
  const holderTables = real.filter((t) => t.kind === "holders");
  if (holderTables.length === 0 || prices.length === 0) return derived;
  await namesTables(c, world);
  for (const holders of holderTables) {
    const select = `
      WITH h AS (
        SELECT *, lag(balance) OVER w AS prev, lag(date) OVER w AS prev_date
        FROM read_parquet(${sqlString(join(staging, holders.file))}) WINDOW w AS (PARTITION BY entity_id, wallet ORDER BY date)),
      p AS (SELECT entity_id, date, any_value("currentPrice") AS price FROM read_parquet([${prices.join(", ")}]) WHERE "currentPrice" > 0 GROUP BY ALL)
      SELECT h.entity_id, h.date, h.wallet, h.holder_id,
        CASE
          WHEN regexp_matches(coalesce(h.holder_label, ''), '${TEAM_WORDS}', 'i')
            OR EXISTS (SELECT 1 FROM flow_issuers i WHERE i.token = h.entity_id AND contains(lower(coalesce(h.holder_label, '')), i.name)) THEN 'team'
          WHEN lower(coalesce(h.holder_label, '')) IN (SELECT name FROM flow_funds) THEN 'investor'
          ELSE 'whale'
        END AS holder_role,
        (h.balance - h.prev) * p.price AS "netFlowUsd", h.balance
      FROM h JOIN p USING (entity_id, date)
      WHERE h.prev IS NOT NULL AND h.date - h.prev_date <= ${MAX_GAP_DAYS} AND h.balance <> h.prev`;
    derived.push(await copyTable(c, staging, tableName(holders.source, "insider_flows"), "insider_flows", holders.source, holders.provenance, select));
  }
  return derived;
}

/** The names the roles are told by: each token's issuing protocol, and the graph's funds (lower case). */
async function namesTables(c: DuckDBConnection, world: World): Promise<void> {
  const funds = [...world.entities.values()].filter((e) => e.labels.includes("VentureFund")).map((e) => e.name.toLowerCase());
  const issuers: [string, string][] = [];
  const { subject, predicate, object } = world.facts;
  for (let i = 0; i < subject.length; i++) {
    if (predicate[i] !== "issuedBy") continue;
    const name = world.entities.get(object[i]!)?.name;
    // A name shorter than four letters ("Dai") would match inside unrelated labels.
    if (name && name.length >= 4) issuers.push([subject[i]!, name.toLowerCase()]);
  }
  await c.run(`CREATE OR REPLACE TEMP TABLE flow_funds (name VARCHAR)`);
  await c.run(`CREATE OR REPLACE TEMP TABLE flow_issuers (token VARCHAR, name VARCHAR)`);
  const append = async (table: string, rows: string[][]) => {
    const appender = await c.createAppender(table);
    for (const row of rows) {
      for (const value of row) appender.appendVarchar(value);
      appender.endRow();
    }
    appender.closeSync();
  };
  await append("flow_funds", [...new Set(funds)].map((n) => [n]));
  await append("flow_issuers", issuers);
}
