/**
 * @module graph/analytic/translate
 * An analytic SPARQL SELECT (GROUP BY or aggregates over a basic graph pattern, with FILTER,
 * OPTIONAL groups of triples, HAVING, ORDER BY, LIMIT and OFFSET) as one DuckDB query over the
 * snapshot's graph tables, and the reading of its rows back into SPARQL terms.
 *
 * Groups and joins run on the facts' own columns (fact-terms.ts); only the answer's rows are made
 * terms again. What the translator cannot prove exact throws Unsure (unsure.ts): the query then
 * goes to the graph store, so the choice never changes an answer.
 */
import { sqlString } from "../../store/duckdb.ts";
import type { SelectResult, Term } from "../protocol.ts";
import { aggregate, havingCondition } from "./aggregates.ts";
import { type Expression, keepCondition, orderKey, type Scope } from "./expressions.ts";
import { answerTerm, predicateIriOf, XSD_DECIMAL, XSD_INTEGER } from "./fact-terms.ts";
import type { GraphProfile } from "./graph-profile.ts";
import { joinPatterns, type Triple, type Use } from "./patterns.ts";
import { Unsure, unsure } from "./unsure.ts";

/** The sparqljs query shape this reads. */
export interface SelectQuery {
  queryType: string;
  variables: (Expression | { expression: Expression; variable: { value: string } })[];
  distinct?: boolean;
  reduced?: boolean;
  where?: { type: string; triples?: Triple[]; patterns?: { type: string; triples?: Triple[] }[]; expression?: Expression }[];
  group?: { expression: Expression; variable?: unknown }[];
  having?: Expression[];
  order?: { expression: Expression; descending?: boolean }[];
  limit?: number;
  offset?: number;
  from?: { default: unknown[]; named: unknown[] };
  values?: unknown;
}

export interface Translation {
  sql: string;
  /** The rows (columns as the SQL selects them) as the graph store's answer. */
  read(rows: unknown[][]): SelectResult;
}

type Output = { name: string; columns: number; read: (row: unknown[], at: number) => Term | undefined };

/** Translates a parsed query, or throws Unsure. `maxRows`: the answer's cap (one more row is read, to know it was cut). */
export function translate(query: SelectQuery, profile: GraphProfile, maxRows: number): Translation {
  if (query.queryType !== "SELECT" || query.reduced || query.values || (query.from && (query.from.default.length > 0 || query.from.named.length > 0))) {
    unsure("not a plain SELECT on the default graph");
  }
  const { required, optionals, filters } = splitWhere(query.where ?? []);
  const join = joinPatterns(required, optionals, profile);
  const scope: Scope = { vars: join.vars, profile };
  const grouped = (query.group?.length ?? 0) > 0;
  const where = [...join.where, ...filters.map((f) => keepCondition(f, scope))];

  const groupBy: string[] = [];
  const groupVars = new Map<string, Use>();
  for (const g of query.group ?? []) {
    if (g.variable || g.expression.termType !== "Variable") unsure("GROUP BY an expression");
    const name = g.expression.value!;
    const use = join.vars.get(name) ?? unsure(`GROUP BY ?${name}, which the pattern does not bind`);
    groupVars.set(name, use);
    groupBy.push(...groupColumns(use));
  }

  const select: string[] = [];
  const outputs: Output[] = [];
  const aggregates = new Map<string, string>();
  for (const item of query.variables) {
    if (!("variable" in item)) {
      const name = (item as Expression).value!;
      if ((item as Expression).termType !== "Variable") unsure("SELECT *");
      const use = groupVars.get(name) ?? unsure(`?${name} is projected but not grouped`);
      select.push(...termColumns(use));
      outputs.push({ name, columns: 4, read: (row, at) => readTerm(use, row, at, profile) });
      continue;
    }
    const name = item.variable.value;
    const agg = aggregate(item.expression, scope, grouped);
    aggregates.set(name, agg.order);
    select.push(...agg.columns);
    outputs.push({ name, columns: agg.columns.length, read: (row, at) => agg.read(row.slice(at, at + agg.columns.length)) });
  }
  if (aggregates.size === 0 && !grouped) unsure("no aggregate and no GROUP BY");

  const order: string[] = [];
  for (const o of query.order ?? []) {
    const e = o.expression;
    const key =
      e.termType === "Variable"
        ? (aggregates.get(e.value!) ?? orderKey(groupVars.get(e.value!) ?? unsure(`ORDER BY ?${e.value}, which is not grouped`), profile))
        : aggregate(e, scope, grouped).order;
    order.push(`${key} ${o.descending ? "DESC NULLS LAST" : "ASC NULLS FIRST"}`);
  }
  if (order.length > 0 && !query.distinct) {
    // Ties in the query's order come out in the groups' own order, the same on every run.
    for (const use of groupVars.values()) order.push(`${tieBreak(use, profile)} ASC NULLS FIRST`);
  } else if (order.length > 0) {
    unsure("SELECT DISTINCT with ORDER BY");
  }

  const having = (query.having ?? []).map((h) => havingCondition(h, scope, grouped));
  const limit = Math.min(query.limit ?? Number.POSITIVE_INFINITY, maxRows + 1);
  const sql = [
    `SELECT ${query.distinct ? "DISTINCT " : ""}${select.join(", ")}`,
    `FROM ${join.from}`,
    where.length > 0 ? `WHERE ${where.join(" AND ")}` : "",
    groupBy.length > 0 ? `GROUP BY ${groupBy.join(", ")}` : "",
    having.length > 0 ? `HAVING ${having.join(" AND ")}` : "",
    order.length > 0 ? `ORDER BY ${order.join(", ")}` : "",
    `LIMIT ${limit}`,
    query.offset ? `OFFSET ${query.offset}` : "",
  ]
    .filter(Boolean)
    .join("\n");
  return {
    sql,
    read(rows) {
      const variables = outputs.map((o) => o.name);
      const answer = rows.map((row) => {
        const solution: Record<string, Term> = {};
        let at = 0;
        for (const output of outputs) {
          const term = output.read(row, at);
          if (term) solution[output.name] = term;
          at += output.columns;
        }
        return solution;
      });
      return { variables, rows: answer };
    },
  };
}

/** The WHERE clause's parts: triples (required), OPTIONAL groups of triples, and filters. */
function splitWhere(where: NonNullable<SelectQuery["where"]>): { required: Triple[]; optionals: Triple[][]; filters: Expression[] } {
  const required: Triple[] = [];
  const optionals: Triple[][] = [];
  const filters: Expression[] = [];
  for (const part of where) {
    if (part.type === "bgp") required.push(...part.triples!);
    else if (part.type === "filter") filters.push(part.expression!);
    else if (part.type === "optional") {
      const patterns = part.patterns ?? [];
      if (patterns.some((p) => p.type !== "bgp")) unsure("an OPTIONAL with more than triples");
      optionals.push(patterns.flatMap((p) => p.triples!));
    } else unsure(`a ${part.type} pattern`);
  }
  // An OPTIONAL before a required triple would be evaluated in another order (left join first).
  const firstOptional = where.findIndex((p) => p.type === "optional");
  if (firstOptional >= 0 && where.slice(firstOptional).some((p) => p.type === "bgp")) unsure("triples after an OPTIONAL");
  return { required, optionals, filters };
}

/**
 * What a group is keyed on: the value alone when the kind and datatype cannot vary; a number's
 * typed value beside it (one per value: the groups stay the same), which ORDER BY reads.
 */
function groupColumns(use: Use): string[] {
  if (use.uniform?.kind === "literal" && (use.uniform.datatype === XSD_INTEGER || use.uniform.datatype === XSD_DECIMAL)) return [use.value, use.number];
  if (use.space === "predicate" || use.uniform) return [use.value];
  return [use.kind, use.value, use.datatype, use.lang].filter((c) => c !== "NULL" && !c.startsWith("'"));
}

/** A grouped term's four columns (kind, value, datatype, lang), constants where they cannot vary. */
function termColumns(use: Use): string[] {
  if (use.space === "predicate") return [`'predicate'`, use.value, "NULL", "NULL"];
  if (use.uniform) {
    const kind = use.optional ? `CASE WHEN ${use.value} IS NOT NULL THEN ${sqlString(use.uniform.kind)} END` : sqlString(use.uniform.kind);
    return [kind, use.value, use.uniform.datatype === null ? "NULL" : sqlString(use.uniform.datatype), "NULL"];
  }
  return [use.kind, use.value, use.datatype, use.lang];
}

function tieBreak(use: Use, profile: GraphProfile): string {
  try {
    return orderKey(use, profile);
  } catch (error) {
    if (error instanceof Unsure) return use.value; // any order is valid for ties; this one is steady
    throw error;
  }
}

function readTerm(use: Use, row: unknown[], at: number, profile: GraphProfile): Term | undefined {
  const [kind, value, datatype, lang] = row.slice(at, at + 4);
  if (use.space === "predicate") return value === null ? undefined : { type: "uri", value: predicateIriOf(String(value), profile.ns) };
  return answerTerm(kind, value, datatype, lang, profile.ns);
}
