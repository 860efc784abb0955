/**
 * The held-out analytic set: queries generated from the ontology (data/ontology.ttl: each
 * predicate's domains and ranges) and the snapshot itself (the predicates its facts use, the classes
 * its entities have), never written for the benchmark. Templates cover counts, SUM, AVG, MIN and
 * MAX, one or two group keys, joins of two to four triple patterns, FILTER on literals, OPTIONAL,
 * ORDER BY with LIMIT; a seeded draw picks which predicates and classes fill them, so the set is
 * the same on every run of one snapshot and no one chose its queries by hand.
 * Run by the differential test (analytic-sparql.test.ts) and by scripts/bench/analytic.ts.
 */
import type { GraphProfile } from "../../src/graph/analytic/graph-profile.ts";
import { loadOntology } from "../../src/graph/ontology.ts";
import type { CorpusQuery } from "./analytic-corpus.ts";

const NUMBERS = new Set(["xsd:decimal", "xsd:integer"]);
const term = (name: string) => (name.includes(":") ? name : `ckg:${name}`);

/** A small deterministic generator (mulberry32): the draw depends on the seed alone. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Predicate {
  name: string;
  domains: string[];
  ranges: string[];
  numeric: boolean;
  /** Objects are entities (an object property whose facts hold entity objects). */
  entity: boolean;
  literal: boolean;
}

/**
 * The held-out set for a snapshot: `classes` are the classes its entities have (rdf:type objects,
 * short names). At least `count` queries (each template family contributes; the draw fills the rest).
 */
export function heldOut(profile: GraphProfile, classes: readonly string[], count = 120, seed = 50): CorpusQuery[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const has = new Set(classes);
  const predicates: Predicate[] = loadOntology(profile.ns.ontology)
    .predicates.filter((p) => profile.predicates.has(p.name))
    .map((p) => {
      const objects = profile.predicates.get(p.name)!;
      return {
        name: p.name,
        domains: p.domains.filter((d) => has.has(d)),
        ranges: p.ranges,
        numeric: p.ranges.some((r) => NUMBERS.has(r)) && objects.kinds.includes("literal"),
        entity: objects.kinds.includes("entity"),
        literal: objects.kinds.includes("literal"),
      };
    })
    .filter((p) => p.domains.length > 0);
  const ofDomain = (cls: string) => predicates.filter((p) => p.domains.includes(cls));
  const numeric = predicates.filter((p) => p.numeric);
  const linking = predicates.filter((p) => p.entity && p.ranges.some((r) => has.has(r) && ofDomain(r).length > 0));

  // Each template draws its predicates and classes; undefined when the draw does not fit.
  const templates: ((n: number) => CorpusQuery | undefined)[] = [
    (n) => {
      const p = pick(predicates);
      const c = pick(p.domains);
      return { name: `${n} count ${c}.${p.name}`, sparql: `SELECT (COUNT(*) AS ?n) (COUNT(DISTINCT ?o) AS ?objects) WHERE { ?s a ${term(c)} ; ${term(p.name)} ?o }` };
    },
    (n) => {
      const p = pick(predicates);
      const k = 5 + Math.floor(next() * 20);
      return { name: `${n} top objects of ${p.name}`, sparql: `SELECT ?o (COUNT(?s) AS ?n) WHERE { ?s ${term(p.name)} ?o } GROUP BY ?o ORDER BY DESC(?n) ?o LIMIT ${k}` };
    },
    (n) => {
      const p = pick(predicates);
      const c = pick(p.domains);
      return { name: `${n} objects of ${p.name} for ${c}`, sparql: `SELECT ?o (COUNT(?s) AS ?n) WHERE { ?s a ${term(c)} ; ${term(p.name)} ?o } GROUP BY ?o ORDER BY DESC(?n) ?o LIMIT 20` };
    },
    (n) => {
      const v = pick(numeric);
      const c = pick(v.domains);
      const keys = ofDomain(c).filter((p) => p.name !== v.name && !p.numeric);
      if (keys.length === 0) return undefined;
      const k = pick(keys);
      const agg = pick(["SUM", "SUM", "AVG", "MIN", "MAX"]);
      return {
        name: `${n} ${agg} of ${v.name} by ${k.name}`,
        sparql: `SELECT ?k (${agg}(?v) AS ?x) (COUNT(?s) AS ?n) WHERE { ?s ${term(v.name)} ?v ; ${term(k.name)} ?k } GROUP BY ?k ORDER BY DESC(?x) ?k LIMIT 15`,
      };
    },
    (n) => {
      const v = pick(numeric);
      const agg = pick(["SUM", "AVG", "MIN", "MAX"]);
      return { name: `${n} ${agg} of ${v.name}`, sparql: `SELECT (${agg}(?v) AS ?x) (COUNT(?v) AS ?n) WHERE { ?s ${term(v.name)} ?v }` };
    },
    (n) => {
      const v = pick(numeric);
      const bound = pick([0, 1, 10, 18, 1000, 1000000, 50000000]);
      const op = pick([">", ">=", "<", "<="]);
      return { name: `${n} ${v.name} ${op} ${bound}`, sparql: `SELECT (COUNT(*) AS ?n) (SUM(?v) AS ?total) WHERE { ?s ${term(v.name)} ?v FILTER(?v ${op} ${bound}) }` };
    },
    (n) => {
      const p = pick(predicates.filter((x) => x.literal && !x.numeric));
      const text = pick(["a", "e", "Protocol", "DAO", "-", "1"]);
      const fn = pick(["CONTAINS", "STRSTARTS", "STRENDS"]);
      return { name: `${n} ${fn} ${p.name} "${text}"`, sparql: `SELECT (COUNT(*) AS ?n) WHERE { ?s ${term(p.name)} ?o FILTER(${fn}(STR(?o), "${text}")) }` };
    },
    (n) => {
      const c = pick(classes.filter((x) => ofDomain(x).length >= 2));
      const [a, b] = [pick(ofDomain(c)), pick(ofDomain(c))];
      if (a.name === b.name || a.numeric || b.numeric) return undefined;
      return {
        name: `${n} ${c} by ${a.name} and ${b.name}`,
        sparql: `SELECT ?a ?b (COUNT(?s) AS ?n) WHERE { ?s a ${term(c)} ; ${term(a.name)} ?a ; ${term(b.name)} ?b } GROUP BY ?a ?b ORDER BY DESC(?n) ?a ?b LIMIT 25`,
      };
    },
    (n) => {
      const p = pick(linking);
      const r = pick(p.ranges.filter((x) => has.has(x) && ofDomain(x).length > 0));
      const q = pick(ofDomain(r));
      const patterns = 2 + Math.floor(next() * 3); // two to four triple patterns
      const extra = [`?x a ${term(r)}`, `?s a ${term(pick(p.domains))}`].slice(0, patterns - 2);
      return {
        name: `${n} ${p.name} then ${q.name} (${patterns} patterns)`,
        sparql: `SELECT ?y (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ${term(p.name)} ?x . ?x ${term(q.name)} ?y . ${extra.map((e) => `${e} . `).join("")}} GROUP BY ?y ORDER BY DESC(?n) ?y LIMIT 10`,
      };
    },
    (n) => {
      const c = pick(classes.filter((x) => ofDomain(x).length > 0));
      const p = pick(ofDomain(c));
      return {
        name: `${n} ${c} with optional ${p.name}`,
        sparql: `SELECT (COUNT(*) AS ?all) (COUNT(?o) AS ?with) (COUNT(DISTINCT ?s) AS ?subjects) WHERE { ?s a ${term(c)} OPTIONAL { ?s ${term(p.name)} ?o } }`,
      };
    },
    (n) => {
      const p = pick(predicates);
      const c = pick(p.domains);
      return { name: `${n} ${c} by count of ${p.name}`, sparql: `SELECT ?s (COUNT(?o) AS ?n) WHERE { ?s a ${term(c)} ; ${term(p.name)} ?o } GROUP BY ?s ORDER BY DESC(?n) ?s LIMIT 10` };
    },
  ];
  const queries: CorpusQuery[] = [];
  const seen = new Set<string>();
  for (let attempt = 0; queries.length < count && attempt < count * 50; attempt++) {
    const query = templates[attempt % templates.length]!(queries.length + 1);
    if (query && !seen.has(query.sparql)) {
      seen.add(query.sparql);
      queries.push(query);
    }
  }
  return queries;
}
