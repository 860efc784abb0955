/**
 * @module graph/fact-index
 * An entity's neighbourhood (explore) answered in the server's own process, from compact adjacency
 * arrays built from the snapshot's facts at load (facts.parquet: the snapshot's truth, which graph.nq
 * is written from, fact for fact, in the named graph of its source). The graph process answered it
 * with 2 + P SPARQL queries per entity (outgoing facts joined to their objects' names and types, the
 * incoming counts, then the first items of each incoming predicate), one entity at a time in one
 * process: on the full data 0.2 ms at the median, 6 ms on average for the 300 biggest hubs and up to
 * 40 ms. Here it is array lookups: 0.01 ms at the median, 0.1 ms for those hubs.
 *
 * Layout: nodes are the name index's positions. Outgoing facts sit in one range per subject
 * (`outStart`), ordered by predicate, then as in the file; each has a predicate, a source, a kind
 * (entity, literal, class, IRI, or the subject's own name) with a datatype, and an object: a node, a
 * class, or a string in `text` (UTF-8, decoded when asked). Incoming links (entity objects only) sit
 * in one range per object (`inStart`), grouped by predicate, the more prominent subjects first. The
 * answer says what those queries said (test/graph/fact-index.test.ts checks it on every entity of a
 * snapshot): a fact asserted twice by one source is one fact, as in the graph. Two choices differ: a
 * related node's name is its name in the name index (the graph gave any one of its schema:name
 * values; the generated and reference data have one each), and a cut relationship shows its most
 * prominent subjects (the graph gave its hash order). Type lists are shared between answers: read
 * them, do not change them.
 */
import type { DuckDBInstance } from "@duckdb/node-api";
import type { NameIndex } from "../entities/name-index.ts";
import type { Namespaces } from "../entities/vocabulary.ts";
import { ENTITY, type FactArrays, CLASS, IRI, KIND_BITS, OWN_NAME } from "./fact-arrays.ts";
import { readFacts } from "./fact-index-build.ts";
import type { Term } from "./protocol.ts";

/** An entity linked to the one explored. */
export interface Related {
  uri: string;
  name?: string;
  /** Class IRIs of its rdf:type facts. */
  types: string[];
  /** Named graph (source) of the fact that links it. */
  graph: string;
}

export interface Neighbourhood {
  /** False when the URI is the subject of no fact. */
  exists: boolean;
  /** Facts with the entity as subject: attributes and outgoing relationships. */
  outgoing: { predicate: string; object: Term; graph: string; name?: string; types: string[] }[];
  /** Incoming relationships per predicate: how many subjects link, and the first `limit` of them (one item per subject and source). */
  incoming: { predicate: string; total: number; items: Related[] }[];
}

const decoder = new TextDecoder();

export class FactIndex {
  private constructor(
    private readonly a: FactArrays,
    private readonly names: NameIndex,
    private readonly ns: Namespaces,
  ) {}

  /** Reads a snapshot's facts.parquet and entities.parquet; `names` is the same snapshot's name index. */
  static async fromParquet(duck: DuckDBInstance, files: { facts: string; entities: string }, names: NameIndex, ns: Namespaces): Promise<FactIndex> {
    return new FactIndex(await readFacts(duck, files, names, ns), names, ns);
  }

  /** Facts held (after duplicates). */
  get facts(): number {
    return this.a.outObject.length;
  }

  get skipped(): number {
    return this.a.skipped;
  }

  get duplicates(): number {
    return this.a.duplicates;
  }

  /** Bytes of the arrays this index holds. */
  get bytes(): number {
    const a = this.a;
    return [a.outStart, a.outPred, a.outSource, a.outKind, a.outObject, a.inStart, a.inSubject, a.inPred, a.inSource, a.typeOf, a.text, a.textStart].reduce(
      (sum, array) => sum + array.byteLength,
      0,
    );
  }

  /**
   * The entity's facts as subject (at most `outgoingLimit`), and per predicate of the links to it
   * the number of distinct subjects and the first `limit` of them (one item per subject and source).
   */
  neighbourhood(uri: string, limit: number, outgoingLimit: number): Neighbourhood {
    const id = uri.startsWith(this.ns.entity) ? uri.slice(this.ns.entity.length) : undefined;
    const node = id === undefined ? undefined : this.names.positionOf(id);
    if (node === undefined) return { exists: false, outgoing: [], incoming: [] };
    const a = this.a;
    const outgoing: Neighbourhood["outgoing"] = [];
    const outEnd = Math.min(a.outStart[node + 1]!, a.outStart[node]! + outgoingLimit);
    for (let f = a.outStart[node]!; f < outEnd; f++) {
      const kind = a.outKind[f]! & 7;
      const object = a.outObject[f]!;
      const entry: Neighbourhood["outgoing"][number] = { predicate: a.predicates[a.outPred[f]!]!, object: this.term(f, node), graph: a.sources[a.outSource[f]!]!, types: [] };
      if (kind === ENTITY) {
        entry.name = this.names.nameAt(object);
        entry.types = a.typeSets[a.typeOf[object]!]!;
      }
      outgoing.push(entry);
    }
    const incoming: Neighbourhood["incoming"] = [];
    const end = a.inStart[node + 1]!;
    for (let run = a.inStart[node]!; run < end; ) {
      const predicate = a.inPred[run]!;
      let total = 0;
      const items: Related[] = [];
      let i = run;
      for (; i < end && a.inPred[i] === predicate; i++) {
        const subject = a.inSubject[i]!;
        if (i === run || a.inSubject[i - 1] !== subject) total++;
        if (total > limit) continue;
        items.push({ uri: `${this.ns.entity}${this.names.idAt(subject)}`, name: this.names.nameAt(subject), graph: a.sources[a.inSource[i]!]!, types: a.typeSets[a.typeOf[subject]!]! });
      }
      incoming.push({ predicate: a.predicates[predicate]!, total, items });
      run = i;
    }
    return { exists: a.outStart[node + 1]! > a.outStart[node]!, outgoing, incoming };
  }

  private term(f: number, subject: number): Term {
    const a = this.a;
    const kindByte = a.outKind[f]!;
    const object = a.outObject[f]!;
    switch (kindByte & 7) {
      case ENTITY:
        return { type: "uri", value: `${this.ns.entity}${this.names.idAt(object)}` };
      case CLASS:
        return { type: "uri", value: a.classes[object]! };
      case IRI:
        return { type: "uri", value: this.text(object) };
      case OWN_NAME:
        return { type: "literal", value: this.names.nameAt(subject) };
      default: {
        const datatype = a.datatypes[kindByte >> KIND_BITS];
        return datatype === undefined ? { type: "literal", value: this.text(object) } : { type: "literal", value: this.text(object), datatype };
      }
    }
  }

  private text(index: number): string {
    return decoder.decode(this.a.text.subarray(this.a.textStart[index]!, this.a.textStart[index + 1]!));
  }
}
