/**
 * @module graph/change-log
 * The changes feed: every CREATE and UPDATE of the graph, kept in the state store. A snapshot
 * brings its changes (changes.parquet); they are appended once, when the snapshot first goes live.
 * Pages are read newest first by keyset (timestamp, id) with an opaque cursor, never by OFFSET.
 */
import type { DuckDBInstance } from "@duckdb/node-api";
import { z } from "zod";
import { CkgError } from "../errors.ts";
import type { NameIndex } from "../entities/name-index.ts";
import { sqlString, withConnection } from "../store/duckdb.ts";
import { type SqlValue, type StateStore, insertRows } from "../store/state.ts";
import { isoSeconds } from "../time.ts";

export const changeQuerySchema = z.strictObject({
  since_hours: z.number().min(1).max(8760).default(72),
  limit: z.number().int().min(1).max(1000).default(100),
  entity_uri: z.string().min(1).max(2000).optional(),
  operation: z.enum(["CREATE", "UPDATE"]).optional(),
  summary: z.boolean().default(false),
  cursor: z.string().min(1).max(512).optional().describe("next_cursor of the previous page"),
});
export type ChangeQuery = z.output<typeof changeQuerySchema>;

export const changeSchema = z.object({
  id: z.number().int(),
  entity_uri: z.string(),
  entity_name: z.string(),
  entity_type: z.string(),
  operation: z.enum(["CREATE", "UPDATE"]),
  changed_fields: z.array(z.string()),
  timestamp: z.string(),
  source: z.string(),
});

export const changesAnswerSchema = z.union([
  z.object({
    status: z.literal("success"),
    since: z.string(),
    changes: z.array(changeSchema),
    count: z.number().int(),
    next_cursor: z.string().nullable(),
  }),
  z.object({
    status: z.literal("success"),
    since: z.string(),
    summary: z.object({
      total: z.number().int(),
      by_operation: z.record(z.string(), z.number().int()),
      by_entity_type: z.record(z.string(), z.record(z.string(), z.number().int())),
    }),
  }),
]);
export type ChangesAnswer = z.infer<typeof changesAnswerSchema>;

/**
 * Appends a snapshot's changes once; returns how many were added (0 when already applied). The
 * snapshot's row in applied_snapshots is claimed first, in the same transaction: replicas sharing a
 * PostgreSQL store that switch to one snapshot together append its changes once. These rows are
 * the outbox of graph change events (push/events.ts): committed here, they are delivered.
 */
export async function applySnapshotChanges(
  state: StateStore,
  duck: DuckDBInstance,
  snapshot: { id: string; changesFile: string },
  names: NameIndex,
): Promise<number> {
  if (await state.get("SELECT 1 AS one FROM applied_snapshots WHERE snapshot_id = ?", [snapshot.id])) return 0;
  const rows = await withConnection(duck, async (c) => {
    const reader = await c.runAndReadAll(
      `SELECT strftime(ts, '%Y-%m-%dT%H:%M:%SZ') AS ts, entity_id, operation, fields, source FROM read_parquet(${sqlString(snapshot.changesFile)}) ORDER BY ts, entity_id`,
    );
    return reader.getRowObjectsJS() as { ts: string; entity_id: string; operation: string; fields: string[]; source: string }[];
  });
  const values: SqlValue[][] = [];
  for (const row of rows) {
    const node = names.get(row.entity_id);
    if (node) values.push([row.ts, node.uri, node.name, node.type, row.operation, JSON.stringify(row.fields), row.source, snapshot.id]);
  }
  return state.transaction(async (tx) => {
    const claimed = await tx.run("INSERT INTO applied_snapshots (snapshot_id, applied_at, changes) VALUES (?, ?, ?) ON CONFLICT (snapshot_id) DO NOTHING", [
      snapshot.id,
      new Date().toISOString(),
      values.length,
    ]);
    if (claimed === 0) return 0;
    await tx.batch(insertRows("changes", ["ts", "entity_uri", "entity_name", "entity_type", "operation", "fields", "source", "snapshot_id"], values));
    return values.length;
    // Under a lock, so ids are taken in commit order across replicas: the event stream reads the
    // changes by id as the outbox of graph events (push/feed.ts), and must never pass over one.
  }, { lock: "changes" }).then(async (added) => {
    if (added > 0) await state.analyze(["changes"]);
    return added;
  });
}

interface Cursor {
  ts: string;
  id: number;
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.ts, cursor.id])).toString("base64url");
}

function decodeCursor(text: string): Cursor {
  try {
    const [ts, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as [unknown, unknown];
    if (typeof ts === "string" && Number.isInteger(id)) return { ts, id: id as number };
  } catch {
    // fall through to the error below
  }
  throw new CkgError("invalid_request", "cursor is not one this server issued; pass next_cursor from the previous page unchanged.", {
    details: { field: "cursor" },
  });
}

export async function queryChanges(state: StateStore, query: ChangeQuery, now = new Date()): Promise<ChangesAnswer> {
  const since = isoSeconds(new Date(now.getTime() - query.since_hours * 3_600_000));
  const where = ["ts >= ?"];
  const params: SqlValue[] = [since];
  if (query.entity_uri) {
    where.push("entity_uri = ?");
    params.push(query.entity_uri);
  }
  if (query.operation) {
    where.push("operation = ?");
    params.push(query.operation);
  }

  if (query.summary) {
    const rows = await state.all<{ operation: string; entity_type: string; n: number }>(
      `SELECT operation, entity_type, CAST(count(*) AS INTEGER) AS n FROM changes WHERE ${where.join(" AND ")} GROUP BY operation, entity_type`,
      params,
    );
    const byOperation: Record<string, number> = { CREATE: 0, UPDATE: 0 };
    const byType: Record<string, Record<string, number>> = {};
    let total = 0;
    for (const row of rows) {
      total += row.n;
      byOperation[row.operation] = (byOperation[row.operation] ?? 0) + row.n;
      const perType = (byType[row.entity_type] ??= { CREATE: 0, UPDATE: 0 });
      perType[row.operation] = (perType[row.operation] ?? 0) + row.n;
    }
    return { status: "success", since, summary: { total, by_operation: byOperation, by_entity_type: byType } };
  }

  if (query.cursor) {
    const cursor = decodeCursor(query.cursor);
    where.push("(ts, id) < (?, ?)");
    params.push(cursor.ts, cursor.id);
  }
  const rows = await state.all<{ id: number; ts: string; entity_uri: string; entity_name: string; entity_type: string; operation: "CREATE" | "UPDATE"; fields: string; source: string }>(
    `SELECT * FROM changes WHERE ${where.join(" AND ")} ORDER BY ts DESC, id DESC LIMIT ?`,
    [...params, query.limit + 1],
  );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    status: "success",
    since,
    changes: page.map((r) => ({
      id: r.id,
      entity_uri: r.entity_uri,
      entity_name: r.entity_name,
      entity_type: r.entity_type,
      operation: r.operation,
      changed_fields: JSON.parse(r.fields) as string[],
      timestamp: r.ts,
      source: r.source,
    })),
    count: page.length,
    next_cursor: rows.length > query.limit && last ? encodeCursor({ ts: last.ts, id: last.id }) : null,
  };
}
