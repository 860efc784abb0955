/**
 * @module graph/fact-links
 * The parts of a FactIndex derived from its outgoing facts (fact-index-build.ts): each node's
 * rdf:type classes as shared sets, and the incoming links by object, predicate and the subject's
 * prominence (the most prominent subjects first, as explore lists them).
 */
import type { NameIndex } from "../entities/name-index.ts";
import { CLASS, ENTITY, type FactArrays } from "./fact-arrays.ts";
import { narrow, stableOrder } from "./fact-sort.ts";

/** Per node, its rdf:type classes (each once, in fact order), as a shared set. */
export function typeSetsOf(outStart: Uint32Array, outKind: Uint8Array, outObject: Uint32Array, classes: string[]): { typeOf: Uint8Array | Uint16Array; typeSets: string[][] } {
  const nodes = outStart.length - 1;
  const byKey = new Map<string, number>([["", 0]]);
  const typeSets: string[][] = [[]];
  const codes = new Uint32Array(nodes);
  for (let v = 0; v < nodes; v++) {
    const found: number[] = [];
    for (let f = outStart[v]!; f < outStart[v + 1]!; f++) {
      if ((outKind[f]! & 7) === CLASS && !found.includes(outObject[f]!)) found.push(outObject[f]!);
    }
    if (found.length === 0) continue;
    const key = found.join(",");
    let code = byKey.get(key);
    if (code === undefined) {
      byKey.set(key, (code = typeSets.length));
      typeSets.push(found.map((c) => classes[c]!));
    }
    codes[v] = code;
  }
  const typeOf = narrow(typeSets.length, nodes);
  typeOf.set(codes);
  return { typeOf, typeSets };
}

/** Links to each node (entity objects): by object, then predicate, then the subject's prominence (most first). */
export function incomingLinks(
  names: NameIndex,
  outStart: Uint32Array,
  outPred: Uint8Array | Uint16Array,
  outSource: Uint8Array | Uint16Array,
  outKind: Uint8Array,
  outObject: Uint32Array,
  predicateCount: number,
): Pick<FactArrays, "inStart" | "inSubject" | "inPred" | "inSource"> {
  const nodes = outStart.length - 1;
  let links = 0;
  for (let f = 0; f < outKind.length; f++) if ((outKind[f]! & 7) === ENTITY) links++;
  const byProminence = byProminenceDescending(names.prominences);
  const fact = new Uint32Array(links);
  const subject = new Uint32Array(links);
  const predicate = narrow(predicateCount, links);
  const object = new Uint32Array(links);
  let k = 0;
  for (const s of byProminence) {
    for (let f = outStart[s]!; f < outStart[s + 1]!; f++) {
      if ((outKind[f]! & 7) !== ENTITY) continue;
      fact[k] = f;
      subject[k] = s;
      predicate[k] = outPred[f]!;
      object[k] = outObject[f]!;
      k++;
    }
  }
  const order = stableOrder(object, nodes, stableOrder(predicate, predicateCount, null, links), links);
  const inStart = new Uint32Array(nodes + 1);
  const inSubject = new Uint32Array(links);
  const inPred = narrow(predicateCount, links);
  const inSource = narrowLike(outSource, links);
  for (let i = 0; i < links; i++) {
    const at = order[i]!;
    inStart[object[at]! + 1]!++;
    inSubject[i] = subject[at]!;
    inPred[i] = predicate[at]!;
    inSource[i] = outSource[fact[at]!]!;
  }
  for (let v = 0; v < nodes; v++) inStart[v + 1]! += inStart[v]!;
  return { inStart, inSubject, inPred, inSource };
}

/** An array of the same element type as `like`, of `length` elements. */
function narrowLike(like: Uint8Array | Uint16Array, length: number): Uint8Array | Uint16Array {
  return like instanceof Uint8Array ? new Uint8Array(length) : new Uint16Array(length);
}

/** Positions by prominence, the most first (ties by position): a native sort of numbers, no comparator. */
function byProminenceDescending(prominences: Float32Array): Uint32Array {
  const n = prominences.length;
  const order = new Uint32Array(n);
  if (n >= 2 ** 21) {
    for (let i = 0; i < n; i++) order[i] = i;
    return order.sort((a, b) => prominences[b]! - prominences[a]! || a - b);
  }
  // A float's bits, made to sort as the float does (negative ones flipped), then reversed for "most
  // first", above 21 bits of position: 53 bits, exact in a double.
  const bits = new Uint32Array(prominences.buffer, prominences.byteOffset, n);
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const b = bits[i] === 0x80000000 ? 0 : bits[i]!; // -0 is 0
    const ascending = b & 0x80000000 ? ~b >>> 0 : (b | 0x80000000) >>> 0;
    keys[i] = (0xffffffff - ascending) * 2 ** 21 + i;
  }
  keys.sort();
  for (let i = 0; i < n; i++) order[i] = keys[i]! % 2 ** 21;
  return order;
}
