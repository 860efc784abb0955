/**
 * @module store/state-db
 * The transactional store for state that outlives a snapshot: the change log now; signals, scans and
 * used payments in later migrations. bun:sqlite in WAL mode: readers never wait for the writer, and
 * every write is durable when its transaction commits.
 */
import { Database } from "bun:sqlite";

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
];

export type StateDb = Database;

export function openStateDb(path: string): StateDb {
  const db = new Database(path, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;");
  migrate(db);
  return db;
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
