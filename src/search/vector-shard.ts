/**
 * @module search/vector-shard
 * A scan worker's copy of the vector index: every row of every type. A question is answered in two
 * steps: usearch's SIMD scan of the int8 codes (inner product, the query mapped into the codes'
 * scales; for a type with inverted lists, only the probed lists' codes) keeps the k + 50 best
 * candidates, then each candidate is scored exactly against its float vector and the best k kept.
 * A type of fewer than EXACT_BELOW rows is scored exactly from its float vectors instead: there
 * the two steps cost more than the scan they save. Quantization error only reorders vectors of
 * almost equal score, so the true k nearest are among the candidates of the lists scanned.
 */
import { join } from "node:path";
import usearch from "usearch";
import type { EntityType } from "../entities/vocabulary.ts";
import { readLists } from "./ivf.ts";
import { codesFile, quantize, readRows, readScales, rowCount, vectorsFile } from "./vector-files.ts";

const { MetricKind, exactSearch } = usearch;

export type ScanRequest =
  | { kind: "open"; dir: string; types: EntityType[]; dims: number; exact: boolean; probeShare: number }
  | { kind: "scan"; id: number; query: Float32Array; k: number; types: EntityType[] };

export type ScanReply = { kind: "opened" } | { kind: "hits"; id: number; hits: ShardHits[] } | { kind: "failed"; id?: number; error: string };

/** The best rows of one type, best first. */
export interface ShardHits {
  type: EntityType;
  rows: Uint32Array;
  similarities: Float32Array;
}

/** Candidates taken from the codes for a final k: enough that near-ties lost to rounding come back. */
const candidates = (k: number) => k + 50;
/** Below this many rows a type is scored exactly (1,460 chains: about 0.1 ms, less than codes and rescoring). */
const EXACT_BELOW = 10_000;

/** A type's codes grouped by inverted list (ivf.ts), for scanning only the probed lists. */
interface Lists {
  centroids: Float32Array;
  probe: number;
  /**
   * Per list, how far its rows lie from the centroid (the largest distance): a row's score is at
   * most the centroid's score plus this (Cauchy-Schwarz, unit query).
   */
  radii: Float32Array;
  /** List l's rows are order[starts[l] .. starts[l + 1]), their codes at the same places of `codes`. */
  starts: Uint32Array;
  order: Uint32Array;
  codes: Int8Array;
}

/** One type's rows. */
interface TypeRows {
  count: number;
  /** Float vectors for exact scores, row-major. */
  floats: Float32Array;
  /** Absent when the type is scored exactly. */
  codes?: { scales: Float32Array; values: Int8Array };
  /** Present when the type has inverted lists: then `codes.values` is unused. */
  lists?: Lists;
}

export class VectorShard {
  private constructor(
    private readonly types: Map<EntityType, TypeRows>,
    private readonly dims: number,
  ) {}

  static open({ dir, types, dims, exact, probeShare }: Extract<ScanRequest, { kind: "open" }>): VectorShard {
    const rows = new Map<EntityType, TypeRows>();
    for (const type of types) {
      const count = rowCount(dir, type, dims);
      if (count === 0) continue;
      const floatsPath = join(dir, vectorsFile(type));
      if (exact || count < EXACT_BELOW) {
        // usearch scores these directly: they need a buffer of their own.
        rows.set(type, { count, floats: new Float32Array(readRows(floatsPath, 0, dims * 4, 0, count)) });
        continue;
      }
      // Memory-mapped: only the candidates' rows are ever read.
      const mapped = Bun.mmap(floatsPath);
      const floats = new Float32Array(mapped.buffer, mapped.byteOffset, mapped.byteLength / 4);
      const scales = readScales(dir, type, dims);
      const codes = scales
        ? { scales, values: new Int8Array(readRows(join(dir, codesFile(type)), dims * 4, dims, 0, count)) }
        : // A snapshot indexed before codes were saved: quantize now.
          (({ scales, codes }) => ({ scales, values: codes }))(quantize(floats, dims));
      const ivf = readLists(dir, type, dims);
      const lists = ivf && {
        ...groupByList(codes.values, ivf.assignment, ivf.lists, dims),
        centroids: ivf.centroids,
        radii: listRadii(floatsPath, ivf.centroids, ivf.assignment, ivf.lists, dims),
        probe: Math.max(1, Math.ceil(ivf.lists * probeShare)),
      };
      rows.set(type, { count, floats, codes: lists ? { scales: codes.scales, values: new Int8Array(0) } : codes, lists });
    }
    return new VectorShard(rows, dims);
  }

  /** The best k rows of each type for a unit-length query. */
  search(query: Float32Array, k: number, types: readonly EntityType[]): ShardHits[] {
    const out: ShardHits[] = [];
    for (const type of types) {
      const rows = this.types.get(type);
      if (rows) out.push(this.searchType(rows, type, query, k));
    }
    return out;
  }

  /** Scratch space the probed lists are copied into: usearch scans a buffer from its start. */
  private scratch = new Int8Array(0);
  private scratchRows = new Uint32Array(0);

  /** Candidate rows from the lists whose rows could score highest for the query (ivf.ts). */
  private probe(lists: Lists, query: Float32Array, coded: Int8Array, k: number): Uint32Array {
    const { dims } = this;
    const count = lists.starts.length - 1;
    const probe = Math.min(lists.probe, count);
    // Lists by the best score a row of theirs could reach: a text query lands far from every
    // vector, where the nearest centroid says less than how widely a list spreads. On the full
    // data's questions with every type in lists, recall@10 of the answers at 5% of lists: 0.925 by
    // nearest centroid, 0.950 by this bound (half or twice the radius: 0.950, 0.917).
    const bound = new Float32Array(count);
    for (let l = 0; l < count; l++) {
      let dot = 0;
      const base = l * dims;
      for (let j = 0; j < dims; j++) dot += query[j]! * lists.centroids[base + j]!;
      bound[l] = dot + lists.radii[l]!;
    }
    const probed = topLists(bound, probe);
    let total = 0;
    for (const key of probed) total += lists.starts[key + 1]! - lists.starts[key]!;
    if (total === 0) return new Uint32Array(0);
    if (this.scratchRows.length < total) {
      this.scratch = new Int8Array(total * 2 * dims);
      this.scratchRows = new Uint32Array(total * 2);
    }
    let at = 0;
    for (const key of probed) {
      const start = lists.starts[key]!;
      const end = lists.starts[key + 1]!;
      this.scratch.set(lists.codes.subarray(start * dims, end * dims), at * dims);
      this.scratchRows.set(lists.order.subarray(start, end), at);
      at += end - start;
    }
    const found = exactSearch(new Int8Array(this.scratch.buffer, 0, total * dims), coded, dims, Math.min(candidates(k), total), MetricKind.IP, 1) as { keys: BigUint64Array };
    return Uint32Array.from(found.keys, (key) => this.scratchRows[Number(key)]!);
  }

  private searchType(of: TypeRows, type: EntityType, query: Float32Array, k: number): ShardHits {
    const { dims } = this;
    if (!of.codes) {
      const found = exactSearch(of.floats, query, dims, Math.min(k, of.count), MetricKind.Cos, 1) as { keys: BigUint64Array; distances: Float32Array };
      return {
        type,
        rows: Uint32Array.from(found.keys, Number),
        // usearch reports cosine distance (1 - cosine).
        similarities: Float32Array.from(found.distances, (d) => clamp(1 - d)),
      };
    }
    const coded = quantizeQuery(query, of.codes.scales);
    let rows: Uint32Array;
    if (of.lists) rows = this.probe(of.lists, query, coded, k);
    else {
      const found = exactSearch(of.codes.values, coded, dims, Math.min(candidates(k), of.count), MetricKind.IP, 1) as { keys: BigUint64Array };
      rows = Uint32Array.from(found.keys, Number);
    }
    const scores = new Float32Array(rows.length);
    for (let c = 0; c < rows.length; c++) {
      const base = rows[c]! * dims;
      let dot = 0;
      for (let j = 0; j < dims; j++) dot += query[j]! * of.floats[base + j]!;
      scores[c] = clamp(dot);
    }
    const best = Array.from(rows.keys())
      .sort((a, b) => scores[b]! - scores[a]!)
      .slice(0, k);
    return { type, rows: Uint32Array.from(best, (c) => rows[c]!), similarities: Float32Array.from(best, (c) => scores[c]!) };
  }
}

/** The indices of the k largest bounds: the k-th largest from a native sort of a copy, then one pass. */
function topLists(bound: Float32Array, k: number): number[] {
  const threshold = bound.slice().sort()[bound.length - k]!;
  const out: number[] = [];
  for (let l = 0; l < bound.length && out.length < k; l++) if (bound[l]! >= threshold) out.push(l);
  return out;
}

/** Each list's largest distance from a row to its centroid. */
/**
 * Per list, the largest distance of its rows from its centroid. Read from the vector file in chunks,
 * not through the memory map: touching every mapped page would keep the whole file resident in
 * each worker (450 MB of the full data's RSS, twice), where a scan reads only its candidates' rows.
 */
function listRadii(floatsPath: string, centroids: Float32Array, assignment: Uint32Array, lists: number, dims: number): Float32Array {
  const radii = new Float32Array(lists);
  const chunk = 8192;
  for (let from = 0; from < assignment.length; from += chunk) {
    const to = Math.min(assignment.length, from + chunk);
    const floats = new Float32Array(readRows(floatsPath, 0, dims * 4, from, to));
    for (let row = from; row < to; row++) {
      const l = assignment[row]!;
      const base = (row - from) * dims;
      let sq = 0;
      for (let j = 0; j < dims; j++) {
        const d = floats[base + j]! - centroids[l * dims + j]!;
        sq += d * d;
      }
      if (sq > radii[l]! * radii[l]!) radii[l] = Math.sqrt(sq);
    }
  }
  return radii;
}

/** Reorders a type's codes so that each inverted list's rows are contiguous. */
function groupByList(values: Int8Array, assignment: Uint32Array, lists: number, dims: number): Pick<Lists, "starts" | "order" | "codes"> {
  const rows = assignment.length;
  const starts = new Uint32Array(lists + 1);
  for (let row = 0; row < rows; row++) starts[assignment[row]! + 1]!++;
  for (let l = 0; l < lists; l++) starts[l + 1]! += starts[l]!;
  const fill = starts.slice(0, lists);
  const order = new Uint32Array(rows);
  const codes = new Int8Array(values.length);
  for (let row = 0; row < rows; row++) {
    const at = fill[assignment[row]!]!++;
    order[at] = row;
    codes.set(values.subarray(row * dims, (row + 1) * dims), at * dims);
  }
  return { starts, order, codes };
}

/**
 * The query in the codes' terms: code_j = x_j * scale_j, so q . x = sum (q_j / scale_j) code_j; the
 * result is rounded to int8 with a scale of its own, which changes every score alike.
 */
function quantizeQuery(query: Float32Array, scales: Float32Array): Int8Array {
  const mapped = query.map((q, j) => q / scales[j]!);
  let max = 0;
  for (const v of mapped) max = Math.max(max, Math.abs(v));
  return Int8Array.from(mapped, (v) => (max === 0 ? 0 : Math.round((v * 127) / max)));
}

const clamp = (similarity: number) => Math.max(0, Math.min(1, similarity));
