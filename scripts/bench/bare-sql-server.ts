/**
 * The comparison points beside the time-series benchmark's HTTP figure: a bare Bun.serve in its own
 * process taking the same `POST {sql_query}` body and answering `{status, data, count}` JSON, with
 *   postgres <url>       the query run on PostgreSQL through Bun's client (PostgreSQL over HTTP),
 *   duckdb <file>        the query run on the query database in this process, read-only, with the
 *                        server's engine settings (the floor of any HTTP server in front of DuckDB),
 *   canned <json file>   no engine: the file's bytes returned as they are (the bare HTTP hop).
 * No framework, validation, guard, time limit or logging. Not a product path. Prints its port.
 *
 * `bun scripts/bench/bare-sql-server.ts postgres|duckdb|canned <target>`
 */
import { readFileSync } from "node:fs";
import { SETTINGS } from "../../src/config/settings.ts";
import { openDuck } from "../../src/store/duckdb.ts";

const [engine, target] = process.argv.slice(2);
let run: (text: string) => Promise<unknown[]>;
let canned: string | undefined;
if (engine === "postgres") {
  const sql = new Bun.SQL(target!);
  run = async (text) => [...(await sql.unsafe(text))];
} else if (engine === "duckdb") {
  const duck = await openDuck({ path: target!, memoryLimit: SETTINGS.sql_memory_limit.default, settings: { access_mode: "READ_ONLY" } });
  const connection = await duck.connect();
  run = async (text) => (await connection.runAndReadAll(text)).getRowObjectsJson();
} else if (engine === "canned") {
  canned = readFileSync(target!, "utf8");
  run = async () => [];
} else {
  throw new Error(`engine: postgres, duckdb or canned, not ${engine}`);
}

const headers = { "content-type": "application/json" };
const server = Bun.serve({
  port: 0,
  async fetch(request) {
    const { sql_query } = (await request.json()) as { sql_query: string };
    if (canned !== undefined) return new Response(canned, { headers });
    try {
      const data = await run(sql_query);
      return new Response(JSON.stringify({ status: "success", data, count: data.length }, (_key, value) => (typeof value === "bigint" ? String(value) : value)), {
        headers,
      });
    } catch (error) {
      return new Response(JSON.stringify({ status: "error", message: (error as Error).message }), { status: 400, headers });
    }
  },
});
console.log(server.port);
process.on("SIGTERM", () => process.exit(0));
