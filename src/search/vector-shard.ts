/**
 * @module search/vector-shard
 * A scan worker's view of the vector index: every row of every type, the int8 codes in a memory all
 * workers share (the first fills it, int8-dot.ts). A question is answered in two
 * steps: a SIMD scan of the int8 codes (int8-dot.ts: inner product, the query mapped into the
 * codes' scales; for a type with inverted lists, only the probed lists' codes) keeps the k + 25
 * best candidates, then each candidate is scored exactly against its float vector and the best k
 * kept. A type of fewer than EXACT_BELOW rows is scored exactly from its float vectors instead.
 * Quantization error only reorders vectors of almost equal score, so the true k nearest are among
 * the candidates of the lists scanned.
 */
import { join } from "node:path";
import usearch from "usearch";
import type { EntityType } from "../entities/vocabulary.ts";
import { type CodeMatrix, Int8DotKernel, type SharedCodes, mapQuery, matrixBytes } from "./int8-dot.ts";
import { exactDot } from "./exact-dot.ts";
import { readLists } from "./ivf.ts";
import { type ProbedLists, listsOf, probeShareOf, rankLists } from "./list-probe.ts";
import { codesFile, quantize, readRows, readScales, rowCount, vectorsFile } from "./vector-files.ts";

const { MetricKind, exactSearch } = usearch;

export type ScanRequest =
  | {
      kind: "open";
      dir: string;
      types: EntityType[];
      dims: number;
      exact: boolean;
      /** A share of lists to probe for every type; absent: each type's own (list-probe.ts). */
      probeShare?: number;
      /** The workers sharing the codes, this one's slot, and the codes' memory once a first worker has filled it (int8-dot.ts). */
      codes: SharedCodes;
    }
  | { kind: "scan"; id: number; query: Float32Array; k: number; types: EntityType[] };

export type ScanReply = { kind: "opened"; codes?: WebAssembly.Memory } | { kind: "hits"; id: number; hits: ShardHits[] } | { kind: "failed"; id?: number; error: string };

/** The best rows of one type, best first. */
export interface ShardHits {
  type: EntityType;
  rows: Uint32Array;
  similarities: Float32Array;
}

/**
 * Candidates taken from the codes for a final k: enough that near-ties lost to rounding come back.
 * Each is a float row read at random and scored (at k + 50, a third of the time the codes' scan
 * took). On the full data's 73 meaning questions, recall@10 against exact search: k + 50 0.9841,
 * k + 25 0.9838 (Organization 0.960 to 0.958), k + 15 0.9824. At the default limit of 10 the
 * results of the real-name and labelled queries are the same (total_count moved by one in 2 of 417).
 */
const candidates = (k: number) => k + 25;
/** Below this many rows a type is scored exactly (1,000 rows: a few microseconds). */
const EXACT_BELOW = 1_000;

/** One type's rows. */
interface TypeRows {
  count: number;
  /** Float vectors for exact scores, row-major. */
  floats: Float32Array;
  /** Absent when the type is scored exactly. With lists, grouped by list: `order` maps a code's place to its row. */
  codes?: { matrix: CodeMatrix; scales: Float32Array; order?: Uint32Array };
  lists?: ProbedLists;
}

export class VectorShard {
  private constructor(
    private readonly types: Map<EntityType, TypeRows>,
    private readonly dims: number,
    private readonly scanner: Int8DotKernel | undefined,
  ) {}

  static open({ dir, types, dims, exact, probeShare, codes: shared }: Extract<ScanRequest, { kind: "open" }>): VectorShard {
    const counts = new Map(types.map((type) => [type, rowCount(dir, type, dims)]));
    const coded = types.filter((type) => !exact && counts.get(type)! >= EXACT_BELOW);
    const lists = new Map(coded.map((type) => [type, readLists(dir, type, dims)]));
    // One scanner holds every coded type's codes, its lists' centroids and spreads, and room for the scores of its largest type.
    const bytes = coded.reduce((sum, type) => sum + matrixBytes(counts.get(type)!, dims) + 2 * matrixBytes(lists.get(type)?.lists ?? 0, dims), 0);
    const scanner = coded.length > 0 ? new Int8DotKernel(dims, bytes, Math.max(...coded.map((type) => counts.get(type)!)), shared) : undefined;
    const rows = new Map<EntityType, TypeRows>();
    for (const type of types) {
      const count = counts.get(type)!;
      if (count === 0) continue;
      const floatsPath = join(dir, vectorsFile(type));
      if (!scanner || !coded.includes(type)) {
        // usearch scores these directly: they need a buffer of their own.
        rows.set(type, { count, floats: new Float32Array(readRows(floatsPath, 0, dims * 4, 0, count)) });
        continue;
      }
      // Memory-mapped: only the candidates' rows are ever read.
      const mapped = Bun.mmap(floatsPath);
      const floats = new Float32Array(mapped.buffer, mapped.byteOffset, mapped.byteLength / 4);
      const saved = readScales(dir, type, dims);
      // On a memory another worker filled, the codes are in place: only their order is worked out.
      const { scales, codes } = saved
        ? { scales: saved, codes: shared.memory ? new Int8Array(0) : new Int8Array(readRows(join(dir, codesFile(type)), dims * 4, dims, 0, count)) }
        : // A snapshot indexed before codes were saved: quantize now.
          quantize(floats, dims);
      const matrix = scanner.reserve(count);
      const ivf = lists.get(type);
      const probed = ivf && listsOf(scanner, ivf, floatsPath, dims, probeShare ?? probeShareOf(type));
      const order = probed ? groupByList(codes, ivf.assignment, probed.starts, scanner, matrix, dims) : (scanner.write(matrix, 0, codes), undefined);
      rows.set(type, { count, floats, codes: { matrix, scales, order }, lists: probed });
    }
    return new VectorShard(rows, dims, scanner);
  }

  /** The memory of the codes, for the other workers to share; none when every type is scored exactly. */
  get codes(): WebAssembly.Memory | undefined {
    return this.scanner?.memory;
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

  private searchType(of: TypeRows, type: EntityType, query: Float32Array, k: number): ShardHits {
    const { dims } = this;
    if (!of.codes || !this.scanner) {
      const found = exactSearch(of.floats, query, dims, Math.min(k, of.count), MetricKind.Cos, 1) as { keys: BigUint64Array; distances: Float32Array };
      return {
        type,
        rows: Uint32Array.from(found.keys, Number),
        // usearch reports cosine distance (1 - cosine).
        similarities: Float32Array.from(found.distances, (d) => clamp(1 - d)),
      };
    }
    const { scanner } = this;
    const { matrix, order } = of.codes;
    // Segments of the matrix scanned, in the order their scores were written.
    const segments: [number, number][] = of.lists ? rankLists(scanner, of.lists, query) : [[0, of.count]];
    mapQuery(query, of.codes.scales, scanner.query);
    // Where each segment's scores start among those written.
    const starts = new Int32Array(segments.length);
    let scored = 0;
    for (let s = 0; s < segments.length; s++) {
      const [from, to] = segments[s]!;
      starts[s] = scored;
      scanner.scan(matrix, from, to, scored);
      scored += to - from;
    }
    const best = topScores(scanner.scores, scored, Math.min(candidates(k), scored));
    const count = best.length;
    const rows = new Uint32Array(count);
    const coded = new Int32Array(count);
    const scores = new Float32Array(count);
    for (let c = 0; c < count; c++) {
      const at = best[c]!;
      coded[c] = scanner.scores[at]!;
      const segment = lastAtMost(starts, at);
      const place = segments[segment]![0] + at - starts[segment]!;
      const row = order ? order[place]! : place;
      rows[c] = row;
      scores[c] = clamp(exactDot(query, of.floats, row * dims, dims));
    }
    // Best exact score first; among equal ones, the better code score, then the earlier scanned.
    const kept = Array.from({ length: count }, (_, c) => c)
      .sort((a, b) => scores[b]! - scores[a]! || coded[b]! - coded[a]! || best[a]! - best[b]!)
      .slice(0, k);
    return { type, rows: Uint32Array.from(kept, (c) => rows[c]!), similarities: Float32Array.from(kept, (c) => scores[c]!) };
  }
}

/**
 * Indices of the `k` highest of scores[0, count), in no order: a min-heap of the best so far in
 * typed arrays, so that most scores cost one comparison with the heap's least.
 */
function topScores(scores: Int32Array, count: number, k: number): Int32Array {
  if (k <= 0) return new Int32Array(0);
  const heapScores = new Int32Array(k);
  const heapAt = new Int32Array(k);
  let size = 0;
  for (let i = 0; i < count; i++) {
    const score = scores[i]!;
    if (size === k && score <= heapScores[0]!) continue;
    // Insert (heap not full) or replace the least, then restore the heap order downwards or upwards.
    let at: number;
    if (size < k) {
      at = size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (heapScores[parent]! <= score) break;
        heapScores[at] = heapScores[parent]!;
        heapAt[at] = heapAt[parent]!;
        at = parent;
      }
    } else {
      at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= size) break;
        const child = left + 1 < size && heapScores[left + 1]! < heapScores[left]! ? left + 1 : left;
        if (heapScores[child]! >= score) break;
        heapScores[at] = heapScores[child]!;
        heapAt[at] = heapAt[child]!;
        at = child;
      }
    }
    heapScores[at] = score;
    heapAt[at] = i;
  }
  return heapAt.subarray(0, size);
}

/** The last index whose value is at most `value` in an ascending array starting at 0. */
function lastAtMost(sorted: Int32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid]! <= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Writes a type's codes grouped by inverted list into its matrix; returns each place's row. */
function groupByList(values: Int8Array, assignment: Uint32Array, starts: Uint32Array, scanner: Int8DotKernel, matrix: CodeMatrix, dims: number): Uint32Array {
  const fill = starts.slice(0, starts.length - 1);
  const order = new Uint32Array(assignment.length);
  for (let row = 0; row < assignment.length; row++) {
    const at = fill[assignment[row]!]!++;
    order[at] = row;
    scanner.write(matrix, at, values.subarray(row * dims, (row + 1) * dims));
  }
  return order;
}

const clamp = (similarity: number) => Math.max(0, Math.min(1, similarity));
