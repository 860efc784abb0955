/**
 * @module timeseries/entity-route
 * Sends a query for one entity to the entity-ordered copy of its table (timeseries/entity-order.ts):
 * in the text the guard passed, a series table whose SELECT keeps only one entity's rows
 * (`WHERE entity_id = 'token/x' AND ...`) is replaced by
 *   (SELECT * EXCLUDE (entity_key) FROM entity_order.<table> WHERE entity_key = <its key>) AS <name>
 * that is, by the same rows in the same order, read from a row group or two instead of one of
 * every month. Nothing else of the text changes; a query this cannot prove the same is left as it is:
 *   - the filter is a conjunct of the WHERE of the SELECT whose FROM holds the table: entity_id
 *     (unqualified when that table is the FROM's only one, else qualified by its alias or name)
 *     equal to a string constant; IN lists are left alone (their rows would come out by entity);
 *   - the FROM's joins are inner, outer or cross ones (an equality on one side's column rejects
 *     its null rows, so the filter may go below the join); ASOF, POSITIONAL, SEMI and ANTI joins,
 *     samples, AT clauses and column aliases on the table leave the SELECT alone;
 *   - no CTE of the query bears the table's name, and nothing names `rowid` or a column by schema
 *     (neither exists in the subquery).
 * The positions are json_serialize_sql's, in bytes of the UTF-8 text; the text found there must be
 * the table's name, or nothing is replaced.
 */
import { ENTITY_KEY, type EntityKeys, NO_ENTITY_KEY, entityOrderTable } from "./entity-order.ts";
import { type Node, cteNames, walk } from "./sql-tree.ts";

const JOINS = new Set(["REGULAR", "CROSS"]);
const JOIN_TYPES = new Set(["INNER", "LEFT", "RIGHT", "OUTER"]);

interface Splice {
  /** Byte offset of the table's name in the text. */
  at: number;
  table: string;
  alias: string;
  key: number;
}

/** The query's text with each single-entity read of a series table sent to its copy; the text itself when there is none. */
export function routeToEntityOrder(sql: string, statements: unknown[], keys: EntityKeys): string {
  if (keys.size === 0 || namesWhatTheCopyLacks(statements)) return sql;
  const shadowed = cteNames(statements);
  const splices: Splice[] = [];
  walk(statements, (node) => {
    if (node.type === "SELECT_NODE") splices.push(...splicesOf(node, keys, shadowed));
  });
  if (splices.length === 0) return sql;
  const bytes = Buffer.from(sql, "utf8");
  let text = bytes;
  // From the end, so that each offset still points into text as written.
  for (const splice of splices.sort((a, b) => b.at - a.at)) {
    const written = nameAt(bytes, splice.at);
    if (written === undefined || unquote(written).toLowerCase() !== splice.table) return sql;
    const copy = `(SELECT * EXCLUDE (${ENTITY_KEY}) FROM ${entityOrderTable(splice.table)} WHERE ${ENTITY_KEY} = ${splice.key})${splice.alias ? "" : ` AS ${written}`}`;
    text = Buffer.concat([text.subarray(0, splice.at), Buffer.from(copy, "utf8"), text.subarray(splice.at + Buffer.byteLength(written))]);
  }
  return text.toString("utf8");
}

/** Whether the query names rowid or a column by schema: the copy's subquery has neither. */
function namesWhatTheCopyLacks(statements: unknown[]): boolean {
  let lacks = false;
  walk(statements, (node) => {
    if (node.class !== "COLUMN_REF") return;
    const names = node.column_names as string[];
    if (names.length > 2 || names.at(-1)?.toLowerCase() === "rowid") lacks = true;
  });
  return lacks;
}

/** The splices of one SELECT: its FROM's series tables that its WHERE narrows to one entity. */
function splicesOf(select: Node, keys: EntityKeys, shadowed: ReadonlySet<string>): Splice[] {
  if (select.sample) return [];
  const from = select.from_table as Node | null;
  const tables = fromTables(from);
  if (!tables) return [];
  const equalities = entityEqualities(select.where_clause as Node | null);
  const splices: Splice[] = [];
  for (const table of tables) {
    const name = String(table.table_name).toLowerCase();
    const entities = keys.get(name);
    if (!entities || shadowed.has(name) || table.schema_name || table.catalog_name || table.sample || table.at_clause) continue;
    if ((table.column_name_alias as unknown[]).length > 0 || !Number.isSafeInteger(table.query_location)) continue;
    const alias = String(table.alias ?? "");
    const qualifier = (alias || name).toLowerCase();
    // Unqualified, entity_id is this table's only when the FROM is this table alone.
    const match = equalities.find((e) => (e.qualifier === undefined ? from === table : e.qualifier === qualifier));
    if (!match) continue;
    splices.push({ at: table.query_location as number, table: name, alias, key: entities.get(match.entity) ?? NO_ENTITY_KEY });
  }
  return splices;
}

/** The base tables of a FROM made only of them and of joins the filter may go below; undefined otherwise. */
function fromTables(from: Node | null): Node[] | undefined {
  if (!from) return undefined;
  if (from.type === "BASE_TABLE") return [from];
  if (from.type !== "JOIN" || !JOINS.has(String(from.ref_type)) || !JOIN_TYPES.has(String(from.join_type)) || from.sample) return undefined;
  const left = fromTables(from.left as Node);
  const right = fromTables(from.right as Node);
  // A subquery or table function beside the tables is fine: its own SELECT is routed on its own.
  const other = (side: Node) => side.type === "SUBQUERY" || side.type === "TABLE_FUNCTION";
  if ((!left && !other(from.left as Node)) || (!right && !other(from.right as Node))) return undefined;
  return [...(left ?? []), ...(right ?? [])];
}

/** The WHERE's conjuncts `[qualifier.]entity_id = 'constant'`. */
function entityEqualities(where: Node | null): { qualifier: string | undefined; entity: string }[] {
  const found: { qualifier: string | undefined; entity: string }[] = [];
  const visit = (node: Node | null) => {
    if (!node) return;
    if (node.type === "CONJUNCTION_AND") {
      for (const child of node.children as Node[]) visit(child);
      return;
    }
    if (node.type !== "COMPARE_EQUAL") return;
    const left = node.left as Node;
    const [column, constant] = left.class === "COLUMN_REF" ? [left, node.right as Node] : [node.right as Node, left];
    if (column.class !== "COLUMN_REF" || constant.class !== "CONSTANT") return;
    const value = constant.value as { type: { id: string }; is_null: boolean; value: unknown };
    const names = (column.column_names as string[]).map((n) => n.toLowerCase());
    if (value.type.id !== "VARCHAR" || value.is_null || names.at(-1) !== "entity_id") return;
    found.push({ qualifier: names.length === 2 ? names[0] : undefined, entity: String(value.value) });
  };
  visit(where);
  return found;
}

/** The identifier written at a byte offset, with its quotes if it has them. */
function nameAt(bytes: Buffer, at: number): string | undefined {
  if (at < 0 || at >= bytes.length) return undefined;
  return /^("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)/.exec(bytes.subarray(at, at + 256).toString("utf8"))?.[1];
}

function unquote(name: string): string {
  return name.startsWith('"') ? name.slice(1, -1).replaceAll('""', '"') : name;
}
