/**
 * @module graph/analytic/patterns
 * A basic graph pattern (with OPTIONAL groups of triples) as a join over graph_facts. Each triple
 * pattern is one use of the table; a pattern that can match the meta graph (the ontology and the
 * sources' descriptions, which the table does not hold) reads the table's rows and those quads as
 * one relation. Every use of a variable is a set of column expressions in the facts' encoding
 * (fact-terms.ts); the first use binds it, each later use is a join condition.
 */
import { sqlString } from "../../store/duckdb.ts";
import { NUMBER_TYPE } from "../../timeseries/graph-tables.ts";
import { canonicalLiteral, type FactKind, type FactTerm, factTermOf, type RdfTerm, variableName, XSD_DECIMAL, XSD_INTEGER } from "./fact-terms.ts";
import { joinOrder } from "./join-order.ts";
import type { GraphProfile, MetaQuad } from "./graph-profile.ts";
import { unsure } from "./unsure.ts";

/** The columns of one use of a variable (SQL expressions; 'NULL' where the position has none). */
export interface Use {
  space: "term" | "predicate";
  kind: string;
  value: string;
  datatype: string;
  lang: string;
  /**
   * Its value as a DECIMAL where the term is an xsd:integer or xsd:decimal literal, else NULL: the
   * facts' typed column where the table has one (graph-tables.ts), a cast per row where not.
   */
  number: string;
  /** Every value it can take has this kind and datatype (the profile says so): the value alone identifies the term. */
  uniform?: { kind: FactKind; datatype: string | null };
  /** The use sits in an OPTIONAL group: unbound (NULL) where it did not match. */
  optional: boolean;
  /** Subject positions: always an IRI (ordering by IRI is then exact). */
  iri: boolean;
}

export interface Triple {
  subject: RdfTerm;
  predicate: RdfTerm;
  object: RdfTerm;
}

/** A FROM clause and the conditions of the required part, with each variable's binding use. */
export interface Join {
  from: string;
  where: string[];
  vars: Map<string, Use>;
}

const FACT_COLUMNS = "subject_kind, subject_id, predicate, object_kind, object, datatype, lang, number";
const NUMERIC = [XSD_INTEGER, XSD_DECIMAL];

/** The join of the required triples and, left-joined, each OPTIONAL group of triples. */
export function joinPatterns(required: Triple[], optionals: Triple[][], profile: GraphProfile): Join {
  if (required.length === 0) unsure("no required triple pattern");
  const vars = new Map<string, Use>();
  const where: string[] = [];
  let alias = 0;
  let from = "";
  for (const triple of joinOrder(required, profile)) {
    const rel = relation(triple, `t${alias++}`, profile, false);
    const links = bindAll(rel.uses, vars);
    where.push(...rel.conditions);
    if (from) from += ` JOIN ${rel.sql} ON ${conjunction(links)}`;
    else {
      from = rel.sql;
      where.push(...links); // a variable used twice in the first triple
    }
  }
  for (const group of optionals) {
    const inner: string[] = [];
    const outer: string[] = [];
    const local = new Map<string, Use>();
    const sqls: string[] = [];
    for (const triple of group) {
      const rel = relation(triple, `t${alias++}`, profile, true);
      inner.push(...rel.conditions);
      for (const [name, use] of rel.uses) {
        const bound = vars.get(name);
        if (bound && !local.has(name)) {
          if (bound.optional) unsure(`?${name} is bound only in another OPTIONAL group`);
          outer.push(...sameTerm(bound, use));
        } else {
          const home = local.get(name);
          if (home) inner.push(...sameTerm(home, use));
          else local.set(name, use);
        }
      }
      sqls.push(rel.sql);
    }
    for (const [name, use] of local) if (!vars.has(name)) vars.set(name, use);
    const body = sqls.length === 1 ? sqls[0]! : `(${sqls.join(" CROSS JOIN ")})`;
    from += ` LEFT JOIN ${body} ON ${conjunction([...inner, ...outer])}`;
  }
  return { from, where, vars };
}

function conjunction(conditions: string[]): string {
  return conditions.length === 0 ? "TRUE" : conditions.join(" AND ");
}

/** Binds each use of a required triple: new variables are bound here, known ones give conditions. */
function bindAll(uses: [string, Use][], vars: Map<string, Use>): string[] {
  const links: string[] = [];
  for (const [name, use] of uses) {
    const home = vars.get(name);
    if (home) links.push(...sameTerm(home, use));
    else vars.set(name, use);
  }
  return links;
}

/** Conditions under which two uses hold the same RDF term (SPARQL joins on term identity). */
function sameTerm(a: Use, b: Use): string[] {
  if (a.space !== b.space) unsure("a variable used both as a predicate and as a subject or object");
  if (a.space === "predicate") return [`${a.value} = ${b.value}`];
  if (a.uniform && b.uniform) {
    const same = a.uniform.kind === b.uniform.kind && a.uniform.datatype === b.uniform.datatype;
    return same ? [`${a.value} = ${b.value}`] : ["FALSE"];
  }
  const conditions = [`${a.value} = ${b.value}`];
  for (const part of ["kind", "datatype", "lang"] as const) {
    if (a[part] === b[part] && (a[part] === "NULL" || a[part].startsWith("'"))) continue;
    conditions.push(`${a[part]} IS NOT DISTINCT FROM ${b[part]}`);
  }
  return conditions;
}

interface Relation {
  sql: string;
  /** Conditions on this use of the table alone (the constants of the triple). */
  conditions: string[];
  uses: [string, Use][];
}

/** One triple pattern as a use of graph_facts (with the meta graph's quads when it can match them). */
function relation(triple: Triple, alias: string, profile: GraphProfile, optional: boolean): Relation {
  const subject = constantTerm(triple.subject, profile);
  const object = constantTerm(triple.object, profile);
  let code: string | undefined;
  if (triple.predicate.termType === "NamedNode") code = profile.codes.get(triple.predicate.value) ?? triple.predicate.value;
  else if (triple.predicate.termType !== "Variable" && triple.predicate.termType !== "BlankNode") unsure("a property path");
  const meta = profile.meta.filter(
    (q) => (!subject || equalTerms(q.subject, subject)) && (code === undefined || q.predicate === code) && (!object || equalTerms(q.object, object)),
  );
  const withMeta = meta.length > 0;
  // The constants as conditions on the table's columns (qualified when the table is used directly).
  const column = (name: string) => (withMeta ? name : `${alias}.${name}`);
  const facts: string[] = [];
  if (subject) facts.push(subject.kind === "entity" ? `${column("subject_id")} = ${sqlString(subject.value)}` : "FALSE");
  if (code !== undefined) facts.push(profile.codes.has(triple.predicate.value) ? `${column("predicate")} = ${sqlString(code)}` : "FALSE");
  if (object) {
    // Where every object of the predicate has the constant's kind and datatype, the value alone decides.
    const known = code === undefined ? undefined : uniformObjects(profile, code, []);
    const alone = known && known.kind === object.kind && known.datatype === object.datatype && object.lang === null;
    facts.push(alone ? `${column("object")} = ${sqlString(object.value)}` : objectCondition(object, column));
  }

  // One entity's facts are contiguous in graph_facts; a predicate's, in the copy ordered by it.
  const table = subject && code === undefined ? "graph_facts" : profile.factsTable;
  const typed = table === profile.factsTable && profile.typedNumbers;
  const col = (name: string) => `${alias}.${name}`;
  const bound = (expr: string) => (optional ? `CASE WHEN ${col("subject_id")} IS NOT NULL THEN ${expr} END` : expr);
  const uniform = code === undefined ? undefined : uniformObjects(profile, code, meta);
  // Objects that are IRIs in every fact and meta quad the pattern can match order as IRIs.
  const factObjects = code === undefined ? undefined : profile.predicates.get(code);
  const iriObjects = code !== undefined && !factObjects?.kinds.includes("literal") && meta.every((q) => q.object.kind !== "literal");
  const positions: [RdfTerm, () => Use][] = [
    [
      triple.subject,
      () => ({
        space: "term",
        kind: withMeta ? col("subject_kind") : bound("'entity'"),
        value: col("subject_id"),
        datatype: "NULL",
        lang: "NULL",
        number: "NULL",
        uniform: withMeta ? undefined : { kind: "entity", datatype: null },
        optional,
        iri: true,
      }),
    ],
    [triple.predicate, () => ({ space: "predicate", kind: "NULL", value: col("predicate"), datatype: "NULL", lang: "NULL", number: "NULL", optional, iri: true })],
    [
      triple.object,
      () => ({
        space: "term",
        kind: col("object_kind"),
        value: col("object"),
        datatype: col("datatype"),
        lang: withMeta ? col("lang") : "NULL",
        number: typed ? col("number") : numberOf(col("object_kind"), col("datatype"), col("object")),
        uniform,
        optional,
        iri: iriObjects,
      }),
    ],
  ];
  const uses: [string, Use][] = [];
  for (const [term, use] of positions) {
    const name = variableName(term);
    if (name !== undefined) uses.push([name, use()]);
  }
  if (!withMeta) return { sql: `${table} AS ${alias}`, conditions: facts, uses };
  const rows = meta.map(
    (q) => {
      const values = [q.subject.kind, q.subject.value, q.predicate, q.object.kind, q.object.value, q.object.datatype, q.object.lang].map((v) => (v === null ? "NULL" : sqlString(v)));
      const numeric = q.object.kind === "literal" && q.object.datatype !== null && NUMERIC.includes(q.object.datatype);
      return `(${[...values, numeric ? `TRY_CAST(${values[4]} AS ${NUMBER_TYPE})` : "NULL"].join(", ")})`;
    },
  );
  const number = typed ? "number" : numberOf("object_kind", "datatype", "object");
  const sql =
    `(SELECT 'entity' AS subject_kind, subject_id, predicate, object_kind, object, datatype, CAST(NULL AS VARCHAR) AS lang, ${number} AS number FROM ${table} WHERE ${conjunction(facts)} ` +
    `UNION ALL SELECT * FROM (VALUES ${rows.join(", ")}) AS meta(${FACT_COLUMNS})) AS ${alias}`;
  return { sql, conditions: [], uses };
}

/** A term's number (as the typed column holds it) from its kind, datatype and lexical form. */
function numberOf(kind: string, datatype: string, value: string): string {
  return `CASE WHEN ${kind} = 'literal' AND ${datatype} IN (${NUMERIC.map(sqlString).join(", ")}) THEN TRY_CAST(${value} AS ${NUMBER_TYPE}) END`;
}

function objectCondition(term: FactTerm, column: (name: string) => string): string {
  if (term.lang !== null) return "FALSE";
  const datatype = term.datatype === null ? `${column("datatype")} IS NULL` : `${column("datatype")} = ${sqlString(term.datatype)}`;
  return `(${column("object_kind")} = ${sqlString(term.kind)} AND ${column("object")} = ${sqlString(term.value)} AND ${datatype})`;
}

/** The kind and datatype every object of a predicate has (in the facts and the meta quads it can match), when it has one of each. */
function uniformObjects(profile: GraphProfile, code: string, meta: readonly MetaQuad[]): Use["uniform"] {
  const objects = profile.predicates.get(code);
  const kinds = new Set<string>(objects?.kinds ?? []);
  const datatypes = new Set<string | null>(objects?.datatypes ?? []);
  for (const q of meta) {
    if (q.object.lang !== null) return undefined;
    kinds.add(q.object.kind);
    if (q.object.kind === "literal") datatypes.add(q.object.datatype);
  }
  if (kinds.size !== 1 || datatypes.size > 1) return undefined;
  const [kind] = kinds as Set<FactKind>;
  const [datatype] = datatypes.size === 1 ? datatypes : [null];
  return { kind: kind!, datatype: datatype ?? null };
}

/** A constant subject or object in the facts' encoding (numbers canonical); undefined for a variable. */
function constantTerm(term: RdfTerm, profile: GraphProfile): FactTerm | undefined {
  if (term.termType === "Variable" || term.termType === "BlankNode") return undefined;
  const encoded = factTermOf(term, profile.ns);
  if (!encoded) return unsure(`a ${term.termType} in a triple pattern`);
  return canonicalLiteral(encoded) ?? unsure(`the literal ${term.value} may be kept in another form`);
}

function equalTerms(a: FactTerm, b: FactTerm): boolean {
  return a.kind === b.kind && a.value === b.value && a.datatype === b.datatype && a.lang === b.lang;
}
