/**
 * @module store/state-sqlite
 * The state store in the data directory (store/state.ts): bun:sqlite in WAL mode, so readers never
 * wait for the writer and every write is durable when its transaction commits. Its calls are
 * synchronous underneath; a transaction's work is awaited between its statements, so calls from
 * elsewhere in this process wait for it to end instead of landing inside it.
 */
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { NewerFormatError } from "./formats.ts";
import { MIGRATIONS } from "./migrations-sqlite.ts";
import type { SqlValue, StateQueries, StateStore, Statement } from "./state.ts";


export function openSqliteState(path: string): SqliteState {
  let db: Database | undefined;
  try {
    db = new Database(path, { create: true, strict: true });
    db.exec("PRAGMA busy_timeout = 5000;");
    const done = stepsRun(db, path); // before anything is written: a newer database is left byte for byte as it was
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    migrate(db, path, done);
    // Planner statistics for tables that grew since the last open (a no-op when none did).
    db.exec("PRAGMA optimize = 0x10002;");
    return new SqliteState(db);
  } catch (error) {
    db?.close();
    if (error instanceof NewerFormatError) throw error;
    throw stateDbError(path, error as Error & { code?: string });
  }
}

/** Statements on the database itself, with no regard for transactions (the transaction's own view). */
class SqliteQueries implements StateQueries {
  constructor(protected readonly db: Database) {}

  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.db.query<T, SqlValue[]>(sql).all(...params);
  }

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | null> {
    return this.db.query<T, SqlValue[]>(sql).get(...params);
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    return this.db.query<unknown, SqlValue[]>(sql).run(...params).changes;
  }

  async batch(statements: readonly Statement[]): Promise<void> {
    for (const { sql, params } of statements) this.db.query<unknown, SqlValue[]>(sql).run(...params);
  }
}

export class SqliteState extends SqliteQueries implements StateStore {
  readonly engine = "sqlite";
  /** The transaction open in this process, if any: other calls wait for it. */
  private open: Promise<unknown> | undefined;

  override all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.whenIdle(() => super.all<T>(sql, params));
  }

  override get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | null> {
    return this.whenIdle(() => super.get<T>(sql, params));
  }

  override run(sql: string, params?: readonly SqlValue[]): Promise<number> {
    return this.whenIdle(() => super.run(sql, params));
  }

  override batch(statements: readonly Statement[]): Promise<void> {
    // One transaction: a batch is written whole or not at all, and far faster than a commit per row.
    return this.whenIdle(async () =>
      this.db.transaction(() => {
        for (const { sql, params } of statements) this.db.query<unknown, SqlValue[]>(sql).run(...params);
      })(),
    );
  }

  transaction<T>(work: (tx: StateQueries) => Promise<T>): Promise<T> {
    return this.whenIdle(async () => {
      // IMMEDIATE takes the write lock now: a read-then-write never meets another process's write.
      this.db.exec("BEGIN IMMEDIATE");
      const done = work(new SqliteQueries(this.db)).then(
        (result) => {
          this.db.exec("COMMIT");
          return result;
        },
      ).catch((error: unknown) => {
        // The work failed, or its COMMIT did: never leave the connection inside a transaction.
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        throw error;
      });
      this.open = done;
      try {
        return await done;
      } finally {
        this.open = undefined;
      }
    });
  }

  /** SQLite's own advice: statistics only where they are missing or stale (the listings' plans are hinted besides). */
  analyze(): Promise<void> {
    return this.whenIdle(async () => void this.db.exec("PRAGMA optimize"));
  }

  close(): Promise<void> {
    return this.whenIdle(async () => this.db.close());
  }

  /** The database as bun:sqlite sees it (tests read plans and rows with it). */
  get database(): Database {
    return this.db;
  }

  /** Runs `step` once no transaction of this process is open; nothing can open one between the check and the step. */
  private async whenIdle<T>(step: () => Promise<T>): Promise<T> {
    while (this.open) await this.open.catch(() => undefined);
    return step();
  }
}

/** What a person can do about a state database that cannot be opened. */
function stateDbError(path: string, error: Error & { code?: string }): Error {
  const holds = "it holds the signals and their history, the changes feed and the payment ledger";
  if (error.code === "SQLITE_NOTADB" || error.code === "SQLITE_CORRUPT") {
    return new Error(`the state database ${path} is corrupt (${error.message}); ${holds}: restore it from a backup, or move it away to start with an empty one`, { cause: error });
  }
  if (error.code === "SQLITE_BUSY") {
    return new Error(`the state database ${path} is locked by another process (${error.message}); stop the other process using it and start again`, { cause: error });
  }
  return new Error(`the state database ${path} cannot be opened: ${error.message}`, { cause: error });
}

/** How many migration steps the database has had (user_version); a database a newer ckg migrated is refused. */
function stepsRun(db: Database, path: string): number {
  const done = db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version ?? 0;
  if (done > MIGRATIONS.length) throw new NewerFormatError({ part: `the state database ${path}`, found: done, supported: MIGRATIONS.length });
  return done;
}

/**
 * Brings the database to this ckg's steps (user_version counts the steps run). A database a newer
 * ckg migrated is refused untouched. The missing steps run in one transaction, so a failing step
 * leaves the database as it was; before them a copy of the database as it was is written beside it
 * (state.sqlite.v<steps run>) and kept, so the release it came from can be run again on it.
 */
function migrate(db: Database, path: string, done: number): void {
  if (done === MIGRATIONS.length) return;
  const copy = `${path}.v${done}`;
  if (done > 0) {
    rmSync(copy, { force: true }); // left by an attempt that failed: the database is still as it was then
    db.exec(`VACUUM INTO '${copy.replaceAll("'", "''")}'`);
  }
  try {
    // IMMEDIATE, and the count read again under the write lock: another process opening the database at the same moment migrates it once.
    db.transaction(() => {
      for (let step = stepsRun(db, path); step < MIGRATIONS.length; step++) db.exec(MIGRATIONS[step]!);
      db.exec(`PRAGMA user_version = ${MIGRATIONS.length}`);
    }).immediate();
  } catch (error) {
    const kept = done > 0 ? `; a copy of it is at ${copy}` : "";
    const failed = new Error(`bringing it from step ${done} to ${MIGRATIONS.length} failed, and it was left as it was${kept}: ${(error as Error).message}`, { cause: error });
    throw Object.assign(failed, { code: (error as { code?: string }).code });
  }
}
