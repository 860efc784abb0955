/**
 * @module ingest/keep-history
 * How an ingest's rows of a kind meet what the live snapshot stored: history is append-or-correct
 * (a provider's later answer for a day corrects it; nothing stored is lost). A row is identified by
 * its entity, its day and the kind's other key columns (ROW_KEYS). For each such row:
 *
 * - a value this run gives replaces the stored one (a newer answer for that day corrects it);
 * - a value this run lacks (null: the provider's answer for that day does not carry it, as a
 *   stablecoin history carries no price and a re-fetched day no earnings) leaves the stored one;
 * - a row this run does not bring at all is kept as stored, so no series is ever shortened.
 *
 * So a stored value never becomes no value, whatever the provider or the kind, and no parser has
 * to know what was stored before. Within one run, rows of one key (a list's row and a history's
 * row of the same day) are merged the same way, the later row's values winning.
 *
 * Schedules are not history: a future row of a schedule (an unlock dated after the run's day) is
 * what the provider predicts, and a newer answer that no longer lists it has rescheduled or
 * cancelled it. So for SCHEDULES, a stored future row of a schedule this run brought, and that
 * this run does not bring, is dropped (past rows stay, as for every kind).
 *
 * One exception keeps values from being mixed across different things: where a key names a slot
 * rather than a thing (a token's holder of rank 1 on a day), SAME_THING names the columns that
 * say which thing fills it (the wallet). A row of another wallet replaces the slot whole, and only
 * a row of the same wallet fills its missing values from the stored one.
 */
import { sqlString } from "../store/duckdb.ts";
import { KINDS, type Kind, publishedColumns } from "../timeseries/kinds.ts";

/** Columns besides entity and day that tell two rows of a kind apart. */
const ROW_KEYS: Partial<Record<Kind, string[]>> = {
  protocol_chain: ["chain_id"],
  governance: ["proposal_id"],
  unlocks: ["schedule_id"],
  holders: ["rank"],
  listings: ["exchange_id", "pair"],
  insider_flows: ["wallet"],
  wallet_activity: ["wallet"],
};

/** Columns that say which thing fills a slot of the key: rows that differ in them are not merged. */
const SAME_THING: Partial<Record<Kind, string[]>> = {
  holders: ["wallet"],
};

/** Kinds whose future rows are a provider's schedule, and the column naming the schedule. */
const SCHEDULES: Partial<Record<Kind, string>> = { unlocks: "schedule_id" };

/** The key columns of a kind's rows. */
export function rowKeys(kind: Kind): string[] {
  return ["entity_id", "date", ...(ROW_KEYS[kind] ?? [])];
}

const q = (column: string) => `"${column}"`;
const equal = (columns: string[], a: string, b: string) => columns.map((c) => `${a}.${q(c)} IS NOT DISTINCT FROM ${b}.${q(c)}`).join(" AND ");

/**
 * The SELECT of a kind's merged rows, in the kind's column order: this run's rows from `stage`
 * (the kind's columns, dates as text, and `ord`, the order the parser gave them in) merged with
 * the stored table's Parquet file `stored`, when there is one.
 */
export function mergeSelect(kind: Kind, stage: string, stored: string | undefined, today?: string): string {
  const columns = KINDS[kind].columns.map((c) => c.name);
  const keys = rowKeys(kind);
  const values = columns.filter((c) => !keys.includes(c));
  const same = SAME_THING[kind] ?? [];
  const partition = keys.map(q).join(", ");
  // Within the run: only rows of the thing the key's last row names take part (a slot's earlier thing gives way whole).
  const ofLastThing = same.length > 0 ? `QUALIFY ${same.map((c) => `${q(c)} IS NOT DISTINCT FROM last_value(${q(c)}) OVER (PARTITION BY ${partition} ORDER BY ord ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)`).join(" AND ")}` : "";
  const typed = `SELECT ${publishedColumns(kind)}, ord FROM ${stage} ${ofLastThing}`;
  // One row per key: each column's last value the run gave (a null gives no value).
  const fresh = `SELECT ${partition}, ${values.map((c) => `arg_max(${q(c)}, ord) FILTER (WHERE ${q(c)} IS NOT NULL) AS ${q(c)}`).join(", ")} FROM (${typed}) GROUP BY ${partition}`;
  if (!stored) return `SELECT ${columns.map(q).join(", ")} FROM (${fresh})`;
  const merged = columns.map((c) => (keys.includes(c) ? `n.${q(c)}` : `coalesce(n.${q(c)}, o.${q(c)}) AS ${q(c)}`)).join(", ");
  const sameThing = same.length > 0 ? ` AND ${equal(same, "n", "o")}` : "";
  return `WITH n AS (${fresh}), o AS (SELECT * FROM read_parquet(${sqlString(stored)}))
    SELECT ${merged} FROM n LEFT JOIN o ON ${equal(keys, "n", "o")}${sameThing}
    UNION ALL SELECT ${columns.map((c) => `o.${q(c)}`).join(", ")} FROM o WHERE NOT EXISTS (SELECT 1 FROM n WHERE ${equal(keys, "n", "o")})${rescheduled(kind, today)}`;
}

/** For a schedule kind: leaves out stored future rows of the schedules this run brought anew. */
function rescheduled(kind: Kind, today: string | undefined): string {
  const schedule = SCHEDULES[kind];
  if (!schedule || !today) return "";
  return ` AND NOT (o.date > DATE ${sqlString(today)} AND o.${q(schedule)} IN (SELECT ${q(schedule)} FROM n WHERE ${q(schedule)} IS NOT NULL))`;
}
