/**
 * The formats a data directory records (store/formats.ts) on real files and real ckg processes: a
 * directory, snapshot, search index or state store written by a newer ckg is refused by every command
 * with exit code 4 and a message naming both formats, leaving the directory as it was; an older state
 * database is migrated in one transaction after a copy of it is kept, and a migration that fails
 * leaves it as it was.
 */
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, linkSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXIT } from "../../src/exit-codes.ts";
import { selfCommand } from "../../src/runtime.ts";
import { currentSnapshotId, dataDir, recordFormats, snapshotPath } from "../../src/store/data-dir.ts";
import { NewerFormatError, SEARCH_FORMAT, SNAPSHOT_FORMAT, STATE_FORMATS } from "../../src/store/formats.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { MIGRATIONS } from "../../src/store/migrations-sqlite.ts";
import { openPostgresState } from "../../src/store/state-postgres.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { VERSION } from "../../src/version.ts";
import { fixtureDataDir } from "../support/fixture.ts";
import { postgresEngine } from "../support/state-engines.ts";
import { tempDir } from "../support/temp-dirs.ts";

function ckg(...args: string[]) {
  const result = Bun.spawnSync(selfCommand(...args), { env: { ...process.env, CKG_LOG_LEVEL: "silent" } });
  return { code: result.exitCode, err: result.stderr.toString() };
}

/** The fixture's snapshot hard-linked into a fresh directory (files replaced here are unlinked first, so the fixture never changes). */
async function copyOfFixture(): Promise<{ root: string; manifestPath: string }> {
  const source = dataDir(await fixtureDataDir());
  const id = currentSnapshotId(source)!;
  const root = tempDir("ckg-formats-");
  const linkTree = (from: string, to: string) => {
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from)) {
      if (statSync(join(from, name)).isDirectory()) linkTree(join(from, name), join(to, name));
      else linkSync(join(from, name), join(to, name));
    }
  };
  linkTree(snapshotPath(source, id), snapshotPath(dataDir(root), id));
  writeFileSync(dataDir(root).current, `${id}\n`);
  return { root, manifestPath: join(snapshotPath(dataDir(root), id), "manifest.json") };
}

function replaceJson(path: string, change: (value: Record<string, any>) => void): void {
  const value = JSON.parse(readFileSync(path, "utf8"));
  change(value);
  rmSync(path); // a hard link: write a new file, not into the fixture's
  writeFileSync(path, JSON.stringify(value));
}

/** A directory listing with sizes and times: "left as it was" compares these. */
function listing(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else out.push(`${path.slice(root.length)} ${stat.size} ${stat.mtimeMs}`);
    }
  };
  walk(root);
  return out;
}

describe("a data directory written by a newer ckg", () => {
  const newer: [string, (copy: { root: string; manifestPath: string }) => void, string][] = [
    ["its layout (format.json data_dir)", ({ root }) => writeRecord(root, { data_dir: 2 }), "format is 2"],
    ["its snapshots (format.json)", ({ root }) => writeRecord(root, { snapshot: SNAPSHOT_FORMAT + 1 }), `format is ${SNAPSHOT_FORMAT + 1}`],
    ["its search index (format.json)", ({ root }) => writeRecord(root, { search: SEARCH_FORMAT + 1 }), `format is ${SEARCH_FORMAT + 1}`],
    ["its state store (format.json)", ({ root }) => writeRecord(root, { state: { sqlite: STATE_FORMATS.sqlite + 1, postgresql: STATE_FORMATS.postgresql } }), `format is ${STATE_FORMATS.sqlite + 1}`],
    ["the live snapshot's manifest format", ({ manifestPath }) => replaceJson(manifestPath, (m) => (m.format = 2)), "format is 2"],
    ["the live snapshot's search index format", ({ manifestPath }) => replaceJson(manifestPath, (m) => (m.search.format = 2)), "format is 2"],
  ];

  function writeRecord(root: string, change: Record<string, unknown>) {
    recordFormats(dataDir(root));
    replaceJson(dataDir(root).formats, (record) => Object.assign(record, change, { written_by: "9.9.9" }));
  }

  test.each(newer)("%s: every command refuses it with exit 4, names both formats and changes nothing", async (_, make, says) => {
    const copy = await copyOfFixture();
    make(copy);
    const before = listing(copy.root);
    for (const args of [["stats"], ["sparql", "ASK {}"], ["export", join(copy.root, "..", "never-written")], ["scan"], ["build", "--scale", "1000"], ["serve", "--port", "0"]]) {
      const { code, err } = ckg(...args, "--data-dir", copy.root);
      expect(code, `ckg ${args[0]}: ${err}`).toBe(EXIT.newerFormat);
      expect(err).toContain("was written by a newer ckg");
      expect(err).toContain(says);
      expect(err).toContain(`this ckg (${VERSION}) reads formats up to`);
    }
    expect(listing(copy.root)).toEqual(before);
  }, 120_000);

  test("readManifest says the snapshot is newer instead of failing its schema", async () => {
    const copy = await copyOfFixture();
    replaceJson(copy.manifestPath, (m) => Object.assign(m, { format: 2, renamed_field: true }));
    expect(() => readManifest(join(copy.manifestPath, ".."))).toThrow(NewerFormatError);
  });

  test("a state database migrated by a newer ckg is refused untouched: by the store, and by `ckg scan` with exit 4", async () => {
    const copy = await copyOfFixture();
    const path = dataDir(copy.root).stateDb;
    const db = new Database(path, { create: true });
    db.exec(`PRAGMA user_version = ${MIGRATIONS.length + 1}; CREATE TABLE from_the_future (x INTEGER);`);
    db.close();
    const before = readFileSync(path);
    expect(() => openSqliteState(path)).toThrow(NewerFormatError);
    const { code, err } = ckg("scan", "--data-dir", copy.root);
    expect(code).toBe(EXIT.newerFormat);
    expect(err).toContain(`the state database ${path} was written by a newer ckg: its format is ${MIGRATIONS.length + 1}`);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(existsSync(dataDir(copy.root).formats)).toBe(false);
  }, 60_000);
});

describe("an older state database", () => {
  /** A database as a ckg that knew only the first `steps` steps left it, with a row in its change log. */
  function olderDatabase(steps: number): string {
    const path = join(tempDir("ckg-state-old-"), "state.sqlite");
    const db = new Database(path, { create: true });
    for (const step of MIGRATIONS.slice(0, steps)) db.exec(step);
    db.exec(`PRAGMA user_version = ${steps}`);
    db.exec("INSERT INTO changes (ts, entity_uri, entity_name, entity_type, operation, fields, source, snapshot_id) VALUES ('2026-01-01T00:00:00Z', 'u', 'n', 'Token', 'CREATE', '{}', 's', 'x')");
    db.close();
    return path;
  }
  /** One number read from the database file, opened read-only for that alone. */
  const scalar = (path: string, sql: string) => {
    const db = new Database(path, { readonly: true });
    try {
      return db.query<{ n: number }, []>(sql).get()!.n;
    } finally {
      db.close();
    }
  };
  const version = (path: string) => scalar(path, "SELECT user_version AS n FROM pragma_user_version");
  const changes = (path: string) => scalar(path, "SELECT count(*) AS n FROM changes");

  test("is brought to this ckg's steps, its rows kept, and a copy of it as it was is kept beside it", async () => {
    const from = MIGRATIONS.length - 1;
    const path = olderDatabase(from);
    const state = openSqliteState(path);
    await state.close();
    expect(version(path)).toBe(MIGRATIONS.length);
    expect(changes(path)).toBe(1);
    expect(version(`${path}.v${from}`)).toBe(from);
    expect(changes(`${path}.v${from}`)).toBe(1);
  });

  test("whose migration fails is left as it was: no step of the failed run stays, and the copy is there", async () => {
    const from = MIGRATIONS.length - 1;
    const path = olderDatabase(from);
    // The last step makes signal_events, then subscriptions, ...: a table of that name already there fails it half-way.
    const db = new Database(path);
    db.exec("CREATE TABLE subscriptions (in_the_way INTEGER)");
    db.close();
    expect(MIGRATIONS[from]).toContain("CREATE TABLE subscriptions");
    expect(() => openSqliteState(path)).toThrow(`cannot be opened: bringing it from step ${from} to ${MIGRATIONS.length} failed, and it was left as it was; a copy of it is at ${path}.v${from}: table subscriptions already exists`);
    expect(version(path)).toBe(from);
    expect(changes(path)).toBe(1);
    const after = new Database(path, { readonly: true });
    const tables = after.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((t) => t.name);
    after.close();
    expect(tables).not.toContain("signal_events"); // made by the failed step before it failed: rolled back
    expect(version(`${path}.v${from}`)).toBe(from);
  });
});

const postgres = postgresEngine();
describe.skipIf(!postgres.available)("a PostgreSQL state store migrated by a newer ckg", () => {
  afterAll(() => postgres.stop());

  test("is refused untouched, naming both versions", async () => {
    const url = await postgres.freshUrl();
    await (await openPostgresState(url)).close(); // this ckg's steps
    const admin = new SQL(url, { max: 1 });
    const steps = async () => (await admin.unsafe("SELECT array_agg(version ORDER BY version) AS v FROM ckg.schema_version"))[0].v;
    try {
      await admin.unsafe(`INSERT INTO ckg.schema_version VALUES (${STATE_FORMATS.postgresql + 1}); CREATE TABLE ckg.from_the_future (x INTEGER)`);
      const before = await steps();
      const error = await openPostgresState(url).then(() => null, (e: Error) => e);
      expect(error).toBeInstanceOf(NewerFormatError);
      expect(error!.message).toContain(`its format is ${STATE_FORMATS.postgresql + 1}, and this ckg (${VERSION}) reads formats up to ${STATE_FORMATS.postgresql}`);
      expect(await steps()).toEqual(before);
    } finally {
      await admin.close();
    }
  }, 60_000);
});
