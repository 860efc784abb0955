/**
 * @module backup/state-postgres
 * A PostgreSQL state in a backup: every table of the `ckg` schema read in one REPEATABLE READ, READ
 * ONLY transaction (one instant for all of them, while replicas go on writing), written as JSON
 * Lines, one file per table, under state/ in the backup. No pg_dump: it is not on every machine
 * that runs ckg, and its version must match the server's; rows in ckg's own terms restore into any
 * PostgreSQL that ckg can migrate. A restore brings the schema to this ckg's version (the same
 * migrations a start runs), loads every table in one transaction, and moves the identity columns'
 * sequences past the ids it loaded.
 */
import { SQL } from "bun";
import { createWriteStream, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { openPostgresState } from "../store/state-postgres.ts";
import { insertRows, type SqlValue } from "../store/state.ts";
import { BackupError, type BackupManifest, STATE_ROWS_DIR } from "./manifest.ts";

/** Tables other tables refer to: loaded first. */
const FIRST = ["signals"];

async function tablesOf(sql: Pick<SQL, "unsafe">): Promise<string[]> {
  const rows = (await sql.unsafe("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'ckg' AND table_type = 'BASE TABLE' AND table_name <> 'schema_version' ORDER BY table_name")) as { t: string }[];
  return rows.map((r) => r.t).sort((a, b) => Number(FIRST.includes(b)) - Number(FIRST.includes(a)));
}

/** Writes the state's rows into `<into>/state/<table>.jsonl`; returns what backup.json records of it. */
export async function dumpPostgresState(url: string, into: string): Promise<BackupManifest["state"]> {
  const sql = new SQL(url, { max: 1 });
  try {
    await mkdir(join(into, STATE_ROWS_DIR));
    return await sql.begin("isolation level repeatable read read only", async (tx) => {
      const [version] = (await tx.unsafe("SELECT coalesce(max(version), 0) AS v FROM ckg.schema_version")) as { v: number }[];
      const tables: Record<string, number> = {};
      for (const table of await tablesOf(tx)) {
        const rows = (await tx.unsafe(`SELECT * FROM ckg."${table}"`)) as Record<string, unknown>[];
        await writeLines(join(into, STATE_ROWS_DIR, `${table}.jsonl`), rows);
        tables[table] = rows.length;
      }
      return { engine: "postgresql" as const, schema_version: Number(version!.v), tables };
    });
  } finally {
    await sql.close();
  }
}

async function writeLines(path: string, rows: readonly Record<string, unknown>[]): Promise<void> {
  const out = createWriteStream(path);
  const done = new Promise<void>((resolve, reject) => {
    out.on("finish", resolve);
    out.on("error", reject);
  });
  // BIGINT columns come back as bigint or text; dates as Date: both kept as text, which PostgreSQL casts back.
  const replacer = (_: string, value: unknown) => (typeof value === "bigint" ? value.toString() : value);
  for (const row of rows) if (!out.write(`${JSON.stringify(row, replacer)}\n`)) await new Promise((resolve) => out.once("drain", resolve));
  out.end();
  await done;
}

/** Loads the backup's rows into the PostgreSQL state at `url`, which must hold none. */
export async function loadPostgresState(url: string, backup: string, manifest: BackupManifest): Promise<void> {
  // The schema at this ckg's version, as a start would make it (refusing a newer one).
  await (await openPostgresState(url)).close();
  const sql = new SQL(url, { max: 1 });
  try {
    await sql.begin(async (tx) => {
      const tables = await tablesOf(tx);
      for (const table of tables) {
        const [row] = (await tx.unsafe(`SELECT count(*)::int AS n FROM ckg."${table}"`)) as { n: number }[];
        if (row!.n > 0) throw new BackupError(`the PostgreSQL state at CKG_STATE_URL already holds data (${row!.n} rows in ${table}): restore into an empty database (nothing was changed)`);
      }
      const ordered = [...FIRST.filter((t) => t in manifest.state.tables), ...Object.keys(manifest.state.tables).filter((t) => !FIRST.includes(t))];
      for (const table of ordered) {
        if (!tables.includes(table)) throw new BackupError(`the backup's table ${table} is not in this ckg's schema; nothing was changed`);
        const rows = readFileSync(join(backup, STATE_ROWS_DIR, `${table}.jsonl`), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, SqlValue>);
        if (rows.length === 0) continue;
        const columns = Object.keys(rows[0]!);
        for (const { sql: text, params } of insertRows(`ckg."${table}"`, columns.map((c) => `"${c}"`), rows.map((r) => columns.map((c) => r[c] ?? null)))) {
          let n = 0;
          await tx.unsafe(text.replace(/\?/g, () => `$${++n}`), params as SqlValue[]);
        }
      }
      // Identity columns: the next id comes after the ids loaded.
      const identities = (await tx.unsafe("SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = 'ckg' AND is_identity = 'YES'")) as { t: string; c: string }[];
      for (const { t, c } of identities) {
        await tx.unsafe(`SELECT setval(pg_get_serial_sequence('ckg."${t}"', '${c}'), coalesce((SELECT max("${c}") FROM ckg."${t}"), 0) + 1, false)`);
      }
    });
  } finally {
    await sql.close();
  }
}
