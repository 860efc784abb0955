/**
 * @module store/state-postgres
 * The state store in PostgreSQL (`CKG_STATE_URL`, store/state.ts), shared by every replica of ckg:
 * the same tables as the SQLite store, in their own schema (`ckg`, so they never meet a database's
 * other tables). Bun's built-in client; the schema is made or brought up to date under an advisory
 * lock, so replicas starting together do it once. `?` placeholders become `$n`.
 */
import { SQL } from "bun";
import { LRUCache } from "lru-cache";
import { NewerFormatError } from "./formats.ts";
import { MIGRATIONS } from "./migrations-postgres.ts";
import type { SqlValue, StateQueries, StateStore, Statement } from "./state.ts";

/** Any constant the replicas agree on: serialises the schema steps of replicas starting together. */
const SCHEMA_LOCK = 0x636b67_01;


export async function openPostgresState(url: string): Promise<PostgresState> {
  // Every connection sees the ckg schema first; unqualified names in the shared SQL resolve there.
  const sql = new SQL(url, { max: 8, connection: { search_path: "ckg" } });
  try {
    await sql.begin(async (tx) => {
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
      await tx.unsafe("CREATE SCHEMA IF NOT EXISTS ckg; CREATE TABLE IF NOT EXISTS ckg.schema_version (version INTEGER NOT NULL)");
      const [row] = (await tx.unsafe("SELECT max(version) AS v FROM ckg.schema_version")) as { v: number | null }[];
      // Migrated by a newer ckg: refused untouched (the missing steps below run in this one transaction).
      if ((row?.v ?? 0) > MIGRATIONS.length) throw new NewerFormatError({ part: "the state database at CKG_STATE_URL (ckg.schema_version)", found: row!.v!, supported: MIGRATIONS.length });
      for (let step = row?.v ?? 0; step < MIGRATIONS.length; step++) {
        await tx.unsafe(MIGRATIONS[step]!);
        await tx.unsafe(`INSERT INTO ckg.schema_version VALUES (${step + 1})`);
      }
    });
  } catch (error) {
    await sql.close();
    if (error instanceof NewerFormatError) throw error;
    throw new Error(`the state database at CKG_STATE_URL cannot be used: ${(error as Error).message}`, { cause: error });
  }
  return new PostgresState(sql);
}

/**
 * `?` outside quoted text becomes `$1`, `$2`, ... (the shared SQL's placeholders, PostgreSQL's
 * numbering). Kept for the statements used often; bulk inserts of every size would grow a plain map.
 */
const numbered = new LRUCache<string, string>({ max: 500 });
function numberPlaceholders(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/'(?:[^']|'')*'|\?/g, (match) => (match === "?" ? `$${++n}` : match));
    numbered.set(sql, text);
  }
  return text;
}

type Runner = Pick<SQL, "unsafe">;

class PostgresQueries implements StateQueries {
  constructor(protected readonly runner: Runner) {}

  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return [...((await this.runner.unsafe(numberPlaceholders(sql), [...params])) as T[])];
  }

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | null> {
    return (await this.all<T>(sql, params))[0] ?? null;
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    return ((await this.runner.unsafe(numberPlaceholders(sql), [...params])) as { count: number }).count;
  }

  async batch(statements: readonly Statement[]): Promise<void> {
    // Sent together, answered in order: one round trip's wait instead of one per statement.
    await Promise.all(statements.map(({ sql, params }) => this.runner.unsafe(numberPlaceholders(sql), [...params])));
  }
}

export class PostgresState extends PostgresQueries implements StateStore {
  readonly engine = "postgresql";

  constructor(private readonly sql: SQL) {
    super(sql);
  }

  override async batch(statements: readonly Statement[]): Promise<void> {
    await this.transaction((tx) => tx.batch(statements));
  }

  async transaction<T>(work: (tx: StateQueries) => Promise<T>, options: { lock?: string } = {}): Promise<T> {
    return (await this.sql.begin(async (tx) => {
      if (options.lock) await tx.unsafe("SELECT pg_advisory_xact_lock(hashtext($1))", [options.lock]);
      return work(new PostgresQueries(tx));
    })) as T;
  }

  async analyze(tables: readonly string[]): Promise<void> {
    // VACUUM too: it marks the pages all-visible, so the counts read the covering index alone
    // (ANALYZE by itself made counting by type 44 ms, a heap fetch per row, against 4 ms).
    await this.sql.unsafe(`VACUUM (ANALYZE) ${tables.join(", ")}`);
  }

  async close(): Promise<void> {
    await this.sql.close();
  }
}
