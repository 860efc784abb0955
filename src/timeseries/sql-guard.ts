/**
 * @module timeseries/sql-guard
 * The parse-level wall of the read-only SQL endpoint. DuckDB itself parses the text (so the guard
 * and the engine cannot disagree about what a statement is):
 *   1. exactly one statement, and it is a SELECT (WITH, UNION and subqueries are SELECTs):
 *      json_serialize_sql serializes SELECT statements only,
 *   2. its syntax tree names only published tables, CTEs of the query, and the generator table
 *      functions; no function that reads files, reveals settings or the host.
 * The engine's own settings are the second wall (no file or network access outside the published
 * Parquet files, configuration locked): one missed case here does not open the machine.
 */
import type { DuckDBConnection, DuckDBPreparedStatement } from "@duckdb/node-api";
import { CkgError } from "../errors.ts";
import { cteNames, walk } from "./sql-tree.ts";

/** Table functions a query may call: they make rows, they read nothing. */
const ALLOWED_TABLE_FUNCTIONS = new Set(["generate_series", "range", "unnest"]);

/** Scalar functions refused anywhere: they read files, settings, variables or the host, or run SQL text. */
const BLOCKED_FUNCTION = /^(read_|duckdb_|pragma_|sqlite_|parquet_|iceberg_|delta_|glob$|getenv$|current_setting$|getvariable$|setvariable$|sniff_csv$|query$|query_table$|load_|which_secret$|enable_|disable_|checkpoint$|system$|sql_auto_complete$|icu_|test_|repository$|file_)/i;

export interface CheckedQuery {
  sql: string;
}

/** A query the guard passed: the text to run and its syntax tree (json_serialize_sql's statements). */
export interface GuardedQuery extends CheckedQuery {
  statements: unknown[];
}

/** Checks a query; throws 400 invalid_sql or 403 read_only with a reason a person can act on. */
export async function checkQuery(connection: DuckDBConnection, sql: string, published: ReadonlySet<string>): Promise<GuardedQuery> {
  // One round trip: json_serialize_sql parses the text, and serializes SELECT statements only.
  const serialized = await serialize(connection, sql);
  const tree = JSON.parse(serialized) as { error: boolean; error_type?: string; error_message?: string; statements?: unknown[] };
  if (tree.error && tree.error_type === "parser") {
    // Its message has no position; the statement splitter reports the same error with line and caret.
    try {
      await connection.extractStatements(sql);
    } catch (error) {
      throw sqlError((error as Error).message);
    }
    throw sqlError(`Parser Error: ${tree.error_message ?? "syntax error"}`);
  }
  if (tree.error) {
    throw new CkgError("read_only", "Only SELECT queries are allowed (WITH, UNION and subqueries included); nothing can be changed, loaded or set.", {
      details: { reason: "not_a_select" },
    });
  }
  const count = tree.statements?.length ?? 0;
  if (count === 0) throw new CkgError("invalid_sql", "The query is empty; send one SELECT statement.", { details: {} });
  if (count > 1) {
    throw new CkgError("read_only", `The body holds ${count} statements; send exactly one SELECT.`, { details: { statements: count } });
  }
  const ctes = cteNames(tree.statements);
  walk(tree.statements, (node) => {
    if (node.type === "BASE_TABLE") {
      const table = String(node.table_name ?? "").toLowerCase();
      const schema = String(node.schema_name ?? "").toLowerCase();
      const catalog = String(node.catalog_name ?? "").toLowerCase();
      const local = (schema === "" || schema === "main") && catalog === "";
      if (!(local && (published.has(table) || ctes.has(table)))) {
        throw new CkgError("read_only", `Table ${[catalog, schema, node.table_name].filter(Boolean).join(".")} is not published; query the ts_* and graph_* tables (ts_catalog lists them).`, {
          details: { table: node.table_name },
        });
      }
    }
    if (node.type === "SHOW_REF") {
      throw new CkgError("read_only", "DESCRIBE, SHOW and SUMMARIZE are not available; ts_catalog lists every published column.", {
        details: { reason: "show" },
      });
    }
    if (node.type === "TABLE_FUNCTION") {
      const name = String((node.function as { function_name?: string } | undefined)?.function_name ?? "").toLowerCase();
      if (!ALLOWED_TABLE_FUNCTIONS.has(name)) {
        throw new CkgError("read_only", `Table function ${name}() is not allowed; only ${[...ALLOWED_TABLE_FUNCTIONS].join(", ")} may make rows.`, {
          details: { function: name },
        });
      }
    }
    if (node.class === "FUNCTION" && typeof node.function_name === "string" && BLOCKED_FUNCTION.test(node.function_name)) {
      throw new CkgError("read_only", `Function ${node.function_name}() is not allowed: it reads files, settings or the host.`, {
        details: { function: node.function_name },
      });
    }
  });

  // The store may wrap the query (SELECT * FROM (...) AS answer); a closing semicolon cannot go inside.
  // Then DuckDB writes the statement back from its own syntax tree, without the semicolon, and the
  // tree is read again for that text (its positions are what the entity route splices at).
  if (/;(\s|--[^\n]*|\/\*[\s\S]*?\*\/)*$/.test(sql)) {
    const text = ((await connection.runAndReadAll(`SELECT json_deserialize_sql(${literal(serialized)})`)).getRowsJson()[0]![0] as string).replace(/;\s*$/, "");
    return { sql: text, statements: (JSON.parse(await serialize(connection, text)) as { statements: unknown[] }).statements };
  }
  return { sql, statements: tree.statements! };
}

/** The serializer, prepared once per connection (a third of a millisecond saved on every query). */
const serializers = new WeakMap<DuckDBConnection, DuckDBPreparedStatement>();

async function serialize(connection: DuckDBConnection, sql: string): Promise<string> {
  let statement = serializers.get(connection);
  if (!statement) serializers.set(connection, (statement = await connection.prepare("SELECT json_serialize_sql($1::VARCHAR)")));
  statement.bindVarchar(1, sql);
  return (await statement.runAndReadAll()).getRowsJson()[0]![0] as string;
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * DuckDB's error text as a 400: "Parser Error: syntax error at or near "=" ... LINE 2: ... ^".
 * The line and column come from its caret line when the echoed line is not shortened.
 */
export function sqlError(message: string): CkgError {
  const text = message.replace(/^Failed to extract statements: /, "");
  const [head] = text.split("\n");
  const match = /LINE (\d+): (.*)\n( *)\^/.exec(text);
  const details: Record<string, unknown> = { engine: head };
  if (match) {
    details.line = Number(match[1]);
    if (!match[2]!.startsWith("...")) details.column = match[3]!.length - `LINE ${match[1]}: `.length + 1;
  }
  const where = details.line ? ` (line ${details.line}${details.column ? `, column ${details.column}` : ""})` : "";
  return new CkgError("invalid_sql", `${head}${where}.`, { details });
}
