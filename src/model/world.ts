/**
 * @module model/world
 * The in-memory world a snapshot is built from: entities, facts (each with its source), sources
 * and the change history. Reference loaders and the synthetic generator write into it; the snapshot
 * writer turns it into Parquet tables and the RDF dump. Every fact names its source here, so no
 * later step can lose it.
 */
import {
  ATTRIBUTE_DATATYPES,
  type Attribute,
  type ClassName,
  type NodeType,
  type Relation,
  idPrefix,
  slugify,
  SAME_AS,
} from "../entities/vocabulary.ts";

export type SourceKind = "reference" | "synthetic" | "provider";

export interface SourceInfo {
  id: string;
  name: string;
  kind: SourceKind;
  /** True when the facts are generated demo data, not facts about the real world. */
  synthetic: boolean;
  license: string;
  attribution: string;
  package?: string;
  version?: string;
  homepage?: string;
}

export interface EntityRecord {
  id: string;
  type: NodeType;
  /** Classes of the entity: its type first, then subclasses (Token, Stablecoin). */
  labels: ClassName[];
  name: string;
  symbol?: string;
  aliases: string[];
  source: string;
  /** 0..1 rank hint: how prominent the entity is (size, market cap); orders ambiguous matches. */
  prominence: number;
}

export type Operation = "CREATE" | "UPDATE";

export interface ChangeRecord {
  ts: string;
  id: string;
  operation: Operation;
  fields: string[];
  source: string;
}

export { SAME_AS };
export type FactPredicate = Relation | Attribute | "rdf:type" | typeof SAME_AS;

/** Facts in columns: millions of them at full scale, so no object per fact. */
export interface FactColumns {
  subject: string[];
  predicate: FactPredicate[];
  /** An entity id (relations, rdf:type holds a class name), an IRI (owl:sameAs) or a literal's lexical form. */
  object: string[];
  isRelation: boolean[];
  source: string[];
  /** When the fact was taken from its source (ISO instant): the build for generated and reference facts, the fetch for provider facts. */
  asOf: string[];
}

export class World {
  readonly sources = new Map<string, SourceInfo>();
  readonly entities = new Map<string, EntityRecord>();
  readonly facts: FactColumns = { subject: [], predicate: [], object: [], isRelation: [], source: [], asOf: [] };
  /** The as-of of facts added from now on (see FactColumns.asOf); whoever adds facts of another time sets it first. */
  factAsOf = "";
  readonly changes: ChangeRecord[] = [];
  private readonly namesByType = new Map<NodeType, Set<string>>();

  addSource(info: SourceInfo): void {
    if (this.sources.has(info.id)) throw new Error(`duplicate source ${info.id}`);
    this.sources.set(info.id, info);
  }

  /**
   * A new id `<type>/<slug of key>`, suffixed -2, -3, ... when the slug is taken by an entity or by
   * an id `reserved` already (allocated for an entity not added yet).
   */
  allocateId(type: NodeType, key: string, reserved?: Set<string>): string {
    const free = (id: string) => !this.entities.has(id) && !reserved?.has(id);
    const base = `${idPrefix(type)}/${slugify(key)}`;
    if (free(base)) return base;
    for (let n = 2; ; n++) {
      const candidate = `${base}-${n}`;
      if (free(candidate)) return candidate;
    }
  }

  /** True when no node of `type` is named `name` yet (case-insensitive). */
  nameIsFree(type: NodeType, name: string): boolean {
    return !this.namesByType.get(type)?.has(name.toLowerCase());
  }

  addEntity(record: Omit<EntityRecord, "aliases" | "prominence"> & Partial<EntityRecord>): EntityRecord {
    if (this.entities.has(record.id)) throw new Error(`duplicate entity id ${record.id}`);
    if (!this.sources.has(record.source)) throw new Error(`entity ${record.id}: unknown source ${record.source}`);
    const entity: EntityRecord = { aliases: [], prominence: 0, ...record };
    this.entities.set(entity.id, entity);
    let names = this.namesByType.get(entity.type);
    if (!names) this.namesByType.set(entity.type, (names = new Set()));
    names.add(entity.name.toLowerCase());
    for (const label of entity.labels) this.push(entity.id, "rdf:type", label, true, entity.source);
    this.attr(entity.id, "schema:name", entity.name, entity.source);
    if (entity.symbol) this.attr(entity.id, "symbol", entity.symbol, entity.source);
    for (const alias of entity.aliases) this.attr(entity.id, "alias", alias, entity.source);
    return entity;
  }

  /** Another name of an entity (kept once, whatever its case and spacing), as an `alias` fact. */
  addAlias(id: string, alias: string, source: string): void {
    const entity = this.entities.get(id);
    if (!entity) throw new Error(`alias for unknown entity ${id}`);
    const key = (text: string) => text.toLowerCase().replace(/[\s_-]+/g, "");
    if ([entity.name, ...entity.aliases].some((n) => key(n) === key(alias))) return;
    entity.aliases.push(alias);
    this.attr(id, "alias", alias, source);
  }

  attr(id: string, name: Attribute, value: string | number | boolean, source: string): void {
    this.push(id, name, formatLiteral(name, value), false, source);
  }

  rel(id: string, relation: Relation, target: string, source: string): void {
    this.push(id, relation, target, true, source);
  }

  /** Only absolute http(s) IRIs that N-Quads can carry unescaped; returns false for anything else. */
  sameAs(id: string, iri: string, source: string): boolean {
    if (!/^https?:\/\/[^\s<>"{}|\\^`]+$/.test(iri)) return false;
    this.push(id, SAME_AS, iri, false, source);
    return true;
  }

  /** Registers an entity whose facts are loaded separately (a world read back from a snapshot). */
  restoreEntity(entity: EntityRecord): void {
    this.entities.set(entity.id, entity);
    let names = this.namesByType.get(entity.type);
    if (!names) this.namesByType.set(entity.type, (names = new Set()));
    names.add(entity.name.toLowerCase());
  }

  /** Appends a fact as read back from a snapshot (with its own as-of), or as a claim adds it. */
  restoreFact(subject: string, predicate: FactPredicate, object: string, isRelation: boolean, source: string, asOf = this.factAsOf): void {
    this.push(subject, predicate, object, isRelation, source, asOf);
  }

  /** Keeps only the facts `keep` accepts (by index); returns how many were dropped. */
  retainFacts(keep: (i: number) => boolean): number {
    const f = this.facts;
    let w = 0;
    const n = f.subject.length;
    for (let r = 0; r < n; r++) {
      if (!keep(r)) continue;
      f.subject[w] = f.subject[r]!;
      f.predicate[w] = f.predicate[r]!;
      f.object[w] = f.object[r]!;
      f.isRelation[w] = f.isRelation[r]!;
      f.source[w] = f.source[r]!;
      f.asOf[w] = f.asOf[r]!;
      w++;
    }
    for (const column of [f.subject, f.predicate, f.object, f.isRelation, f.source, f.asOf]) column.length = w;
    return n - w;
  }

  change(record: ChangeRecord): void {
    this.changes.push(record);
  }

  get factCount(): number {
    return this.facts.subject.length;
  }

  /** Checks the world is whole: every fact's subject, relation target and source exists. */
  validate(): string[] {
    const problems: string[] = [];
    const { subject, object, isRelation, source, predicate } = this.facts;
    for (let i = 0; i < subject.length && problems.length < 20; i++) {
      if (!this.entities.has(subject[i]!)) problems.push(`fact ${i}: unknown subject ${subject[i]}`);
      if (isRelation[i] && predicate[i] !== "rdf:type" && !this.entities.has(object[i]!)) {
        problems.push(`fact ${i}: ${subject[i]} ${predicate[i]} -> unknown ${object[i]}`);
      }
      if (!this.sources.has(source[i]!)) problems.push(`fact ${i}: unknown source ${source[i]}`);
    }
    for (const change of this.changes.slice(0, 100_000)) {
      if (!this.entities.has(change.id)) problems.push(`change of unknown entity ${change.id}`);
      if (problems.length >= 20) break;
    }
    return problems;
  }

  private push(s: string, p: FactPredicate, o: string, isRelation: boolean, source: string, asOf = this.factAsOf): void {
    const facts = this.facts;
    facts.subject.push(s);
    facts.predicate.push(p);
    facts.object.push(o);
    facts.isRelation.push(isRelation);
    facts.source.push(source);
    facts.asOf.push(asOf);
  }
}

function formatLiteral(name: Attribute, value: string | number | boolean): string {
  const datatype = ATTRIBUTE_DATATYPES[name];
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`attribute ${name}: not a finite number`);
    // Decimals keep at most 6 places; integers stay integers.
    if (datatype?.endsWith("integer") || datatype?.endsWith("gYear")) return String(Math.round(value));
    return value.toFixed(6).replace(/\.?0+$/, "");
  }
  return String(value);
}
