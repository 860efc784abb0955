/**
 * @module graph/ontology
 * data/ontology.ttl, read once: its classes and predicates with labels, comments, domains, ranges
 * and the explore focus category of each relationship. The schema endpoint shows it; explore groups
 * relationships with it; the snapshot builder writes it into the graph.
 */
import { z } from "zod";
import ontologyTurtle from "../../data/ontology.ttl" with { type: "text" };
import { oxigraph } from "./oxigraph.ts";
import {
  DEFAULT_ONTOLOGY_NS,
  FOCUS_CATEGORIES,
  type FocusCategory,
  OWL,
  RDF_TYPE,
  RDFS,
  SCHEMA,
} from "../entities/vocabulary.ts";

export const ontologyClassSchema = z.object({
  iri: z.string(),
  name: z.string(),
  label: z.string(),
  comment: z.string(),
  subclass_of: z.array(z.string()),
  /** One of the seven searchable entity types (docs/spec.md §2.3). */
  entity_type: z.boolean(),
});
export type OntologyClass = z.infer<typeof ontologyClassSchema>;

export const ontologyPredicateSchema = z.object({
  iri: z.string(),
  name: z.string(),
  kind: z.enum(["relationship", "attribute"]),
  label: z.string(),
  comment: z.string(),
  domains: z.array(z.string()),
  ranges: z.array(z.string()),
  focus_category: z.enum(FOCUS_CATEGORIES).nullable(),
});
export type OntologyPredicate = z.infer<typeof ontologyPredicateSchema>;

export interface Ontology {
  namespace: string;
  classes: OntologyClass[];
  predicates: OntologyPredicate[];
  /** The ontology as Turtle, in the configured namespace. */
  turtle: string;
  categoryOf(predicateIri: string): FocusCategory | undefined;
  predicate(iri: string): OntologyPredicate | undefined;
  /** Short name of a class or predicate IRI (`Token`, `deployedOn`, `schema:name`). */
  shortName(iri: string): string;
}

const cache = new Map<string, Ontology>();

export function loadOntology(namespace: string = DEFAULT_ONTOLOGY_NS): Ontology {
  const cached = cache.get(namespace);
  if (cached) return cached;
  const turtle = ontologyTurtle.replaceAll(DEFAULT_ONTOLOGY_NS, namespace);
  const quads = oxigraph.parse(turtle, { format: "text/turtle" });

  const bySubject = new Map<string, Map<string, string[]>>();
  for (const quad of quads) {
    let props = bySubject.get(quad.subject.value);
    if (!props) bySubject.set(quad.subject.value, (props = new Map()));
    const values = props.get(quad.predicate.value) ?? [];
    values.push(quad.object.value);
    props.set(quad.predicate.value, values);
  }

  const shortName = (iri: string): string => {
    if (iri.startsWith(namespace)) return iri.slice(namespace.length);
    if (iri.startsWith(SCHEMA)) return `schema:${iri.slice(SCHEMA.length)}`;
    if (iri.startsWith("http://www.w3.org/2001/XMLSchema#")) return `xsd:${iri.slice(33)}`;
    if (iri.startsWith(OWL)) return `owl:${iri.slice(OWL.length)}`;
    return iri;
  };

  const classes: OntologyClass[] = [];
  const predicates: OntologyPredicate[] = [];
  for (const [iri, props] of bySubject) {
    const types = props.get(RDF_TYPE) ?? [];
    const label = props.get(`${RDFS}label`)?.[0] ?? shortName(iri);
    const comment = props.get(`${RDFS}comment`)?.[0] ?? "";
    if (types.includes(`${OWL}Class`)) {
      classes.push({
        iri,
        name: shortName(iri),
        label,
        comment,
        subclass_of: (props.get(`${RDFS}subClassOf`) ?? []).map(shortName),
        entity_type: props.get(`${namespace}entityType`)?.[0] === "true",
      });
    } else if (types.includes(`${OWL}ObjectProperty`) || types.includes(`${OWL}DatatypeProperty`)) {
      const category = props.get(`${namespace}focusCategory`)?.[0];
      if (category !== undefined && !(FOCUS_CATEGORIES as readonly string[]).includes(category)) {
        throw new Error(`ontology: ${iri} has unknown focus category ${category}`);
      }
      predicates.push({
        iri,
        name: shortName(iri),
        kind: types.includes(`${OWL}ObjectProperty`) ? "relationship" : "attribute",
        label,
        comment,
        domains: (props.get(`${SCHEMA}domainIncludes`) ?? []).map(shortName).sort(),
        ranges: (props.get(`${SCHEMA}rangeIncludes`) ?? []).map(shortName).sort(),
        focus_category: (category as FocusCategory | undefined) ?? null,
      });
    }
  }
  classes.sort((a, b) => a.name.localeCompare(b.name));
  predicates.sort((a, b) => a.name.localeCompare(b.name));
  const byIri = new Map(predicates.map((p) => [p.iri, p]));

  const ontology: Ontology = {
    namespace,
    classes,
    predicates,
    turtle,
    categoryOf: (iri) => byIri.get(iri)?.focus_category ?? undefined,
    predicate: (iri) => byIri.get(iri),
    shortName,
  };
  cache.set(namespace, ontology);
  return ontology;
}
