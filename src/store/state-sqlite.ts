/**
 * @module store/state-sqlite
 * The state store in the data directory (store/state.ts): bun:sqlite in WAL mode, so readers never
 * wait for the writer and every write is durable when its transaction commits. Its calls are
 * synchronous underneath; a transaction's work is awaited between its statements, so calls from
 * elsewhere in this process wait for it to end instead of landing inside it.
 */
import { Database } from "bun:sqlite";
import type { SqlValue, StateQueries, StateStore, Statement } from "./state.ts";

/** Append-only list of schema steps; the database's user_version says how many have run. */
const MIGRATIONS: string[] = [
  `CREATE TABLE changes (
     id          INTEGER PRIMARY KEY,
     ts          TEXT    NOT NULL,          -- ISO 8601 UTC, when the change happened
     entity_uri  TEXT    NOT NULL,
     entity_name TEXT    NOT NULL,
     entity_type TEXT    NOT NULL,
     operation   TEXT    NOT NULL CHECK (operation IN ('CREATE', 'UPDATE')),
     fields      TEXT    NOT NULL,          -- JSON array of changed field names
     source      TEXT    NOT NULL,
     snapshot_id TEXT    NOT NULL
   );
   CREATE INDEX changes_by_time ON changes (ts DESC, id DESC);
   CREATE INDEX changes_by_entity ON changes (entity_uri, ts DESC, id DESC);
   CREATE TABLE applied_snapshots (
     snapshot_id TEXT PRIMARY KEY,
     applied_at  TEXT NOT NULL,
     changes     INTEGER NOT NULL
   );`,
  `CREATE TABLE signals (
     signal_id     TEXT PRIMARY KEY,           -- hash of type, key and episode start (signals/identity.ts)
     signal_type   TEXT NOT NULL,
     key           TEXT NOT NULL,              -- identity within the type: sorted entity URIs, or a sector, wallet, community
     entities      TEXT NOT NULL,              -- JSON array of entity URIs (or outside ids such as wallets)
     score         REAL NOT NULL,
     severity      TEXT NOT NULL CHECK (severity IN ('low', 'moderate', 'high')),
     evidence      TEXT NOT NULL,              -- JSON
     qualification TEXT NOT NULL CHECK (qualification IN ('pending', 'screened', 'qualified', 'rejected')),
     created_at    TEXT NOT NULL,              -- first detected (ISO 8601 UTC)
     updated_at    TEXT NOT NULL,              -- content or qualification last changed
     seen_at       TEXT NOT NULL,              -- last scan that found it
     episode_start TEXT NOT NULL,              -- as-of date of the scan that first found this episode
     data_as_of    TEXT NOT NULL,              -- as-of date of the newest data that found it
     ended_at      TEXT                        -- a scan on newer data no longer found it
   );
   CREATE INDEX signals_by_type ON signals (signal_type, seen_at DESC);
   CREATE INDEX signals_open ON signals (signal_type, key) WHERE ended_at IS NULL;
   CREATE INDEX signals_by_seen ON signals (seen_at DESC);
   CREATE TABLE signal_entities (
     signal_id  TEXT NOT NULL REFERENCES signals (signal_id),
     entity_uri TEXT NOT NULL,
     PRIMARY KEY (entity_uri, signal_id)
   ) WITHOUT ROWID;
   CREATE TABLE signal_moves (
     id         INTEGER PRIMARY KEY,
     signal_id  TEXT NOT NULL REFERENCES signals (signal_id),
     at         TEXT NOT NULL,
     from_state TEXT,
     to_state   TEXT NOT NULL,
     reason     TEXT NOT NULL,
     scan_id    TEXT NOT NULL
   );
   CREATE INDEX signal_moves_by_signal ON signal_moves (signal_id, id);
   CREATE TABLE scans (
     scan_id     TEXT PRIMARY KEY,
     started_at  TEXT NOT NULL,
     finished_at TEXT,
     snapshot_id TEXT NOT NULL,
     as_of       TEXT NOT NULL,
     trigger     TEXT NOT NULL,
     status      TEXT NOT NULL CHECK (status IN ('running', 'ok', 'partial', 'failed')),
     report      TEXT                          -- JSON: per-type counts, times and errors
   );
   CREATE INDEX scans_by_start ON scans (started_at DESC);`,
  `CREATE TABLE payments (
     payment_key TEXT PRIMARY KEY,             -- hash of network, asset, payer and authorization nonce
     state       TEXT NOT NULL CHECK (state IN ('verifying', 'verified', 'settling', 'settled', 'unknown', 'failed')),
     operation   TEXT NOT NULL,
     amount      TEXT NOT NULL,                -- atomic units of the asset
     asset       TEXT NOT NULL,
     network     TEXT NOT NULL,
     pay_to      TEXT NOT NULL,
     payer       TEXT,
     nonce       TEXT,
     valid_before INTEGER,                     -- unix seconds; an unknown settlement past it can no longer happen
     tx_hash     TEXT,
     error       TEXT,
     request_id  TEXT,
     created_at  TEXT NOT NULL,
     updated_at  TEXT NOT NULL
   );
   CREATE INDEX payments_unknown ON payments (state) WHERE state = 'unknown';`,
  // Scans and ingests that recover (issue 19): each run records the process doing it, so a run whose
  // process is gone is seen as interrupted, never left "running".
  `CREATE TABLE scans_v2 (
     scan_id     TEXT PRIMARY KEY,
     started_at  TEXT NOT NULL,
     finished_at TEXT,                         -- or when the interruption was noticed
     snapshot_id TEXT NOT NULL,
     as_of       TEXT NOT NULL,
     trigger     TEXT NOT NULL,
     status      TEXT NOT NULL CHECK (status IN ('running', 'ok', 'partial', 'failed', 'interrupted')),
     report      TEXT,                         -- JSON: per-type counts, times and errors
     pid         INTEGER                       -- the process running it
   );
   INSERT INTO scans_v2 SELECT scan_id, started_at, finished_at, snapshot_id, as_of, trigger, status, report, NULL FROM scans;
   DROP TABLE scans;
   ALTER TABLE scans_v2 RENAME TO scans;
   CREATE INDEX scans_by_start ON scans (started_at DESC);
   CREATE TABLE ingests (
     ingest_id   TEXT PRIMARY KEY,
     started_at  TEXT NOT NULL,
     finished_at TEXT,
     trigger     TEXT NOT NULL,
     status      TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'interrupted')),
     snapshot_id TEXT,                         -- the snapshot it published
     error       TEXT,
     pid         INTEGER NOT NULL
   );
   CREATE INDEX ingests_by_start ON ingests (started_at DESC);`,
  // Signal listings are strongest first: walked in this order they stop at their limit. Without it
  // a listing with no type filter sorted all signals (72,615 on the full data: 750 ms of the event
  // loop per request). The filters' columns are in the index: rows failing them are not read.
  `CREATE INDEX signals_by_score ON signals (score DESC, seen_at DESC, signal_id, qualification, signal_type, ended_at);`,
  // Counts by type (the signals overview) read only this index, whatever the filters: without the
  // qualification in it, counting the qualified signals of 72,615 read every row (260 ms of the
  // event loop per request; 7 ms now).
  `DROP INDEX signals_by_type;
   CREATE INDEX signals_by_type ON signals (signal_type, seen_at DESC, qualification, ended_at);`,
  // Replicas sharing one state database run each scheduled scan and ingest once (issue 20): the
  // first to claim the cron's slot runs it (store/runs.ts claimRun).
  `CREATE TABLE run_claims (
     slot       TEXT PRIMARY KEY,              -- what and when: 'scan@2026-11-26T06:00'
     holder     TEXT NOT NULL,                 -- host and process id of the replica that runs it
     claimed_at TEXT NOT NULL
   );`,
  // Replicas on several machines (issue 20): a running scan names its host (a process id means
  // nothing elsewhere) and holds a lease its server renews; a scan whose lease ran out is taken over.
  `ALTER TABLE scans ADD COLUMN host TEXT;
   ALTER TABLE scans ADD COLUMN lease_until TEXT;
   ALTER TABLE ingests ADD COLUMN host TEXT;`,
  // x402's payment-identifier (issue 22): a paid answer kept under the client's identifier, so a
  // retry with it gets the same answer without paying again (payments/idempotency.ts).
  `CREATE TABLE paid_answers (
     payment_id  TEXT PRIMARY KEY,
     request_key TEXT NOT NULL,             -- the operation and its input: a retry must ask the same
     answer      TEXT,                      -- JSON; null while the first request runs
     settlement  TEXT,                      -- JSON of the settlement (the PAYMENT-RESPONSE)
     payer       TEXT,                      -- who paid: only they get the answer again
     created_at  TEXT NOT NULL
   );`,
  // Sign-in-with-x (issue 22): which wallet paid for which resource until when, and the sign-in
  // nonces already used (a signed message is accepted once; payments/sign-in.ts).
  `CREATE TABLE siwx_access (
     resource   TEXT NOT NULL,              -- the paid resource's path (payments over HTTP)
     payer      TEXT NOT NULL,              -- the paying wallet (EVM lowercased, Solana as is)
     paid_until TEXT NOT NULL,              -- ISO time: signing in grants access until then
     PRIMARY KEY (resource, payer)
   );
   CREATE TABLE siwx_nonces (
     nonce      TEXT PRIMARY KEY,           -- the wallet and its message's nonce
     expires_at TEXT NOT NULL                -- past it the message is too old anyway: pruned
   );
   CREATE INDEX siwx_nonces_by_expiry ON siwx_nonces (expires_at);`,
];

export function openSqliteState(path: string): SqliteState {
  let db: Database | undefined;
  try {
    db = new Database(path, { create: true, strict: true });
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;");
    migrate(db);
    // Planner statistics for tables that grew since the last open (a no-op when none did).
    db.exec("PRAGMA optimize = 0x10002;");
    return new SqliteState(db);
  } catch (error) {
    db?.close();
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

function migrate(db: Database): void {
  const row = db.query<{ user_version: number }, []>("PRAGMA user_version").get();
  const done = row?.user_version ?? 0;
  for (let step = done; step < MIGRATIONS.length; step++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[step]!);
      db.exec(`PRAGMA user_version = ${step + 1}`);
    })();
  }
}
