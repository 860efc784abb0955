/**
 * @module store/state
 * The transactional store for state that outlives a snapshot: the change log, signals with their
 * qualification moves and the scans that found them, ingests, claimed runs and the payment ledger.
 * One interface, two engines: SQLite in the data directory (state-sqlite.ts, the embedded default)
 * and PostgreSQL (`CKG_STATE_URL`, state-postgres.ts), which replicas of ckg on several machines
 * share. Both hold the same tables under the same names; callers write one SQL for both, with `?`
 * placeholders and the common subset of the two dialects (counts cast to INTEGER, ON CONFLICT,
 * RETURNING, row values), and ask `engine` where a plan hint is SQLite's own. open-state.ts opens
 * the one a configuration names.
 */
export type SqlValue = string | number | null;

export interface Statement {
  sql: string;
  params: readonly SqlValue[];
}

export interface StateQueries {
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | null>;
  /** Runs a write; how many rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /** Runs writes in order (PostgreSQL sends them together instead of waiting for each). */
  batch(statements: readonly Statement[]): Promise<void>;
}

export interface StateStore extends StateQueries {
  readonly engine: "sqlite" | "postgresql";
  /**
   * One transaction. `lock` names a lock held to its end across every process sharing the store,
   * for a read-then-write that must not interleave with another's (a scan's signals): SQLite's
   * write lock serialises every transaction already; PostgreSQL takes an advisory lock.
   */
  transaction<T>(work: (tx: StateQueries) => Promise<T>, options?: { lock?: string }): Promise<T>;
  /**
   * Refreshes the planner's statistics of `tables` after a large write. Without it PostgreSQL plans
   * the signal reads after a scan as if the tables were empty until autovacuum catches up (on the
   * full data 17 and 48 ms for a type's and an entity's signals, 0.08 and 0.3 ms after).
   */
  analyze(tables: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** A multi-row INSERT per chunk of `rows` (one statement per row would be a round trip each on PostgreSQL). */
export function insertRows(table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[], suffix = ""): Statement[] {
  // Under both engines' parameter limits (SQLite 32,766; PostgreSQL 65,535).
  const perChunk = Math.max(1, Math.floor(30_000 / columns.length));
  const tuple = `(${columns.map(() => "?").join(", ")})`;
  const statements: Statement[] = [];
  for (let start = 0; start < rows.length; start += perChunk) {
    const chunk = rows.slice(start, start + perChunk);
    statements.push({
      sql: `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${chunk.map(() => tuple).join(", ")}${suffix ? ` ${suffix}` : ""}`,
      params: chunk.flat(),
    });
  }
  return statements;
}

/** `?` placeholders as `(?, ?, ...)` for an IN list of `n` values. */
export function placeholders(n: number): string {
  return `(${Array.from({ length: n }, () => "?").join(", ")})`;
}

/**
 * An IN list for `values` whose length is rounded up to a power of two (the last value repeated,
 * which an IN list ignores): a statement asked with every count from 1 to 512 is prepared ten
 * times, not 512 (a fan-out's claims ask for all sorts of counts, and each new one was a prepare).
 */
export function inList(values: readonly SqlValue[]): { sql: string; params: SqlValue[] } {
  const size = values.length <= 1 ? values.length : 2 ** Math.ceil(Math.log2(values.length));
  const params = [...values];
  while (params.length < size) params.push(values[values.length - 1]!);
  return { sql: placeholders(size), params };
}
