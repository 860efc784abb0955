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
import { incomingLinks, typeSetsOf } from "./fact-links.ts";
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

/** What facts.parquet names: its fact count, and its predicates, sources, literal datatypes and classes, each sorted. */
interface FactsHead {
  total: number;
  predicateNames: string[];
  sourceIds: string[];
  /** Datatype 0 is none (a plain literal, as the writer gives xsd:string); these are 1 on. */
  datatypeIris: string[];
  classNames: string[];
}

/** The facts as the file gives them, kept where both ends are known: parallel columns of `n` facts. */
interface StreamedFacts {
  n: number;
  sub: Uint32Array;
  pred: Uint16Array;
  src: Uint16Array;
  kind: Uint8Array;
  obj: Uint32Array;
  text: TextStore;
  /** The kept facts' indexes in file order. */
  fileOrder: Uint32Array;
}

export async function readFacts(duck: DuckDBInstance, files: { facts: string; entities: string }, names: NameIndex, ns: Namespaces): Promise<FactArrays> {
  return withConnection(duck, async (c) => {
    const f = `read_parquet(${sqlString(files.facts)}, file_row_number = true)`;
    const head = await readHead(c, f);
    const position = await nodePositions(c, files.entities, names);
    const facts = await streamFacts(c, f, head, position, ns);
    await c.run(`DROP TABLE fact_index_nodes`);
    return layOut(head, facts, names, ns);
  });
}

async function readHead(c: DuckDBConnection, f: string): Promise<FactsHead> {
  const head = (
    await c.runAndReadAll(
      `SELECT count(*)::INTEGER, list(DISTINCT predicate), list(DISTINCT source), list(DISTINCT datatype) FILTER (WHERE datatype IS NOT NULL),
         list(DISTINCT object) FILTER (WHERE object_kind = 'class') FROM ${f}`,
    )
  ).getRowsJS()[0] as [number, string[], string[], string[] | null, string[] | null];
  const datatypeIris = [...(head[3] ?? [])].sort();
  if (datatypeIris.length >= 1 << (8 - KIND_BITS)) throw new Error(`too many literal datatypes (${datatypeIris.length})`);
  return { total: head[0], predicateNames: [...head[1]].sort(), sourceIds: [...head[2]].sort(), datatypeIris, classNames: [...(head[4] ?? [])].sort() };
}

/**
 * Nodes numbered by DuckDB (their row in entities.parquet, in the temp table fact_index_nodes),
 * then mapped to name index positions: ids cross once, per node, not per fact.
 */
async function nodePositions(c: DuckDBConnection, entities: string, names: NameIndex): Promise<Uint32Array> {
  await c.run(`CREATE OR REPLACE TEMP TABLE fact_index_nodes AS
    SELECT id, name, file_row_number::INTEGER AS code FROM read_parquet(${sqlString(entities)}, file_row_number = true)`);
  const position = new Uint32Array((await c.runAndReadAll(`SELECT max(code) + 1 FROM fact_index_nodes`)).getRowsJS()[0]![0] as number).fill(NONE);
  await eachChunk(c, `SELECT code, id FROM fact_index_nodes`, ([codes, ids], rows) => {
    for (let r = 0; r < rows; r++) position[codes!.getItem(r) as number] = names.positionOf(ids!.getItem(r) as string) ?? NONE;
  });
  return position;
}

/**
 * Facts as they come (their file row says where they were); text only for literals and IRIs, as
 * UTF-8 bytes. The objects' join is on an id alone (entity objects'; NULL for the rest): with the
 * object's kind in its condition DuckDB nests loops.
 */
async function streamFacts(c: DuckDBConnection, f: string, head: FactsHead, position: Uint32Array, ns: Namespaces): Promise<StreamedFacts> {
  const { total, predicateNames, sourceIds, datatypeIris, classNames } = head;
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
  const fileOrder = new Uint32Array(n);
  for (let row = 0, i = 0; row < total; row++) if (byRow[row]! >= 0) fileOrder[i++] = byRow[row]!;
  return { n, sub, pred, src, kind, obj, text, fileOrder };
}

/** Outgoing facts by subject, then predicate, then as in the file (a fact repeated by its source once); types and incoming links from them. */
function layOut(head: FactsHead, facts: StreamedFacts, names: NameIndex, ns: Namespaces): FactArrays {
  const { predicateNames, sourceIds, datatypeIris, classNames } = head;
  const { n, sub, pred, src, kind, obj, text, fileOrder } = facts;
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
    skipped: head.total - n,
    duplicates: n - m,
  };
}
