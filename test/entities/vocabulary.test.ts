import { describe, expect, test } from "bun:test";
import { loadOntology } from "../../src/graph/ontology.ts";
import {
  ATTRIBUTES,
  ENTITY_TYPES,
  FOCUS_CATEGORIES,
  RELATIONS,
  SUBCLASSES,
  SUPPORT_TYPES,
  entityIdOf,
  entityUri,
  idPrefix,
  namespaces,
  typeOfId,
} from "../../src/entities/vocabulary.ts";

const ontology = loadOntology();

describe("vocabulary and data/ontology.ttl agree", () => {
  test("every class the code writes is in the ontology, with label and comment", () => {
    const names = new Map(ontology.classes.map((c) => [c.name, c]));
    for (const name of [...ENTITY_TYPES, ...SUPPORT_TYPES, ...Object.keys(SUBCLASSES)]) {
      const found = names.get(name);
      expect(found, name).toBeDefined();
      expect(found!.label.length).toBeGreaterThan(0);
      expect(found!.comment.length).toBeGreaterThan(0);
    }
    expect(ontology.classes.filter((c) => c.entity_type).map((c) => c.name).sort()).toEqual([...ENTITY_TYPES].sort());
  });

  test("every relationship has a focus category, label, comment, domain and range", () => {
    for (const name of RELATIONS) {
      const predicate = ontology.predicates.find((p) => p.name === name);
      expect(predicate, name).toBeDefined();
      expect(predicate!.kind).toBe("relationship");
      expect(predicate!.focus_category).not.toBeNull();
      expect(predicate!.domains.length).toBeGreaterThan(0);
      expect(predicate!.ranges.length).toBeGreaterThan(0);
    }
  });

  test("every focus category has at least one relationship", () => {
    for (const category of FOCUS_CATEGORIES) {
      expect(ontology.predicates.some((p) => p.focus_category === category), category).toBe(true);
    }
  });

  test("every attribute is a datatype property of the ontology", () => {
    for (const name of ATTRIBUTES) {
      const predicate = ontology.predicates.find((p) => p.name === name);
      expect(predicate, name).toBeDefined();
      expect(predicate!.kind).toBe("attribute");
    }
  });

  test("the namespace is configurable and the ontology follows it", () => {
    const other = loadOntology("https://kg.example.org/onto#");
    expect(other.classes.find((c) => c.name === "Token")!.iri).toBe("https://kg.example.org/onto#Token");
    expect(namespaces("https://kg.example.org/onto#").entity).toBe("https://kg.example.org/id/");
  });

  test("ids and URIs convert both ways", () => {
    const ns = namespaces();
    expect(entityUri(ns, "token/usd-coin")).toBe("https://ckg.example/id/token/usd-coin");
    expect(entityIdOf(ns, "https://ckg.example/id/token/usd-coin")).toBe("token/usd-coin");
    expect(idPrefix("FundingRound")).toBe("funding-round");
    expect(typeOfId("funding-round/x")).toBe("FundingRound");
  });
});
