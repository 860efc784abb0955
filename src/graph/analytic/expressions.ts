/**
 * @module graph/analytic/expressions
 * FILTER expressions as SQL, for the forms whose SPARQL meaning SQL can keep exactly.
 * SPARQL's errors (an unbound variable, a string compared with a number) are SQL's NULL: both
 * drop a solution in a filter, and SQL's three-valued AND, OR and NOT follow SPARQL's tables for
 * errors. Every comparison is written as a CASE so that an error stays NULL under NOT. Aggregates
 * are in aggregates.ts.
 */
import type { Namespaces } from "../../entities/vocabulary.ts";
import { XSD } from "../../entities/vocabulary.ts";
import { sqlString } from "../../store/duckdb.ts";
import { NUMBER_TYPE } from "../../timeseries/graph-tables.ts";
import { canonicalLiteral, type FactTerm, factTermOf, type RdfTerm, XSD_DECIMAL, XSD_INTEGER } from "./fact-terms.ts";
import type { GraphProfile } from "./graph-profile.ts";
import { SUM_SCALE } from "./graph-profile.ts";
import type { Use } from "./patterns.ts";
import { unsure } from "./unsure.ts";

/** The sparqljs expression shapes this reads (terms are RdfTerm). */
export interface Expression {
  type?: string;
  termType?: string;
  value?: string;
  operator?: string;
  args?: Expression[];
  aggregation?: string;
  distinct?: boolean;
  expression?: Expression;
  language?: string;
  datatype?: { value: string };
}

/** Typed literals the graph store compares by value: one of another type is unequal, not an error. */
const KNOWN_DATATYPES = `(${["boolean", "integer", "decimal", "double", "float", "date", "dateTime", "time", "gYear", "gYearMonth", "gMonth", "gDay", "gMonthDay", "duration", "string"].map((t) => sqlString(`${XSD}${t}`)).join(", ")})`;
/** SPARQL's comparison operators and SQL's. */
export const COMPARISONS: Record<string, string> = { "=": "=", "!=": "<>", "<": "<", ">": ">", "<=": "<=", ">=": ">=" };

export interface Scope {
  vars: ReadonlyMap<string, Use>;
  profile: GraphProfile;
}

function useOf(expression: Expression, scope: Scope): Use {
  if (expression.termType !== "Variable") unsure("an expression where a variable was expected");
  const use = scope.vars.get(expression.value!);
  if (!use) return unsure(`?${expression.value} is not bound by the pattern`);
  if (use.space !== "term") unsure("a predicate variable in an expression");
  return use;
}

/** A FILTER's condition (true, false or NULL for an error). */
function condition(expression: Expression, scope: Scope): string {
  if (expression.type !== "operation") return unsure("a filter that is not an operation");
  const args = expression.args ?? [];
  const op = expression.operator!;
  if (op === "&&" || op === "||") return `(${condition(args[0]!, scope)} ${op === "&&" ? "AND" : "OR"} ${condition(args[1]!, scope)})`;
  if (op === "!") return `(NOT ${condition(args[0]!, scope)})`;
  if (op === "bound") return `(${useOf(args[0]!, scope).value} IS NOT NULL)`;
  if (op === "isiri" || op === "isuri" || op === "isliteral") {
    const use = useOf(args[0]!, scope);
    return `(CASE WHEN ${use.value} IS NULL THEN NULL ELSE ${use.kind} ${op === "isliteral" ? "=" : "<>"} 'literal' END)`;
  }
  if (op === "contains" || op === "strstarts" || op === "strends") return stringTest(op, args, scope);
  if (op in COMPARISONS) return comparison(op, args, scope);
  return unsure(`the operator ${op}`);
}

/**
 * A FILTER's condition where only TRUE keeps a solution (the filter itself, or a side of an && in
 * it): there an error and FALSE both drop the solution, so a variable compared with a number by
 * order or equality is its typed column's comparison alone, NULL for every term that is not a
 * number (the CASE of `condition` doubled a small scan's time). Anything else is `condition`'s.
 */
export function keepCondition(expression: Expression, scope: Scope): string {
  if (expression.type === "operation" && expression.operator === "&&") {
    return `(${keepCondition(expression.args![0]!, scope)} AND ${keepCondition(expression.args![1]!, scope)})`;
  }
  const op = expression.operator ?? "";
  if (expression.type === "operation" && op in COMPARISONS && op !== "!=") {
    const { use, sqlOp, constant } = comparedWith(op, expression.args ?? [], scope);
    if (use.number !== "NULL" && (constant.datatype === XSD_INTEGER || constant.datatype === XSD_DECIMAL)) return `(${use.number} ${sqlOp} ${numberConstant(constant, scope)})`;
  }
  return condition(expression, scope);
}

/** The variable, the SQL operator with the variable on its left, and the constant of a comparison. */
function comparedWith(op: string, args: Expression[], scope: Scope) {
  let [left, right] = args as [Expression, Expression];
  let sqlOp = COMPARISONS[op]!;
  if (left.termType !== "Variable") {
    [left, right] = [right, left];
    sqlOp = { "<": ">", ">": "<", "<=": ">=", ">=": "<=" }[sqlOp] ?? sqlOp;
  }
  const use = useOf(left, scope);
  if (right.termType === "Variable" || right.type !== undefined) unsure("a comparison of two expressions");
  const constant = factTermOf(right as RdfTerm, scope.profile.ns) ?? unsure("a comparison with a blank node");
  return { use, sqlOp, constant };
}

/** A numeric constant as the typed column's DECIMAL, where the comparison can be exact. */
function numberConstant(constant: FactTerm, scope: Scope): string {
  const canonical = canonicalLiteral(constant);
  if (!canonical || !scope.profile.exactSums || (canonical.value.split(".")[1]?.length ?? 0) > SUM_SCALE) return unsure("a number beyond exact comparison");
  return `CAST(${sqlString(canonical.value)} AS ${NUMBER_TYPE})`;
}

/** A variable compared with a constant (either side). */
function comparison(op: string, args: Expression[], scope: Scope): string {
  const { use, sqlOp, constant } = comparedWith(op, args, scope);
  const equality = op === "=" || op === "!=";
  const negate = (expr: string) => (op === "!=" ? `NOT (${expr})` : expr);
  const unbound = `WHEN ${use.value} IS NULL THEN NULL`;
  if (constant.kind !== "literal") {
    if (!equality) unsure("an ordering comparison with an IRI");
    return `(CASE ${unbound} ELSE ${negate(`${use.kind} = ${sqlString(constant.kind)} AND ${use.value} = ${sqlString(constant.value)}`)} END)`;
  }
  // Terms of another kind or value space are unequal (IRIs, language strings, and the types the
  // graph store compares by value); a literal of a type it does not know (anyURI) is an error.
  const differ = op === "=" ? "FALSE" : "TRUE";
  const otherSpace = `WHEN ${use.kind} <> 'literal' OR ${use.lang} IS NOT NULL OR ${use.datatype} IN ${KNOWN_DATATYPES}`;
  if (constant.datatype === XSD_INTEGER || constant.datatype === XSD_DECIMAL) {
    const numbers = `WHEN ${use.number} IS NOT NULL THEN ${use.number} ${sqlOp} ${numberConstant(constant, scope)}`;
    const strings = `WHEN ${use.datatype} IS NULL THEN ${equality ? differ : "NULL"}`;
    return `(CASE ${unbound} ${numbers} ${strings} ${equality ? `${otherSpace} THEN ${differ}` : ""} END)`;
  }
  if (constant.datatype !== null || constant.lang !== null) return unsure("a comparison with a typed or tagged literal");
  if (!equality) unsure("an ordering comparison of strings");
  const strings = `WHEN ${use.kind} = 'literal' AND ${use.datatype} IS NULL AND ${use.lang} IS NULL THEN ${negate(`${use.value} = ${sqlString(constant.value)}`)}`;
  return `(CASE ${unbound} ${strings} ${otherSpace} THEN ${differ} END)`;
}

/** CONTAINS, STRSTARTS, STRENDS of a variable (or STR of one) and a simple literal. */
function stringTest(op: string, args: Expression[], scope: Scope): string {
  const [subject, pattern] = args as [Expression, Expression];
  if (pattern.termType !== "Literal" || pattern.language || (pattern.datatype && pattern.datatype.value !== `${XSD}string`)) {
    return unsure("a string function with a non-simple literal");
  }
  const fn = { contains: "contains", strstarts: "starts_with", strends: "ends_with" }[op]!;
  const test = (text: string) => `${fn}(${text}, ${sqlString(pattern.value!)})`;
  if (subject.type === "operation" && subject.operator === "str") {
    const use = useOf(subject.args![0]!, scope);
    return `(CASE WHEN ${use.value} IS NULL THEN NULL ELSE ${test(lexical(use, scope.profile.ns))} END)`;
  }
  const use = useOf(subject, scope);
  return `(CASE WHEN ${use.kind} = 'literal' AND ${use.datatype} IS NULL THEN ${test(use.value)} END)`;
}

/** STR of a term: an IRI in full, a literal's lexical form. */
function lexical(use: Use, ns: Namespaces): string {
  if (use.space === "predicate") return unsure("STR of a predicate variable");
  return `(CASE ${use.kind} WHEN 'entity' THEN ${sqlString(ns.entity)} || ${use.value} WHEN 'class' THEN ${sqlString(ns.ontology)} || ${use.value} ELSE ${use.value} END)`;
}

/** A use's ordering key in SPARQL's order, when SQL's order of it is the same. */
export function orderKey(use: Use, profile: GraphProfile): string {
  if (use.space === "predicate") {
    const cases = [...profile.codes].map(([iri, code]) => `WHEN ${sqlString(code)} THEN ${sqlString(iri)}`).join(" ");
    return `(CASE ${use.value} ${cases} ELSE ${use.value} END)`;
  }
  const uniform = use.uniform;
  if (uniform?.kind === "entity" || uniform?.kind === "class") return use.value;
  if (uniform?.kind === "iri" || use.iri) return `(CASE ${use.kind} WHEN 'entity' THEN ${sqlString(profile.ns.entity)} || ${use.value} WHEN 'class' THEN ${sqlString(profile.ns.ontology)} || ${use.value} ELSE ${use.value} END)`;
  if (uniform?.kind === "literal") {
    if (uniform.datatype === null) return use.value;
    if ((uniform.datatype === XSD_INTEGER || uniform.datatype === XSD_DECIMAL) && profile.exactSums) return use.number;
    if (uniform.datatype.endsWith("#date") || uniform.datatype.endsWith("#gYear")) return use.value;
  }
  return unsure("ordering by a variable whose terms may differ in kind");
}
