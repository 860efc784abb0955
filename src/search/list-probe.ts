/**
 * @module search/list-probe
 * Which inverted lists (ivf.ts) a question scans. Text questions land far from every entity vector
 * (the best cosine of a question is often 0.4), where the nearest centroid says little about where
 * the best rows are: a list's rows spread around its centroid, more along some dimensions than
 * others. A list is ranked by an estimate of the best score among its rows: the centroid's score
 * plus SPREAD_WEIGHT x the spread of its rows along the query (sqrt of sum q_j^2 var_j, the
 * per-dimension variances of the rows around the centroid) x sqrt(2 ln rows), the expected maximum
 * of that many normal draws. Both terms are dot products, scanned as int8 codes like the rows.
 *
 * Measured on the full data's 73 meaning questions against exact search (recall@10 of the rows of
 * the probed lists, 4 sqrt(n) lists): Person at 5% of rows 0.923 by centroid, 0.955 with the
 * spread at 0.5; Pool at 10% 0.897 and 0.932; Token at 5% 0.959 and 0.967. With 8 sqrt(n) lists a
 * spread weight of 1 ranks Pool and Person a little better and Organization worse (0.94 at 20%).
 */
import type { EntityType } from "../entities/vocabulary.ts";
import { type CodeMatrix, type Int8DotKernel, mapQuery } from "./int8-dot.ts";
import type { InvertedLists } from "./ivf.ts";
import { quantize, readRows } from "./vector-files.ts";

const SPREAD_WEIGHT = 0.5;
/**
 * The share of a type's lists a question scans (ranked by the estimate above): the least that keeps
 * recall@10 of the full data's 73 meaning questions against exact search at 0.95 or more, with a
 * margin. Measured with 8 sqrt(n) lists and k + 25 candidates (share: recall, as
 * scripts/bench/probe-shares.ts prints it): Token 2%: 0.978, 3%: 0.982, 4%: 0.985; Pool 6%:
 * 0.947, 8%: 0.959, 10%: 0.968; Organization, whose 30,000 vectors crowd, 10%: 0.937, 15%: 0.955,
 * 17% and more: 0.958 (what is left is lost to the codes' rounding, not to the lists); Person at
 * 4,000 rows (4.5%) as at 5,000: 0.975, at 3,000: 0.970. A type not listed (a world with other
 * types) scans DEFAULT_PROBE_SHARE.
 */
const PROBE_SHARES: Partial<Record<EntityType, number>> = { Token: 0.02, Person: 0.04, Pool: 0.08, Organization: 0.15 };
const DEFAULT_PROBE_SHARE = 0.08;
export const probeShareOf = (type: EntityType) => PROBE_SHARES[type] ?? DEFAULT_PROBE_SHARE;
/**
 * A question scans at least the lists of this many rows: a small type's share would be a few
 * lists, too few where its vectors crowd (Person at 4%: 3,540 rows).
 */
const MIN_PROBED_ROWS = 4_000;

/** A type's lists as a worker holds them. */
export interface ProbedLists {
  /** List l's codes are places starts[l] .. starts[l + 1] of the type's matrix. */
  starts: Uint32Array;
  centroids: { matrix: CodeMatrix; scales: Float32Array };
  spreads: { matrix: CodeMatrix; scales: Float32Array };
  /** sqrt(2 ln rows) of each list. */
  depth: Float32Array;
  /** Lists scanned per question. */
  probe: number;
}

/** Places a type's list centroids and spreads in the scanner; the spreads come from one pass over its vectors. */
export function listsOf(scanner: Int8DotKernel, ivf: InvertedLists, floatsPath: string, dims: number, probeShare: number): ProbedLists {
  const { lists, centroids, assignment } = ivf;
  const sizes = new Uint32Array(lists);
  const variances = new Float32Array(lists * dims);
  // Read in chunks, not through the memory map: touching every mapped page would keep the whole
  // file resident in each worker, where a scan reads only its candidates' rows.
  const chunk = 8192;
  for (let from = 0; from < assignment.length; from += chunk) {
    const to = Math.min(assignment.length, from + chunk);
    const floats = new Float32Array(readRows(floatsPath, 0, dims * 4, from, to));
    for (let row = from; row < to; row++) {
      const l = assignment[row]!;
      sizes[l]!++;
      for (let j = 0; j < dims; j++) {
        const d = floats[(row - from) * dims + j]! - centroids[l * dims + j]!;
        variances[l * dims + j]! += d * d;
      }
    }
  }
  for (let l = 0; l < lists; l++) for (let j = 0; j < dims; j++) variances[l * dims + j]! /= Math.max(1, sizes[l]!);
  const starts = new Uint32Array(lists + 1);
  for (let l = 0; l < lists; l++) starts[l + 1] = starts[l]! + sizes[l]!;
  const place = (values: Float32Array) => {
    const { scales, codes } = quantize(values, dims);
    const matrix = scanner.reserve(lists);
    scanner.write(matrix, 0, codes);
    return { matrix, scales };
  };
  return {
    starts,
    centroids: place(centroids),
    spreads: place(variances),
    depth: Float32Array.from(sizes, (m) => Math.sqrt(2 * Math.log(Math.max(2, m)))),
    probe: Math.max(1, Math.ceil(lists * Math.max(probeShare, Math.min(1, MIN_PROBED_ROWS / assignment.length)))),
  };
}

/** The segments of the type's matrix to scan for a unit query: the probed lists', best first. */
export function rankLists(scanner: Int8DotKernel, lists: ProbedLists, query: Float32Array): [number, number][] {
  const count = lists.starts.length - 1;
  const centroidFactor = mapQuery(query, lists.centroids.scales, scanner.query);
  scanner.scan(lists.centroids.matrix, 0, count, 0);
  const squared = query.map((q) => q * q);
  const spreadFactor = mapQuery(squared, lists.spreads.scales, scanner.query);
  scanner.scan(lists.spreads.matrix, 0, count, count);
  const { scores } = scanner;
  const keys = new Float32Array(count);
  for (let l = 0; l < count; l++) {
    const spread = Math.sqrt(Math.max(0, scores[count + l]! / spreadFactor));
    keys[l] = scores[l]! / centroidFactor + SPREAD_WEIGHT * spread * lists.depth[l]!;
  }
  const out: [number, number][] = [];
  for (const l of topLists(keys, Math.min(lists.probe, count))) {
    if (lists.starts[l + 1]! > lists.starts[l]!) out.push([lists.starts[l]!, lists.starts[l + 1]!]);
  }
  return out;
}

/** The indices of the k largest keys (0 < k <= keys.length), in order: the k-th largest, then one pass. */
function topLists(keys: Float32Array, k: number): number[] {
  const threshold = kthLargest(keys, k);
  const out: number[] = [];
  for (let l = 0; l < keys.length && out.length < k; l++) if (keys[l]! >= threshold) out.push(l);
  return out;
}

/**
 * The k-th largest value (counting repeats), by selection in a copy (Hoare's partition): linear on
 * average, where sorting a copy of a type's 4,431 keys took nearly a tenth of a scan worker's time.
 */
export function kthLargest(values: Float32Array, k: number): number {
  const a = values.slice();
  const target = a.length - k; // its place in ascending order
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const swap = a[i]!;
        a[i++] = a[j]!;
        a[j--] = swap;
      }
    }
    // Now a[lo..j] <= pivot <= a[i..hi], and places between j and i hold the pivot.
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return a[target]!;
}
