/**
 * The two engines of the state store (src/store/state.ts), for tests that run the same assertions
 * on both: SQLite in a data directory, and a real PostgreSQL 15 from Debian (one server per test
 * file, a fresh database per store). PostgreSQL's absence skips its half with a warning, or fails
 * under CKG_REQUIRE_ENGINES=1 (test/support/engines.ts; `.ci/run` installs it).
 */
import { join } from "node:path";
import { SQL } from "bun";
import { openPostgresState } from "../../src/store/state-postgres.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import type { StateStore } from "../../src/store/state.ts";
import { engineAvailable } from "./engines.ts";
import { type Postgres, postgresAvailable, startPostgres } from "./postgres.ts";

export interface StateEngine {
  name: "SQLite" | "PostgreSQL";
  available: boolean;
  /** A fresh, empty store; for SQLite, the state database of the data directory `root`. */
  open(root: string): Promise<StateStore>;
  /** The URL of a fresh database (PostgreSQL only): for ckg processes given CKG_STATE_URL. */
  freshUrl(): Promise<string>;
  /** The PostgreSQL server (started by the first freshUrl or open). */
  server(): Promise<Postgres>;
  /** Stops what the engine started (the PostgreSQL server). */
  stop(): Promise<void>;
}

function sqliteEngine(): StateEngine {
  return {
    name: "SQLite",
    available: true,
    async open(root) {
      return openSqliteState(join(root, "state.sqlite"));
    },
    freshUrl() {
      throw new Error("SQLite has no URL: its store is the data directory's state.sqlite");
    },
    server() {
      throw new Error("SQLite has no server");
    },
    async stop() {},
  };
}

export function postgresEngine(): StateEngine {
  const pgAvailable = engineAvailable("postgresql-15", postgresAvailable(), "the tests on PostgreSQL", "apt-get install postgresql-15; .ci/run installs it");
  let server: Promise<Postgres> | undefined;
  let n = 0;
  const freshUrl = async () => {
    const pg = await (server ??= startPostgres());
    const name = `ckg_test_${++n}`;
    const admin = new SQL(pg.url, { max: 1 });
    try {
      await admin.unsafe(`CREATE DATABASE ${name}`);
    } finally {
      await admin.close();
    }
    return pg.url.replace(/\/postgres$/, `/${name}`);
  };
  return {
    name: "PostgreSQL",
    available: pgAvailable,
    freshUrl,
    server: () => (server ??= startPostgres()),
    async open() {
      return openPostgresState(await freshUrl());
    },
    async stop() {
      if (server) await (await server).stop();
    },
  };
}

/** Both engines, PostgreSQL skipped where it is not installed. */
export function stateEngines(): StateEngine[] {
  return [sqliteEngine(), postgresEngine()];
}
