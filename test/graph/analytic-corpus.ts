/**
 * The differential corpus of analytic SPARQL: the analytic set of
 * scripts/bench/scale.ts, the console's examples, queries of the SPARQL tests, and shapes generated
 * over every predicate and class the snapshot has. Each runs on DuckDB (graph/analytic) and on the
 * graph store, and the answers must be the same.
 */
import type { GraphProfile } from "../../src/graph/analytic/graph-profile.ts";

export interface CorpusQuery {
  name: string;
  sparql: string;
}

/** Queries written out: the benchmark's, the console's and hand-picked edges. */
export const WRITTEN: CorpusQuery[] = [
  // scripts/bench/scale.ts, the analytic set
  { name: "entities by class", sparql: "SELECT ?class (COUNT(?s) AS ?n) WHERE { ?s a ?class } GROUP BY ?class ORDER BY DESC(?n)" },
  { name: "predicate histogram", sparql: "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p ORDER BY DESC(?n)" },
  { name: "investors by portfolio", sparql: "SELECT ?investor (COUNT(?x) AS ?n) WHERE { ?investor ckg:investedIn ?x } GROUP BY ?investor ORDER BY DESC(?n) LIMIT 20" },
  { name: "protocols per chain", sparql: "SELECT ?chain (COUNT(?p) AS ?n) WHERE { ?p a ckg:Protocol ; ckg:deployedOn ?chain } GROUP BY ?chain ORDER BY DESC(?n)" },
  // the console's example
  { name: "console: entities by class", sparql: "SELECT ?class (COUNT(?e) AS ?n) WHERE {\n  ?e a ?class .\n} GROUP BY ?class ORDER BY DESC(?n)" },
  // edges
  { name: "count of everything", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }" },
  { name: "count nothing", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?s ckg:noSuchPredicate ?o }" },
  { name: "group nothing", sparql: "SELECT ?s (COUNT(*) AS ?n) WHERE { ?s ckg:noSuchPredicate ?o } GROUP BY ?s" },
  { name: "sum of nothing", sparql: "SELECT (SUM(?v) AS ?total) WHERE { ?s ckg:noSuchPredicate ?v }" },
  { name: "meta labels", sparql: "SELECT ?l (COUNT(*) AS ?n) WHERE { ?c rdfs:label ?l } GROUP BY ?l" },
  { name: "meta classes", sparql: "SELECT (COUNT(?c) AS ?n) WHERE { ?c a owl:Class }" },
  { name: "source names", sparql: "SELECT ?name (COUNT(*) AS ?n) WHERE { ?s a ckg:Source ; schema:name ?name } GROUP BY ?name ORDER BY ?name" },
  { name: "synthetic sources", sparql: "SELECT ?flag (COUNT(?s) AS ?n) WHERE { ?s ckg:synthetic ?flag } GROUP BY ?flag" },
  { name: "literal kinds by predicate", sparql: "SELECT ?p (COUNT(?o) AS ?n) WHERE { ?s ?p ?o FILTER(isLiteral(?o)) } GROUP BY ?p ORDER BY ?p" },
  { name: "iri objects by predicate", sparql: "SELECT ?p (COUNT(?o) AS ?n) WHERE { ?s ?p ?o FILTER(isIRI(?o)) } GROUP BY ?p ORDER BY DESC(?n) ?p" },
  { name: "objects grouped across kinds", sparql: "SELECT ?o (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?o HAVING (COUNT(*) > 50)" },
  { name: "distinct objects", sparql: "SELECT (COUNT(DISTINCT ?o) AS ?n) WHERE { ?s ?p ?o }" },
  { name: "distinct subjects", sparql: "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?p ?o }" },
  { name: "distinct predicates", sparql: "SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE { ?s ?p ?o }" },
  { name: "non-canonical decimal constant", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?pool ckg:feeTier 0.30 }" },
  { name: "decimal constant", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?pool ckg:feeTier 0.3 }" },
  { name: "integer constant with zeros", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?t ckg:decimals 018 }" },
  { name: "string constant", sparql: 'SELECT (COUNT(*) AS ?n) WHERE { ?c ckg:chainFamily "evm" }' },
  { name: "string filter", sparql: 'SELECT (COUNT(*) AS ?n) WHERE { ?c ckg:chainFamily ?f FILTER(?f = "evm") }' },
  { name: "string filter negated", sparql: 'SELECT ?f (COUNT(*) AS ?n) WHERE { ?c ckg:chainFamily ?f FILTER(!(?f = "evm")) } GROUP BY ?f ORDER BY ?f' },
  { name: "string contains", sparql: 'SELECT (COUNT(?name) AS ?n) WHERE { ?t a ckg:Token ; schema:name ?name FILTER(CONTAINS(?name, "Coin")) }' },
  { name: "str of iri starts", sparql: 'SELECT (COUNT(*) AS ?n) WHERE { ?t a ckg:Token FILTER(STRSTARTS(STR(?t), "https://ckg.example/id/token/u")) }' },
  { name: "strends", sparql: 'SELECT ?name (COUNT(*) AS ?n) WHERE { ?x schema:name ?name FILTER(STRENDS(?name, "DAO")) } GROUP BY ?name ORDER BY DESC(?n) ?name LIMIT 10' },
  { name: "iri filter", sparql: "SELECT (COUNT(?p) AS ?n) WHERE { ?p ckg:deployedOn ?c FILTER(?c = <chain/ethereum>) }" },
  { name: "iri filter negated", sparql: "SELECT (COUNT(?p) AS ?n) WHERE { ?p ckg:deployedOn ?c FILTER(?c != <chain/ethereum>) }" },
  { name: "iri vs literal equality", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?s schema:name ?name FILTER(?name != <chain/ethereum>) }" },
  { name: "numeric range", sparql: "SELECT (COUNT(*) AS ?n) (SUM(?d) AS ?total) WHERE { ?t ckg:decimals ?d FILTER(?d >= 8 && ?d < 18) }" },
  { name: "numeric vs string", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?x schema:name ?v FILTER(?v > 3) }" },
  { name: "numeric not", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?x schema:name ?v FILTER(!(?v > 3)) }" },
  { name: "string equals number, negated", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?x schema:name ?v FILTER(!(?v = 3)) }" },
  { name: "date equals string, negated", sparql: 'SELECT (COUNT(*) AS ?n) WHERE { ?x ckg:cliffDate ?v FILTER(!(?v = "2024-01-01")) }' },
  { name: "entity equals number", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?x ckg:deployedOn ?v FILTER(?v != 3) }" },
  { name: "anyURI equals string, negated", sparql: 'SELECT (COUNT(*) AS ?n) WHERE { ?x schema:url ?v FILTER(!(?v = "x")) }' },
  { name: "year equals number", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?x ckg:foundedYear ?v FILTER(?v = 2020) }" },
  { name: "language string equals string, negated", sparql: 'SELECT (COUNT(*) AS ?n) WHERE { ?c rdfs:label ?l FILTER(!(?l = "Token")) }' },
  { name: "or with error", sparql: 'SELECT (COUNT(*) AS ?n) WHERE { ?x ckg:chainFamily ?v FILTER(?v > 3 || ?v = "evm") }' },
  { name: "sum decimal per group", sparql: "SELECT ?stage (SUM(?usd) AS ?total) (COUNT(?r) AS ?n) WHERE { ?r ckg:roundStage ?stage ; ckg:amountUsd ?usd } GROUP BY ?stage ORDER BY DESC(?total) ?stage" },
  { name: "sum over strings", sparql: "SELECT ?p (SUM(?o) AS ?total) WHERE { ?s ?p ?o } GROUP BY ?p ORDER BY ?p" },
  { name: "having sum", sparql: "SELECT ?investor (SUM(?usd) AS ?total) WHERE { ?r ckg:leadInvestor ?investor ; ckg:amountUsd ?usd } GROUP BY ?investor HAVING (SUM(?usd) > 100000000) ORDER BY DESC(?total) ?investor LIMIT 15" },
  { name: "optional count", sparql: "SELECT ?type (COUNT(?s) AS ?all) (COUNT(?sym) AS ?with) WHERE { ?s a ?type OPTIONAL { ?s ckg:symbol ?sym } } GROUP BY ?type ORDER BY ?type" },
  { name: "optional unbound groups", sparql: "SELECT ?sym (COUNT(*) AS ?n) WHERE { ?s a ckg:Chain OPTIONAL { ?s ckg:symbol ?sym } } GROUP BY ?sym ORDER BY DESC(?n) ?sym LIMIT 12" },
  { name: "optional two triples", sparql: "SELECT (COUNT(?t) AS ?n) (COUNT(*) AS ?all) WHERE { ?p a ckg:Protocol OPTIONAL { ?p ckg:governanceToken ?t . ?t ckg:symbol ?sym } }" },
  { name: "optional bound filter", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?p a ckg:Protocol OPTIONAL { ?p ckg:governanceToken ?t } FILTER(!BOUND(?t)) }" },
  { name: "join three", sparql: "SELECT ?chain (COUNT(DISTINCT ?investor) AS ?n) WHERE { ?investor ckg:investedIn ?p . ?p ckg:deployedOn ?chain . ?chain a ckg:Chain } GROUP BY ?chain ORDER BY DESC(?n) ?chain LIMIT 10" },
  { name: "a variable twice in one triple", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?x ?p ?x }" },
  { name: "a variable twice in an optional triple", sparql: "SELECT (COUNT(?p) AS ?n) WHERE { ?x a ckg:Protocol OPTIONAL { ?x ?p ?x } }" },
  { name: "subject equals object", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?x ckg:forkOf ?y . ?y ckg:forkOf ?x }" },
  { name: "group by two", sparql: "SELECT ?kind ?fee (COUNT(*) AS ?n) WHERE { ?pool ckg:poolKind ?kind ; ckg:feeTier ?fee } GROUP BY ?kind ?fee ORDER BY ?kind ?fee" },
  { name: "order by number", sparql: "SELECT ?fee (COUNT(*) AS ?n) WHERE { ?pool ckg:feeTier ?fee } GROUP BY ?fee ORDER BY DESC(?fee)" },
  { name: "order by date", sparql: "SELECT ?d (COUNT(*) AS ?n) WHERE { ?v ckg:cliffDate ?d } GROUP BY ?d ORDER BY ?d LIMIT 20" },
  { name: "order by year", sparql: "SELECT ?y (COUNT(*) AS ?n) WHERE { ?o ckg:foundedYear ?y } GROUP BY ?y ORDER BY DESC(?y) LIMIT 30" },
  { name: "offset", sparql: "SELECT ?c (COUNT(*) AS ?n) WHERE { ?s a ?c } GROUP BY ?c ORDER BY ?c OFFSET 3 LIMIT 5" },
  { name: "group without aggregate", sparql: "SELECT ?c WHERE { ?s a ?c } GROUP BY ?c ORDER BY ?c" },
  { name: "distinct groups", sparql: "SELECT DISTINCT ?kind WHERE { ?pool ckg:poolKind ?kind ; ckg:feeTier ?fee } GROUP BY ?kind ?fee" },
  { name: "count by class with labels", sparql: "SELECT ?class ?label (COUNT(?s) AS ?n) WHERE { ?s a ?class . ?class rdfs:label ?label } GROUP BY ?class ?label ORDER BY DESC(?n) ?class" },
  { name: "blank node subject", sparql: "SELECT (COUNT(*) AS ?n) WHERE { [] ckg:investedIn ?x }" },
  { name: "constant subject", sparql: "SELECT ?p (COUNT(*) AS ?n) WHERE { <chain/ethereum> ?p ?o } GROUP BY ?p ORDER BY ?p" },
  { name: "order by aggregate expression", sparql: "SELECT ?c WHERE { ?s a ?c } GROUP BY ?c ORDER BY DESC(COUNT(?s)) ?c LIMIT 5" },
  { name: "isiri not", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o FILTER(!isIRI(?o)) }" },
  { name: "numbers among every object", sparql: "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o FILTER(?o > 100 && ?o <= 1000000) } GROUP BY ?p ORDER BY ?p" },
  { name: "a number equal among every object, optional", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?s a ckg:Token OPTIONAL { ?s ckg:decimals ?o } FILTER(?o = 18 && 6 < ?o) }" },
  { name: "min", sparql: "SELECT (MIN(?d) AS ?m) WHERE { ?t ckg:decimals ?d }" },
  { name: "avg", sparql: "SELECT (AVG(?d) AS ?m) WHERE { ?t ckg:decimals ?d }" },
  { name: "avg max min decimal per group", sparql: "SELECT ?stage (AVG(?usd) AS ?mean) (MAX(?usd) AS ?top) (MIN(?usd) AS ?least) WHERE { ?r ckg:roundStage ?stage ; ckg:amountUsd ?usd } GROUP BY ?stage ORDER BY DESC(?mean) ?stage" },
  { name: "avg of nothing", sparql: "SELECT (AVG(?d) AS ?m) (MIN(?d) AS ?least) (COUNT(*) AS ?n) WHERE { ?t ckg:decimals ?d FILTER(?d > 1000) }" },
  { name: "avg over strings", sparql: "SELECT ?p (AVG(?o) AS ?mean) WHERE { ?s ?p ?o } GROUP BY ?p ORDER BY ?p" },
  { name: "min max dates", sparql: "SELECT (MIN(?d) AS ?first) (MAX(?d) AS ?last) WHERE { ?v ckg:cliffDate ?d }" },
  { name: "max string per group", sparql: "SELECT ?c (MAX(?name) AS ?last) WHERE { ?s a ?c ; schema:name ?name } GROUP BY ?c ORDER BY ?c" },
  { name: "min entity per group", sparql: "SELECT ?chain (MIN(?p) AS ?first) WHERE { ?p ckg:deployedOn ?chain } GROUP BY ?chain ORDER BY ?first LIMIT 10" },
  { name: "order by avg expression", sparql: "SELECT ?kind WHERE { ?pool ckg:poolKind ?kind ; ckg:feeTier ?fee } GROUP BY ?kind ORDER BY DESC(AVG(?fee)) ?kind" },
];

/** Queries the translator must leave to the graph store (and the answer is still right). */
export const LEFT_TO_THE_GRAPH_STORE: CorpusQuery[] = [
  { name: "avg of an optional variable", sparql: "SELECT ?c (AVG(?d) AS ?m) WHERE { ?t a ?c OPTIONAL { ?t ckg:decimals ?d } } GROUP BY ?c" },
  { name: "min of terms of mixed kinds", sparql: "SELECT ?p (MIN(?o) AS ?m) WHERE { ?s ?p ?o } GROUP BY ?p" },
  { name: "avg distinct", sparql: "SELECT (AVG(DISTINCT ?d) AS ?m) WHERE { ?t ckg:decimals ?d }" },
  { name: "having avg", sparql: "SELECT ?stage WHERE { ?r ckg:roundStage ?stage ; ckg:amountUsd ?usd } GROUP BY ?stage HAVING (AVG(?usd) > 1000000)" },
  { name: "union", sparql: "SELECT (COUNT(*) AS ?n) WHERE { { ?s a ckg:Token } UNION { ?s a ckg:Chain } }" },
  { name: "graph", sparql: "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g" },
  { name: "path", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?s ckg:parentChain+ ?o }" },
  { name: "values", sparql: "SELECT ?c (COUNT(*) AS ?n) WHERE { VALUES ?c { ckg:Token ckg:Chain } ?s a ?c } GROUP BY ?c" },
  { name: "bind", sparql: "SELECT ?x (COUNT(*) AS ?n) WHERE { ?s a ?c BIND(STR(?c) AS ?x) } GROUP BY ?x" },
  { name: "subquery", sparql: "SELECT (COUNT(*) AS ?n) WHERE { { SELECT ?s WHERE { ?s a ckg:Token } LIMIT 10 } }" },
  { name: "regex", sparql: 'SELECT (COUNT(*) AS ?n) WHERE { ?s schema:name ?name FILTER(REGEX(?name, "^Uni")) }' },
  { name: "from", sparql: "SELECT (COUNT(*) AS ?n) FROM <https://ckg.example/source/ckg> WHERE { ?s ?p ?o }" },
  { name: "group concat", sparql: "SELECT (GROUP_CONCAT(?sym) AS ?all) WHERE { <chain/ethereum> ckg:symbol ?sym }" },
  { name: "sample", sparql: "SELECT (SAMPLE(?s) AS ?one) WHERE { ?s a ckg:Chain }" },
  { name: "double constant", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?pool ckg:feeTier 3e-1 }" },
  { name: "variable comparison", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?a ckg:forkOf ?b FILTER(?a != ?b) }" },
  { name: "alternative path", sparql: "SELECT (SUM(?o) AS ?total) WHERE { ?s ckg:decimals|ckg:feeTier ?o }" },
  { name: "not analytic", sparql: "SELECT ?s WHERE { ?s a ckg:Chain } LIMIT 3" },
];

const SHORT: Record<string, string> = { "rdf:type": "a", "owl:sameAs": "owl:sameAs" };
const term = (code: string) => SHORT[code] ?? (code.includes(":") ? code : `ckg:${code}`);

/** Shapes over every predicate (and class) the snapshot has: at least 4 per predicate. */
export function generated(profile: GraphProfile): CorpusQuery[] {
  const queries: CorpusQuery[] = [];
  for (const [code, objects] of [...profile.predicates].sort(([a], [b]) => a.localeCompare(b))) {
    const p = term(code);
    queries.push(
      { name: `${code}: count`, sparql: `SELECT (COUNT(*) AS ?n) (COUNT(DISTINCT ?s) AS ?subjects) (COUNT(DISTINCT ?o) AS ?objects) WHERE { ?s ${p} ?o }` },
      { name: `${code}: by subject`, sparql: `SELECT ?s (COUNT(?o) AS ?n) WHERE { ?s ${p} ?o } GROUP BY ?s HAVING (COUNT(?o) > 1) ORDER BY DESC(?n) ?s LIMIT 7` },
      { name: `${code}: by object`, sparql: `SELECT ?o (COUNT(*) AS ?n) WHERE { ?s ${p} ?o } GROUP BY ?o ORDER BY DESC(?n) LIMIT 9` },
      { name: `${code}: by subject class`, sparql: `SELECT ?c (COUNT(?o) AS ?n) WHERE { ?s ${p} ?o ; a ?c } GROUP BY ?c ORDER BY ?c` },
    );
    if (objects.kinds.includes("literal")) {
      queries.push({ name: `${code}: sum`, sparql: `SELECT (SUM(?o) AS ?total) (COUNT(?o) AS ?n) WHERE { ?s ${p} ?o }` });
    }
    if (objects.kinds.includes("entity")) {
      queries.push({
        name: `${code}: object class`,
        sparql: `SELECT ?c (COUNT(DISTINCT ?o) AS ?n) WHERE { ?s ${p} ?o . OPTIONAL { ?o a ?c } } GROUP BY ?c ORDER BY DESC(?n) ?c`,
      });
    }
  }
  return queries;
}
