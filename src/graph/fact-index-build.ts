/**
 * @module graph/fact-index-build
 * Builds the arrays of a FactIndex (fact-index.ts) from a snapshot's facts.parquet in one streamed
 * pass: DuckDB reads the file in its order and numbers the few predicates, sources and datatypes;
 * subjects and entity objects become name index positions here, literals go into one UTF-8 buffer.
 * Then counting sorts (stable, linear) order the facts by subject and predicate, drop a fact a
 * source asserted twice, and lay out the incoming links by object, predicate and the subject's
 * prominence. On the full data (4.2 M facts) the arrays take about 75 MB.
 */
import type { DuckDBBlobVector, DuckDBConnection, DuckDBInstance, DuckDBVector } from "@duckdb/node-api";
import type { NameIndex } from "../entities/name-index.ts";
import { type Namespaces, OWL, RDF_TYPE, type Relation, XSD, classIri, predicateIri, type ClassName } from "../entities/vocabulary.ts";
import { sqlString, withConnection } from "../store/duckdb.ts";
import { CLASS, ENTITY, type FactArrays, IRI, KIND_BITS, LITERAL, OWN_NAME } from "./fact-arrays.ts";
import { TextStore, dedupeRuns, narrow, stableOrder } from "./fact-sort.ts";

/** The IRI the snapshot writer gives a predicate of facts.parquet. */
function predicateIriOf(ns: Namespaces, name: string): string {
  if (name === "rdf:type") return RDF_TYPE;
  if (name.startsWith("owl:")) return `${OWL}${name.slice(4)}`;
  return predicateIri(ns, name as Relation);
}

const sqlList = (values: string[]) => `[${values.map(sqlString).join(", ")}]::VARCHAR[]`;

/** A node of the facts the name index does not have. */
const NONE = 0xffffffff;

/** Streams a query's rows chunk by chunk (a chunk is a couple of thousand rows): columns of values. */
async function eachChunk(c: DuckDBConnection, sql: string, onChunk: (columns: DuckDBVector[], rows: number) => void): Promise<void> {
  const result = await c.stream(sql);
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    onChunk(
      Array.from({ length: chunk.columnCount }, (_, i) => chunk.getColumnVector(i)),
      chunk.rowCount,
    );
  }
}

export async function readFacts(duck: DuckDBInstance, files: { facts: string; entities: string }, names: NameIndex, ns: Namespaces): Promise<FactArrays> {
  return withConnection(duck, async (c) => {
    const f = `read_parquet(${sqlString(files.facts)}, file_row_number = true)`;
    const head = (
      await c.runAndReadAll(
        `SELECT count(*)::INTEGER, list(DISTINCT predicate), list(DISTINCT source), list(DISTINCT datatype) FILTER (WHERE datatype IS NOT NULL),
           list(DISTINCT object) FILTER (WHERE object_kind = 'class') FROM ${f}`,
      )
    ).getRowsJS()[0] as [number, string[], string[], string[] | null, string[] | null];
    const total = head[0];
    const predicateNames = [...head[1]].sort();
    const sourceIds = [...head[2]].sort();
    // Datatype 0 is none (a plain literal, as the writer gives xsd:string).
    const datatypeIris = [...(head[3] ?? [])].sort();
    if (datatypeIris.length >= 1 << (8 - KIND_BITS)) throw new Error(`too many literal datatypes (${datatypeIris.length})`);
    const classNames = [...(head[4] ?? [])].sort();

    // Nodes numbered by DuckDB (their row in the file), then mapped to name index positions: ids cross once, per node, not per fact.
    await c.run(`CREATE OR REPLACE TEMP TABLE fact_index_nodes AS
      SELECT id, name, file_row_number::INTEGER AS code FROM read_parquet(${sqlString(files.entities)}, file_row_number = true)`);
    const position = new Uint32Array((await c.runAndReadAll(`SELECT max(code) + 1 FROM fact_index_nodes`)).getRowsJS()[0]![0] as number).fill(NONE);
    await eachChunk(c, `SELECT code, id FROM fact_index_nodes`, ([codes, ids], rows) => {
      for (let r = 0; r < rows; r++) position[codes!.getItem(r) as number] = names.positionOf(ids!.getItem(r) as string) ?? NONE;
    });

    // Facts as they come (their file row says where they were); text only for literals and IRIs, as UTF-8 bytes.
    // The objects' join is on an id alone (entity objects'; NULL for the rest): with the object's kind in its condition DuckDB nests loops.
    const sub = new Uint32Array(total);
    const pred = new Uint16Array(total);
    const src = new Uint16Array(total);
    const kind = new Uint8Array(total);
    const obj = new Uint32Array(total);
    const byRow = new Int32Array(total).fill(-1);
    const text = new TextStore();
    let n = 0;
    const plain = sqlString(`${XSD}string`);
    // Predicate, source, kind and datatype travel packed in one number: ((dt * 8 + kind) * sources + source) * predicates + predicate.
    const P = predicateNames.length;
    const G = sourceIds.length;
    if (P * G * 256 > 2 ** 31) throw new Error(`too many predicates and sources (${P}, ${G})`);
    await eachChunk(
      c,
      `SELECT row, s, o, ((dt * 8 + k) * ${G} + g) * ${P} + p AS code,
         encode(CASE WHEN k = ${LITERAL} THEN object WHEN k = ${IRI} THEN (CASE WHEN object_kind = 'entity' THEN ${sqlString(ns.entity)} || object ELSE object END) END) AS t
       FROM (
         SELECT f.file_row_number::INTEGER AS row, s.code AS s, f.object, f.object_kind,
           list_position(${sqlList(predicateNames)}, f.predicate)::INTEGER - 1 AS p, list_position(${sqlList(sourceIds)}, f.source)::INTEGER - 1 AS g,
           CASE WHEN f.object_kind = 'entity' AND o.code IS NOT NULL THEN ${ENTITY} WHEN f.object_kind IN ('entity', 'iri') THEN ${IRI}
                WHEN f.object_kind = 'class' THEN ${CLASS}
                WHEN f.predicate = 'schema:name' AND coalesce(f.datatype, ${plain}) = ${plain} AND f.object = s.name THEN ${OWN_NAME}
                ELSE ${LITERAL} END AS k,
           CASE WHEN f.object_kind = 'literal' THEN coalesce(list_position(${sqlList(datatypeIris)}, f.datatype), 0) ELSE 0 END::INTEGER AS dt,
           CASE WHEN f.object_kind = 'entity' THEN o.code WHEN f.object_kind = 'class' THEN list_position(${sqlList(classNames)}, f.object)::INTEGER - 1 END AS o
         FROM ${f} AS f JOIN fact_index_nodes AS s ON s.id = f.subject_id
         LEFT JOIN fact_index_nodes AS o ON o.id = CASE WHEN f.object_kind = 'entity' THEN f.object END)`,
      ([rows, subjects, objects, codes, bytes], count) => {
        const texts = bytes as DuckDBBlobVector;
        for (let r = 0; r < count; r++) {
          const s = position[subjects!.getItem(r) as number]!;
          let code = codes!.getItem(r) as number;
          const p = code % P;
          code = (code - p) / P;
          const g = code % G;
          code = (code - g) / G;
          let k = code & 7;
          let o = 0;
          if (k === ENTITY) o = position[objects!.getItem(r) as number]!;
          else if (k === CLASS) o = objects!.getItem(r) as number;
          else if (k === LITERAL || k === IRI) o = text.add(texts.getItemBytes(r)!);
          if (s === NONE || o === NONE) continue;
          if (k === LITERAL) k = code & 0xff;
          byRow[rows!.getItem(r) as number] = n;
          sub[n] = s;
          pred[n] = p;
          src[n] = g;
          kind[n] = k;
          obj[n] = o;
          n++;
        }
      },
    );
    await c.run(`DROP TABLE fact_index_nodes`);
    const fileOrder = new Uint32Array(n);
    for (let row = 0, i = 0; row < total; row++) if (byRow[row]! >= 0) fileOrder[i++] = byRow[row]!;

    // Outgoing: by subject, then predicate, then as in the file; a fact repeated by its source once.
    const nodes = names.size;
    const order = stableOrder(sub, nodes, stableOrder(pred, predicateNames.length, fileOrder, n), n);
    const kept = dedupeRuns(order, sub, pred, src, kind, obj, text);
    const m = kept.length;
    const outStart = new Uint32Array(nodes + 1);
    const outPred = narrow(predicateNames.length, m);
    const outSource = narrow(sourceIds.length, m);
    const outKind = new Uint8Array(m);
    const outObject = new Uint32Array(m);
    for (let i = 0; i < m; i++) {
      const at = kept[i]!;
      outStart[sub[at]! + 1]!++;
      outPred[i] = pred[at]!;
      outSource[i] = src[at]!;
      outKind[i] = kind[at]!;
      outObject[i] = obj[at]!;
    }
    for (let v = 0; v < nodes; v++) outStart[v + 1]! += outStart[v]!;

    const classes = classNames.map((name) => classIri(ns, name as ClassName));
    const { typeOf, typeSets } = typeSetsOf(outStart, outKind, outObject, classes);
    const incoming = incomingLinks(names, outStart, outPred, outSource, outKind, outObject, predicateNames.length);
    const { bytes, starts } = text.done();
    return {
      predicates: predicateNames.map((p) => predicateIriOf(ns, p)),
      sources: sourceIds.map((s) => `${ns.source}${s}`),
      classes,
      datatypes: [undefined, ...datatypeIris.map((d) => (d === `${XSD}string` ? undefined : d))],
      outStart,
      outPred,
      outSource,
      outKind,
      outObject,
      ...incoming,
      typeOf,
      typeSets,
      text: bytes,
      textStart: starts,
      skipped: total - n,
      duplicates: n - m,
    };
  });
}

/** Per node, its rdf:type classes (each once, in fact order), as a shared set. */
function typeSetsOf(outStart: Uint32Array, outKind: Uint8Array, outObject: Uint32Array, classes: string[]): { typeOf: Uint8Array | Uint16Array; typeSets: string[][] } {
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
function incomingLinks(
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
