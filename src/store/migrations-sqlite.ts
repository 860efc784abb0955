/**
 * @module store/migrations-sqlite
 * The SQLite state store's schema, step by step (store/state-sqlite.ts runs the steps a database has not had).
 */
/** Append-only list of schema steps; the database's user_version says how many have run. */
export const MIGRATIONS: string[] = [
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
  // Scans and ingests that recover: each run records the process doing it, so a run whose
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
  // Replicas sharing one state database run each scheduled scan and ingest once: the
  // first to claim the cron's slot runs it (store/runs.ts claimRun).
  `CREATE TABLE run_claims (
     slot       TEXT PRIMARY KEY,              -- what and when: 'scan@2026-11-26T06:00'
     holder     TEXT NOT NULL,                 -- host and process id of the replica that runs it
     claimed_at TEXT NOT NULL
   );`,
  // Replicas on several machines: a running scan names its host (a process id means
  // nothing elsewhere) and holds a lease its server renews; a scan whose lease ran out is taken over.
  `ALTER TABLE scans ADD COLUMN host TEXT;
   ALTER TABLE scans ADD COLUMN lease_until TEXT;
   ALTER TABLE ingests ADD COLUMN host TEXT;`,
  // x402's payment-identifier: a paid answer kept under the client's identifier, so a
  // retry with it gets the same answer without paying again (payments/idempotency.ts).
  `CREATE TABLE paid_answers (
     payment_id  TEXT PRIMARY KEY,
     request_key TEXT NOT NULL,             -- the operation and its input: a retry must ask the same
     answer      TEXT,                      -- JSON; null while the first request runs
     settlement  TEXT,                      -- JSON of the settlement (the PAYMENT-RESPONSE)
     payer       TEXT,                      -- who paid: only they get the answer again
     created_at  TEXT NOT NULL
   );`,
  // Sign-in-with-x: which wallet paid for which resource until when, and the sign-in
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
  // Push delivery: the signal events outbox (written in the scan's transaction; the
  // changes table is the graph's), subscriptions, where fan-out stands, and each webhook delivery
  // with its lease (one replica at a time holds it) and retry schedule.
  `CREATE TABLE signal_events (
     id            INTEGER PRIMARY KEY,        -- the cursor's first half
     at            TEXT NOT NULL,              -- when the scan committed
     type          TEXT NOT NULL CHECK (type IN ('signal.new', 'signal.updated', 'signal.ended')),
     signal_id     TEXT NOT NULL,
     signal_type   TEXT NOT NULL,
     entities      TEXT NOT NULL,              -- JSON array of entity URIs
     score         REAL NOT NULL,
     severity      TEXT NOT NULL,
     qualification TEXT NOT NULL,
     data_as_of    TEXT NOT NULL,
     scan_id       TEXT NOT NULL
   );
   CREATE INDEX signal_events_by_at ON signal_events (at);
   CREATE TABLE subscriptions (
     subscription_id TEXT PRIMARY KEY,
     secrets         TEXT NOT NULL,            -- JSON array, newest first: webhooks are signed with each (rotation)
     filters         TEXT NOT NULL,            -- JSON (push/filters.ts)
     webhook_url     TEXT,
     stream          INTEGER NOT NULL,         -- 1: readable on /api/events
     status          TEXT NOT NULL CHECK (status IN ('active', 'disabled', 'deleted')),
     status_reason   TEXT,
     created_at      TEXT NOT NULL,
     expires_at      TEXT NOT NULL,            -- the paid period's end: nothing is delivered past it
     start_cursor    TEXT NOT NULL,            -- events after it are the subscription's
     payer           TEXT
   );
   CREATE TABLE push_dispatch (
     name          TEXT PRIMARY KEY,           -- 'webhooks': one row
     signal_event  INTEGER NOT NULL,           -- fanned out to deliveries up to here
     change        INTEGER NOT NULL
   );
   CREATE TABLE deliveries (
     subscription_id TEXT NOT NULL,
     event           TEXT NOT NULL,            -- 's<id>' or 'c<id>': with the subscription, the webhook-id
     created_at      TEXT NOT NULL,
     next_at         TEXT NOT NULL,            -- when it is due (again)
     attempts        INTEGER NOT NULL,
     status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
     lease_holder    TEXT,
     lease_until     TEXT,
     last_status     INTEGER,
     last_error      TEXT,
     finished_at     TEXT,
     PRIMARY KEY (subscription_id, event)
   );
   CREATE INDEX deliveries_due ON deliveries (next_at) WHERE status = 'pending';`,
];
