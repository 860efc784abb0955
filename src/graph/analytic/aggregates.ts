/**
 * @module graph/analytic/aggregates
 * SPARQL's aggregates as SQL, each with the columns it selects and how a row's values become the
 * term the graph store would answer (checked against Oxigraph by test/graph/analytic-sparql.test.ts):
 * - COUNT: an xsd:integer; SUM: an xsd:integer or a canonical xsd:decimal, unbound when one value
 *   is not a number;
 * - AVG: the sum divided by the count as the graph store divides decimals, kept to 18 places and
 *   cut toward zero; "0" (xsd:integer) over no solution; unbound when one value is not a number
 *   or the sum does not fit its decimal (|sum| x 10^18 past a signed 128-bit integer);
 * - MIN and MAX: the least or greatest term, where every term the variable takes has one kind and
 *   datatype (SPARQL's order among them is then SQL's on one column).
 * Anything else (DISTINCT but COUNT's, an aggregate of an optional variable but COUNT's, terms of
 * mixed kinds) throws Unsure: the graph store answers.
 */
import { sqlString } from "../../store/duckdb.ts";
import type { Term } from "../protocol.ts";
import { NUMBER_TYPE } from "../../timeseries/graph-tables.ts";
import { COMPARISONS, type Expression, orderKey, type Scope } from "./expressions.ts";
import { answerTerm, canonicalLiteral, factTermOf, type RdfTerm, XSD_DECIMAL, XSD_INTEGER } from "./fact-terms.ts";
import type { Use } from "./patterns.ts";
import { unsure } from "./unsure.ts";

const NUMERIC_DATATYPES = `(${sqlString(XSD_INTEGER)}, ${sqlString(XSD_DECIMAL)})`;
/** The graph store's decimals: an i128 of 10^-18 units. */
const DECIMAL_PLACES = 18n;
const I128_MAX = (1n << 127n) - 1n;

export interface Aggregate {
  /** The SQL columns the answer selects for it. */
  columns: string[];
  /** The term those columns' values stand for (undefined: unbound). */
  read(values: unknown[]): Term | undefined;
  /** The SQL value to order by. */
  order: string;
  /** Comparable with a number in HAVING, exactly: COUNT and SUM. */
  exact: boolean;
}

export function aggregate(expression: Expression, scope: Scope, grouped: boolean): Aggregate {
  if (expression.type !== "aggregate") return unsure("an expression that is not an aggregate");
  const inner = expression.expression!;
  const kind = expression.aggregation;
  if (kind === "count") return count(expression, scope);
  if (expression.distinct) return unsure(`the aggregate ${kind} DISTINCT`);
  if (kind === "sum" || kind === "avg") {
    if (!scope.profile.exactSums) return unsure(`${kind} where a number may not be exact`);
    const use = requiredUse(inner, scope, kind);
    const numeric = `(${use.kind} = 'literal' AND ${use.datatype} IN ${NUMERIC_DATATYPES})`;
    // One element that is not a number makes the result an error: unbound. A variable whose every
    // term is one numeric type needs no check per row.
    const datatype = use.uniform?.kind === "literal" ? use.uniform.datatype : undefined;
    const always = datatype === XSD_INTEGER || datatype === XSD_DECIMAL;
    const sum = always ? `sum(${use.number})` : `CASE WHEN bool_and(${numeric}) THEN sum(${use.number}) END`;
    if (kind === "avg") {
      return {
        columns: [`CAST(${sum} AS VARCHAR)`, "count(*)"],
        read: ([total, n]) => readAverage(total, n),
        order: `(${sum} / count(*))`,
        exact: false,
      };
    }
    const total = grouped ? sum : `CASE WHEN count(*) = 0 THEN 0 ELSE ${sum} END`;
    const integer = always ? (datatype === XSD_INTEGER ? "TRUE" : "(count(*) = 0)") : `coalesce(bool_and(${use.datatype} = ${sqlString(XSD_INTEGER)}), TRUE)`;
    return { columns: [`CAST(${total} AS VARCHAR)`, integer], read: ([value, isInteger]) => readNumber(value, isInteger), order: total, exact: true };
  }
  if (kind === "min" || kind === "max") {
    const use = requiredUse(inner, scope, kind);
    const uniform = use.uniform ?? unsure(`${kind} of terms that may differ in kind`);
    const key = orderKey(use, scope.profile);
    return {
      columns: [`arg_${kind}(${use.value}, ${key})`],
      read: ([value]) => (value === null || value === undefined ? undefined : answerTerm(uniform.kind, value, uniform.datatype, null, scope.profile.ns)),
      order: `${kind}(${key})`,
      exact: false,
    };
  }
  return unsure(`the aggregate ${kind}`);
}

function count(expression: Expression, scope: Scope): Aggregate {
  const inner = expression.expression!;
  let count: string;
  if (inner.termType === "Wildcard") {
    if (expression.distinct) unsure("COUNT(DISTINCT *)");
    count = "count(*)";
  } else {
    const use = scope.vars.get(variableName(inner));
    if (!use) return unsure("COUNT of an unbound variable");
    // A variable of a required triple is bound in every solution: count(*) reads no column.
    if (!expression.distinct) count = use.optional ? `count(${use.value})` : "count(*)";
    else if (use.space === "predicate" || use.uniform) count = `count(DISTINCT ${use.value})`;
    else count = `count(DISTINCT CASE WHEN ${use.value} IS NOT NULL THEN struct_pack(k := ${use.kind}, v := ${use.value}, d := ${use.datatype}, l := ${use.lang}) END)`;
  }
  return { columns: [`CAST(${count} AS VARCHAR)`, "TRUE"], read: ([value, isInteger]) => readNumber(value, isInteger), order: count, exact: true };
}

/** The variable an aggregate reads, bound in every solution (an unbound one makes SUM and AVG an error). */
function requiredUse(expression: Expression, scope: Scope, kind: string): Use {
  const use = scope.vars.get(variableName(expression)) ?? unsure(`${kind} of an unbound variable`);
  if (use.space !== "term") unsure(`${kind} of a predicate variable`);
  if (use.optional) unsure(`${kind} of an optional variable`);
  return use;
}

function variableName(expression: Expression): string {
  if (expression.termType !== "Variable") return unsure("an aggregate of an expression");
  return expression.value!;
}

/** A COUNT or SUM as the graph store writes it: xsd:integer, or a canonical xsd:decimal. */
function readNumber(value: unknown, integer: unknown): Term | undefined {
  if (value === null || value === undefined) return undefined;
  const isInteger = integer === true || integer === "true";
  const text = String(value);
  if (isInteger) return { type: "literal", value: BigInt(text.split(".")[0]!).toString(), datatype: XSD_INTEGER };
  const canonical = canonicalLiteral({ kind: "literal", value: text, datatype: XSD_DECIMAL, lang: null });
  return { type: "literal", value: canonical!.value, datatype: XSD_DECIMAL };
}

/** AVG from its exact sum (a decimal's text) and count, divided as the graph store divides. */
function readAverage(total: unknown, n: unknown): Term | undefined {
  const count = BigInt(String(n));
  if (count === 0n) return { type: "literal", value: "0", datatype: XSD_INTEGER };
  if (total === null || total === undefined) return undefined;
  const units = decimalUnits(String(total));
  if (units > I128_MAX || -units > I128_MAX) return undefined;
  const average = units / count; // BigInt division cuts toward zero, as the graph store's does
  const sign = average < 0n ? "-" : "";
  const digits = (average < 0n ? -average : average).toString().padStart(Number(DECIMAL_PLACES) + 1, "0");
  const text = `${sign}${digits.slice(0, -Number(DECIMAL_PLACES))}.${digits.slice(-Number(DECIMAL_PLACES))}`;
  return { type: "literal", value: canonicalLiteral({ kind: "literal", value: text, datatype: XSD_DECIMAL, lang: null })!.value, datatype: XSD_DECIMAL };
}

/** A decimal's text (at most 18 places) in 10^-18 units. */
function decimalUnits(text: string): bigint {
  const [whole, fraction = ""] = text.split(".");
  const negative = whole!.startsWith("-");
  const magnitude = BigInt(whole!.replace("-", "") || "0") * 10n ** DECIMAL_PLACES + BigInt(fraction.padEnd(Number(DECIMAL_PLACES), "0").slice(0, Number(DECIMAL_PLACES)) || "0");
  return negative ? -magnitude : magnitude;
}

/** A HAVING condition: comparisons of COUNT or SUM with numbers, joined by &&, || and !. */
export function havingCondition(expression: Expression, scope: Scope, grouped: boolean): string {
  if (expression.type !== "operation") return unsure("a HAVING that is not an operation");
  const args = expression.args ?? [];
  const op = expression.operator!;
  if (op === "&&" || op === "||") return `(${havingCondition(args[0]!, scope, grouped)} ${op === "&&" ? "AND" : "OR"} ${havingCondition(args[1]!, scope, grouped)})`;
  if (op === "!") return `(NOT ${havingCondition(args[0]!, scope, grouped)})`;
  if (!(op in COMPARISONS)) return unsure(`the operator ${op} in HAVING`);
  const side = (e: Expression) => {
    if (e.type === "aggregate") {
      const agg = aggregate(e, scope, grouped);
      return agg.exact ? agg.order : unsure(`HAVING on ${e.aggregation}`);
    }
    const term = e.termType === "Literal" ? canonicalLiteral(factTermOf(e as RdfTerm, scope.profile.ns)!) : undefined;
    if (!term || (term.datatype !== XSD_INTEGER && term.datatype !== XSD_DECIMAL)) return unsure("HAVING with something other than an aggregate and a number");
    return `CAST(${sqlString(term.value)} AS ${NUMBER_TYPE})`;
  };
  return `(${side(args[0]!)} ${COMPARISONS[op]} ${side(args[1]!)})`;
}
