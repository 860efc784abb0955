/**
 * @module search/ivf
 * Inverted lists over a type's vectors, so a question scans a share of the int8 codes (list-probe's
 * PROBE_SHARES of the lists) instead of all of them: spherical k-means splits the vectors into lists around unit centroids;
 * a query scans the lists whose rows could score highest for it (vector-shard.ts). Types under
 * IVF_MIN_ROWS keep the flat scan.
 *
 * `<type>.ivf`: uint32 lists, uint32 rows, then lists x dims float32 centroids, then rows uint32
 * list numbers (row order of the type's ids). The heavy step of k-means, assigning vectors to
 * their nearest centroid, scans the centroids as int8 codes (int8-dot.ts), on every core.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { EntityType } from "../entities/vocabulary.ts";
import { NEAREST_WORKER_URL } from "../runtime.ts";
import { Int8DotKernel, mapQuery, matrixBytes } from "./int8-dot.ts";
import { quantize } from "./vector-files.ts";

/** Types under this many vectors are scanned flat (Protocol, 9,145 at full scale: 70 microseconds). */
export const IVF_MIN_ROWS = 20_000;
/**
 * About 8 sqrt(n) lists: 20 to 70 rows each. Finer lists rank better for text questions
 * (list-probe.ts): on the full data's questions, Token at 5% of its rows kept 0.85 of the exact ten
 * with 1.5 sqrt(n) lists and 0.97 with 4 sqrt(n); Person 0.86 and 0.955. From 4 to 8 sqrt(n), at
 * about the same rows scanned: Token 0.974 to 0.985 (4% of lists, 14,000 rows), Person 0.952 to
 * 0.978 (5,500 rows), Pool 0.911 to 0.968 (10,000 rows, then 16,500), Organization 0.916 to 0.958
 * (5,000 rows: 4 sqrt(n) needed 30% of its lists, 11,000 rows, for 0.958). The price: twice the
 * centroids to rank per question and to assign rows to at build.
 */
const listCount = (rows: number) => Math.round(8 * Math.sqrt(rows));
/** k-means learns from at most this many vectors (evenly spaced), then assigns every vector once. */
const TRAINING_ROWS = 32_000;
const ITERATIONS = 6;

export const ivfFile = (type: EntityType) => `${type.toLowerCase()}.ivf`;

export interface InvertedLists {
  lists: number;
  /** lists x dims, unit length. */
  centroids: Float32Array;
  /** The list of each row. */
  assignment: Uint32Array;
}

/** A share of `nearest`'s work, as a helper thread is sent it (nearest-worker.ts). */
export interface NearestJob {
  /** The centroid codes, in a memory the threads share: the first scanner wrote them. */
  memory: WebAssembly.Memory;
  slots: number;
  slot: number;
  lists: number;
  dims: number;
  scales: Float32Array;
  vectors: Float32Array;
}

/**
 * The nearest centroid (inner product) of each vector of a job: the centroids as int8 codes
 * scanned by int8-dot.ts for each vector (a few times faster than a float search; the rounding
 * can only swap centroids of almost equal score, which k-means does not mind).
 */
export function nearestOf(job: NearestJob): Uint32Array {
  const { lists, dims, vectors } = job;
  const scanner = new Int8DotKernel(dims, matrixBytes(lists, dims), lists, { memory: job.memory, slots: job.slots, slot: job.slot });
  const matrix = scanner.reserve(lists);
  const count = vectors.length / dims;
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    mapQuery(vectors.subarray(i * dims, (i + 1) * dims), job.scales, scanner.query);
    scanner.scan(matrix, 0, lists, 0);
    const { scores } = scanner;
    let best = 0;
    for (let l = 1; l < lists; l++) if (scores[l]! > scores[best]!) best = l;
    out[i] = best;
  }
  return out;
}

/**
 * Threads that take k-means' heaviest step off the build's own: each takes an equal part of the
 * vectors (assigning every Token to 4,431 centroids is 1.4 G row scores). The build's thread only
 * waits: it issues the series' DuckDB statements beside the search index (snapshot/build.ts), which
 * a share of seconds on end would hold back. Every vector gets the same centroid whichever thread
 * scans it, so the lists do not depend on the number of threads.
 */
class NearestHelpers {
  private readonly workers: Worker[];

  constructor(count: number) {
    this.workers = Array.from({ length: count }, () => new Worker(NEAREST_WORKER_URL));
  }

  async nearest(centroids: Float32Array, vectors: Float32Array, dims: number): Promise<Uint32Array> {
    const lists = centroids.length / dims;
    const count = vectors.length / dims;
    const slots = this.workers.length + 1;
    const owner = new Int8DotKernel(dims, matrixBytes(lists, dims), lists, { slots, slot: 0 });
    const { scales, codes } = quantize(centroids, dims);
    owner.write(owner.reserve(lists), 0, codes);
    // Slot 0 is the owner's, which wrote the codes; helper i scans in slot i + 1.
    const part = Math.ceil(count / this.workers.length);
    // Helpers read the vectors in place when they are in shared memory (the build's are), else a copy of their part.
    const shared = vectors.buffer instanceof SharedArrayBuffer;
    const job = (helper: number): NearestJob => {
      const [from, to] = [Math.min(count, helper * part) * dims, Math.min(count, (helper + 1) * part) * dims];
      return { memory: owner.memory, slots, slot: helper + 1, lists, dims, scales, vectors: shared ? vectors.subarray(from, to) : vectors.slice(from, to) };
    };
    const out = new Uint32Array(count);
    const assignments = await Promise.all(this.workers.map((worker, i) => ask(worker, job(i))));
    assignments.forEach((assignment, i) => out.set(assignment, Math.min(count, i * part)));
    return out;
  }

  close(): void {
    for (const worker of this.workers) worker.terminate();
  }
}

function ask(worker: Worker, job: NearestJob): Promise<Uint32Array> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<{ assignment?: Uint32Array; error?: string }>) =>
      event.data.assignment ? resolve(event.data.assignment) : reject(new Error(`k-means helper: ${event.data.error}`));
    worker.onerror = (event) => reject(new Error(`k-means helper: ${event.message}`));
    worker.postMessage(job);
  });
}

function normalizeRows(matrix: Float32Array, dims: number): void {
  for (let base = 0; base < matrix.length; base += dims) {
    let norm = 0;
    for (let j = 0; j < dims; j++) norm += matrix[base + j]! * matrix[base + j]!;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let j = 0; j < dims; j++) matrix[base + j]! /= norm;
  }
}

/**
 * Spherical k-means over unit vectors (rows x dims), deterministic: evenly spaced samples and seeds.
 * `threads` helpers scan (default: one per core, at most four).
 */
export async function trainLists(vectors: Float32Array, dims: number, threads = Math.min(4, availableParallelism())): Promise<InvertedLists> {
  const helpers = new NearestHelpers(Math.max(1, threads));
  try {
    return await trainWith(helpers, vectors, dims);
  } finally {
    helpers.close();
  }
}

async function trainWith(helpers: NearestHelpers, vectors: Float32Array, dims: number): Promise<InvertedLists> {
  const rows = vectors.length / dims;
  const lists = listCount(rows);
  const step = Math.max(1, Math.floor(rows / TRAINING_ROWS));
  const sampleRows = Math.ceil(rows / step);
  const sample = new Float32Array(new SharedArrayBuffer(sampleRows * dims * 4));
  for (let i = 0; i < sampleRows; i++) sample.set(vectors.subarray(i * step * dims, (i * step + 1) * dims), i * dims);
  const centroids = new Float32Array(lists * dims);
  const seedStep = sampleRows / lists;
  for (let c = 0; c < lists; c++) centroids.set(sample.subarray(Math.floor(c * seedStep) * dims, (Math.floor(c * seedStep) + 1) * dims), c * dims);
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    const assigned = await helpers.nearest(centroids, sample, dims);
    const sums = new Float32Array(lists * dims);
    const sizes = new Uint32Array(lists);
    for (let i = 0; i < sampleRows; i++) {
      const c = assigned[i]!;
      sizes[c]!++;
      for (let j = 0; j < dims; j++) sums[c * dims + j]! += sample[i * dims + j]!;
    }
    for (let c = 0; c < lists; c++) {
      // An empty list takes a sample it does not hold yet: a spread-out one, so the seeds stay apart.
      if (sizes[c] === 0) sums.set(sample.subarray(((c * 7919 + iteration) % sampleRows) * dims, (((c * 7919 + iteration) % sampleRows) + 1) * dims), c * dims);
    }
    normalizeRows(sums, dims);
    centroids.set(sums);
  }
  return { lists, centroids, assignment: await helpers.nearest(centroids, vectors, dims) };
}

export function writeLists(dir: string, type: EntityType, ivf: InvertedLists): void {
  const header = new Uint32Array([ivf.lists, ivf.assignment.length]);
  const bytes = new Uint8Array(8 + ivf.centroids.byteLength + ivf.assignment.byteLength);
  bytes.set(new Uint8Array(header.buffer), 0);
  bytes.set(new Uint8Array(ivf.centroids.buffer, ivf.centroids.byteOffset, ivf.centroids.byteLength), 8);
  bytes.set(new Uint8Array(ivf.assignment.buffer, ivf.assignment.byteOffset, ivf.assignment.byteLength), 8 + ivf.centroids.byteLength);
  writeFileSync(join(dir, ivfFile(type)), bytes);
}

/** A type's inverted lists, or undefined when it has none (a small type, or a snapshot indexed before them). */
export function readLists(dir: string, type: EntityType, dims: number): InvertedLists | undefined {
  const path = join(dir, ivfFile(type));
  if (!existsSync(path)) return undefined;
  const file = readFileSync(path);
  const [lists, rows] = new Uint32Array(file.buffer.slice(file.byteOffset, file.byteOffset + 8));
  const centroidBytes = lists! * dims * 4;
  const centroids = new Float32Array(file.buffer.slice(file.byteOffset + 8, file.byteOffset + 8 + centroidBytes));
  const assignment = new Uint32Array(file.buffer.slice(file.byteOffset + 8 + centroidBytes, file.byteOffset + 8 + centroidBytes + rows! * 4));
  if (assignment.length !== rows) throw new Error(`${path} is truncated`);
  return { lists: lists!, centroids, assignment };
}
