/**
 * @module search/vector-shard
 * One worker's slice of the vector index: rows [from, to) of every type. A question is answered in
 * two steps: usearch's SIMD scan of the slice's int8 codes (inner product, the query mapped into
 * the codes' scales) keeps the k + 50 best candidates, then each candidate is scored exactly
 * against its float vector and the best k kept. A slice of fewer than EXACT_BELOW rows is scored
 * exactly from its float vectors instead: there the two steps cost more than the scan they save. Quantization error only reorders vectors of almost
 * equal score, so the true k nearest are among the candidates (recall@10 against exact search 0.99+
 * on the full data, scripts/bench/search.ts).
 */
import { join } from "node:path";
import usearch from "usearch";
import type { EntityType } from "../graph/vocabulary.ts";
import { codesFile, quantize, readRows, readScales, rowCount, vectorsFile } from "./vector-files.ts";

const { MetricKind, exactSearch } = usearch;

export type ScanRequest =
  | { kind: "open"; dir: string; types: EntityType[]; dims: number; part: number; parts: number; exact: boolean }
  | { kind: "scan"; id: number; query: Float32Array; k: number; types: EntityType[] };

export type ScanReply = { kind: "opened" } | { kind: "hits"; id: number; hits: ShardHits[] } | { kind: "failed"; id?: number; error: string };

/** A slice's best rows of one type (row numbers of the whole type), best first. */
export interface ShardHits {
  type: EntityType;
  rows: Uint32Array;
  similarities: Float32Array;
}

/** Candidates taken from the codes for a final k: enough that near-ties lost to rounding come back. */
const candidates = (k: number) => k + 50;
/** Below this many rows a slice is scored exactly (730 chains: 0.08 ms, against 0.2 ms for codes and rescoring). */
const EXACT_BELOW = 10_000;

interface Slice {
  from: number;
  to: number;
  /** Float vectors for exact scores; row r of the type is at (r - floatsFrom) * dims. */
  floats: Float32Array;
  floatsFrom: number;
  /** Absent when the slice is scored exactly. */
  codes?: { scales: Float32Array; values: Int8Array };
}

export class VectorShard {
  private constructor(
    private readonly slices: Map<EntityType, Slice>,
    private readonly dims: number,
  ) {}

  static open({ dir, types, dims, part, parts, exact }: Extract<ScanRequest, { kind: "open" }>): VectorShard {
    const slices = new Map<EntityType, Slice>();
    for (const type of types) {
      const count = rowCount(dir, type, dims);
      const from = Math.floor((count * part) / parts);
      const to = Math.floor((count * (part + 1)) / parts);
      if (to === from) continue;
      const floatsPath = join(dir, vectorsFile(type));
      if (exact || to - from < EXACT_BELOW) {
        // usearch scores these directly: they need a buffer of their own.
        slices.set(type, { from, to, floats: new Float32Array(readRows(floatsPath, 0, dims * 4, from, to)), floatsFrom: from });
        continue;
      }
      // Memory-mapped: only the candidates' rows are ever read.
      const mapped = Bun.mmap(floatsPath);
      const floats = new Float32Array(mapped.buffer, mapped.byteOffset, mapped.byteLength / 4);
      const scales = readScales(dir, type, dims);
      const codes = scales
        ? { scales, values: new Int8Array(readRows(join(dir, codesFile(type)), dims * 4, dims, from, to)) }
        : // A snapshot indexed before codes were saved: quantize the slice now.
          (({ scales, codes }) => ({ scales, values: codes }))(quantize(floats.subarray(from * dims, to * dims), dims));
      slices.set(type, { from, to, floats, floatsFrom: 0, codes });
    }
    return new VectorShard(slices, dims);
  }

  /** The best k rows of each type in this slice for a unit-length query. */
  search(query: Float32Array, k: number, types: readonly EntityType[]): ShardHits[] {
    const out: ShardHits[] = [];
    for (const type of types) {
      const slice = this.slices.get(type);
      if (slice) out.push(this.searchSlice(slice, type, query, k));
    }
    return out;
  }

  private searchSlice(slice: Slice, type: EntityType, query: Float32Array, k: number): ShardHits {
    const { dims } = this;
    const size = slice.to - slice.from;
    if (!slice.codes) {
      const found = exactSearch(slice.floats, query, dims, Math.min(k, size), MetricKind.Cos, 1) as { keys: BigUint64Array; distances: Float32Array };
      return {
        type,
        rows: Uint32Array.from(found.keys, (key) => slice.from + Number(key)),
        // usearch reports cosine distance (1 - cosine).
        similarities: Float32Array.from(found.distances, (d) => clamp(1 - d)),
      };
    }
    const found = exactSearch(slice.codes.values, quantizeQuery(query, slice.codes.scales), dims, Math.min(candidates(k), size), MetricKind.IP, 1) as {
      keys: BigUint64Array;
    };
    const rows = Uint32Array.from(found.keys, (key) => slice.from + Number(key));
    const scores = new Float32Array(rows.length);
    for (let c = 0; c < rows.length; c++) {
      const base = (rows[c]! - slice.floatsFrom) * dims;
      let dot = 0;
      for (let j = 0; j < dims; j++) dot += query[j]! * slice.floats[base + j]!;
      scores[c] = clamp(dot);
    }
    const best = Array.from(rows.keys())
      .sort((a, b) => scores[b]! - scores[a]!)
      .slice(0, k);
    return { type, rows: Uint32Array.from(best, (c) => rows[c]!), similarities: Float32Array.from(best, (c) => scores[c]!) };
  }
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
