/**
 * @module graph/describe
 * What DESCRIBE answers here. SPARQL leaves a description to the service; ckg's is a resource's own
 * facts and its neighbours' names: every triple with the resource as subject (in the dataset's
 * default graph: every source by default), plus the `schema:name` and `rdfs:label` triples of each
 * object of those (the IRIs it points at). The query is rewritten into the CONSTRUCT that says so,
 * so the embedded store and an external one (whose own DESCRIBE differs: Virtuoso's is a concise
 * bounded description of its own) answer the same triples.
 *
 * `DESCRIBE <iri>` describes that IRI; `DESCRIBE ?x WHERE { ... }` each distinct value of ?x in the
 * solutions (after the query's ORDER BY, LIMIT and OFFSET, which count solutions, not triples);
 * `DESCRIBE *` every variable of the WHERE clause.
 */
import type { ConstructQuery, DescribeQuery, IriTerm, Pattern, SelectQuery, Triple, VariableTerm } from "sparqljs";
import { RDFS, SCHEMA } from "../entities/vocabulary.ts";

const variable = (value: string) => ({ termType: "Variable", value }) as VariableTerm;
const iri = (value: string) => ({ termType: "NamedNode", value }) as IriTerm;

/** Outer variables: the user's WHERE clause only ever runs inside a sub-SELECT, so no name can clash. */
const RESOURCE = variable("ckgResource");
const PREDICATE = variable("ckgPredicate");
const OBJECT = variable("ckgObject");
const NAME = variable("ckgName");
const LABEL = variable("ckgLabel");

/** DESCRIBE with its solution modifiers, which sparqljs parses but its typings leave out. */
type ParsedDescribe = DescribeQuery & Pick<SelectQuery, "order" | "limit" | "offset">;

/** The CONSTRUCT a DESCRIBE query means here (see the module comment). */
export function describeAsConstruct(query: ParsedDescribe): ConstructQuery {
  const named: IriTerm[] = [];
  const variables: VariableTerm[] = [];
  for (const item of query.variables) {
    if ("termType" in item && item.termType === "NamedNode") named.push(item);
    else if ("termType" in item && item.termType === "Variable") variables.push(item);
    else variables.push(...variablesOf(query.where ?? []));
  }
  const targets: Pattern[] = [];
  if (named.length > 0) targets.push({ type: "values", values: named.map((term) => ({ [`?${RESOURCE.value}`]: term })) });
  for (const each of unique(variables)) {
    const solutions: SelectQuery = {
      type: "query",
      queryType: "SELECT",
      prefixes: {},
      distinct: true,
      variables: [{ expression: each, variable: RESOURCE }],
      where: query.where ?? [],
      order: query.order,
      limit: query.limit,
      offset: query.offset,
      values: query.values,
    };
    targets.push({ type: "group", patterns: [solutions] });
  }
  const facts: Triple = { subject: RESOURCE, predicate: PREDICATE, object: OBJECT };
  const name: Triple = { subject: OBJECT, predicate: iri(`${SCHEMA}name`), object: NAME };
  const label: Triple = { subject: OBJECT, predicate: iri(`${RDFS}label`), object: LABEL };
  const target: Pattern = targets.length === 1 ? targets[0]! : { type: "union", patterns: targets };
  return {
    type: "query",
    queryType: "CONSTRUCT",
    prefixes: query.prefixes,
    from: query.from,
    template: [facts, name, label],
    where: [
      target,
      { type: "bgp", triples: [facts] },
      { type: "optional", patterns: [{ type: "bgp", triples: [name] }] },
      { type: "optional", patterns: [{ type: "bgp", triples: [label] }] },
    ],
  };
}

/** Every variable named in a pattern tree (DESCRIBE *). */
function variablesOf(node: unknown, found: VariableTerm[] = []): VariableTerm[] {
  if (Array.isArray(node)) for (const item of node) variablesOf(item, found);
  else if (node && typeof node === "object") {
    if ((node as { termType?: string }).termType === "Variable") found.push(node as VariableTerm);
    // A sub-SELECT's inner variables are not in scope outside it: only what it projects.
    else if ((node as { type?: string }).type === "query") variablesOf((node as SelectQuery).variables, found);
    else for (const value of Object.values(node)) variablesOf(value, found);
  }
  return found;
}

function unique(variables: VariableTerm[]): VariableTerm[] {
  const seen = new Map(variables.map((v) => [v.value, v]));
  return [...seen.values()];
}
