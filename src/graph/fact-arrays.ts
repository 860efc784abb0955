/**
 * @module graph/fact-arrays
 * The arrays a FactIndex (fact-index.ts) answers from, as fact-index-build.ts lays them out. Nodes
 * are the name index's positions; a fact's kind byte holds its object's kind in the low 3 bits and
 * its literal datatype's index above them.
 */

export const ENTITY = 0;
export const LITERAL = 1;
export const CLASS = 2;
export const IRI = 3;
/** A schema:name literal equal to its subject's name in the name index (not stored twice). */
export const OWN_NAME = 4;
export const KIND_BITS = 3;

export interface FactArrays {
  /** IRIs by code. */
  predicates: string[];
  /** Named graph IRIs by code. */
  sources: string[];
  classes: string[];
  /** By datatype index; undefined: a plain literal. */
  datatypes: (string | undefined)[];
  /** Facts of node v as subject: [outStart[v], outStart[v + 1]). */
  outStart: Uint32Array;
  outPred: Uint8Array | Uint16Array;
  outSource: Uint8Array | Uint16Array;
  outKind: Uint8Array;
  /** A node (ENTITY), a class (CLASS), a string of `text` (LITERAL, IRI); unused for OWN_NAME. */
  outObject: Uint32Array;
  /** Links to node v (entity objects): [inStart[v], inStart[v + 1]). */
  inStart: Uint32Array;
  inSubject: Uint32Array;
  inPred: Uint8Array | Uint16Array;
  inSource: Uint8Array | Uint16Array;
  /** Per node: its type set, an index into typeSets (the class IRIs of its rdf:type facts). */
  typeOf: Uint8Array | Uint16Array;
  typeSets: string[][];
  /** Strings, UTF-8: string i is text[textStart[i], textStart[i + 1]). */
  text: Uint8Array;
  textStart: Uint32Array;
  /** Facts left out: a subject not in the name index (none in a valid snapshot). */
  skipped: number;
  /** Facts a source asserted more than once, kept once (as the graph keeps them). */
  duplicates: number;
}
