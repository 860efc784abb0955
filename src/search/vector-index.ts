/**
 * @module search/vector-index
 * Nearest neighbours (cosine) with one index per entity type, so a type filter applies before the
 * top-k cut: asking for 10 pools returns 10 pools whenever 10 exist.
 *
 * The index is scalar-quantized: each type's vectors as int8 codes (one scale per dimension),
 * scanned by a WebAssembly SIMD kernel (int8-dot.ts), and the best k + 25 candidates scored again
 * exactly from the float vectors (vector-shard.ts). It replaced HNSW graphs, which on our vectors
 * cannot reach the recall a user expects: LSA vectors of look-alike entities crowd (hundreds of "ETH
 * staking" pools, people with the same role), and text questions land far from all of them, where
 * a graph walk stops early. Measured again with usearch 2.25 on the full data, f16
 * and i8, 16 links, expansion 128 at build, exact rescoring of what the walk returns: recall@10 of
 * the 73 meaning questions at a search expansion of 256 was 0.74 (Organization), 0.41 (Person),
 * 0.64 (Pool) and 0.72 (Token) at 0.15 to 0.4 ms a type, while entity vectors as queries got 0.99+.
 *
 * A type of IVF_MIN_ROWS vectors or more also has inverted lists (ivf.ts): its codes are grouped
 * by nearest k-means centroid and a question scans only a share of the lists (PROBE_SHARES), those whose rows
 * should score highest for it (list-probe.ts), before the same exact rescoring.
 *
 * The scan runs in worker threads (vector-worker.ts), one per core, each scanning every row: the least
 * busy worker takes a question, so concurrent questions use every core and the event loop never
 * waits on a scan. The int8 codes are one copy in a shared memory: the first worker opened fills
 * it, the others (and any worker started again after a crash) open on it.
 */
import { closeSync, openSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { EntityType } from "../entities/vocabulary.ts";
import { VECTOR_WORKER_URL } from "../runtime.ts";
import { IVF_MIN_ROWS, trainLists, writeLists } from "./ivf.ts";
import { codesFile, idsFile, quantize, rowCount, vectorsFile } from "./vector-files.ts";
import type { ScanReply, ScanRequest, ShardHits } from "./vector-shard.ts";

export interface TypeVectors {
  ids: string[];
  /** ids.length x dims, row-major, unit length. */
  vectors: Float32Array;
}

/** A vector row of a type (its place in `<type>.ids.json`) and its cosine to the query. */
export interface Hit {
  type: EntityType;
  row: number;
  similarity: number;
}

/** Saves one type's ids, its vectors, their int8 codes and, for a large type, its inverted lists (the index a server scans). */
export async function buildTypeIndex(dir: string, type: EntityType, data: TypeVectors, dims: number): Promise<void> {
  if (data.ids.length >= IVF_MIN_ROWS) writeLists(dir, type, await trainLists(data.vectors, dims));
  writeFileSync(join(dir, idsFile(type)), JSON.stringify(data.ids));
  writeFileSync(join(dir, vectorsFile(type)), data.vectors);
  const { scales, codes } = quantize(data.vectors, dims);
  const fd = openSync(join(dir, codesFile(type)), "w");
  try {
    writeFileSync(fd, new Uint8Array(scales.buffer, scales.byteOffset, scales.byteLength));
    writeFileSync(fd, new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength));
  } finally {
    closeSync(fd);
  }
}

/** A scan that has not answered in this long is given up and its worker replaced. */
const SCAN_TIME_LIMIT_MS = 30_000;
/** One worker per core (more would only queue), at most four: every search messages each of them. */
const defaultWorkers = () => Math.max(1, Math.min(4, availableParallelism()));

export interface VectorIndexOptions {
  /** Score every vector exactly (float, no codes): the benchmark's reference. */
  exact?: boolean;
  workers?: number;
  /** The share of every type's inverted lists a question scans (default: each type's, PROBE_SHARES). */
  probeShare?: number;
}

export class VectorIndexes {
  private constructor(
    private readonly counts: Map<EntityType, number>,
    private readonly workers: VectorWorker[],
  ) {}

  /** Starts the scan workers on a snapshot's search folder; resolves once every one has opened its rows. */
  static async open(dir: string, types: readonly EntityType[], dims: number, options: VectorIndexOptions = {}): Promise<VectorIndexes> {
    const counts = new Map(types.map((type) => [type, rowCount(dir, type, dims)]));
    const count = options.workers ?? defaultWorkers();
    // Each worker holds every row and answers whole questions: splitting one question across
    // workers costs more in messages and per-type overhead than it saves under load (full data, 32
    // in flight, 8% of lists: 1,088-1,255 a second whole, 939-952 split; at today's settings a split
    // of idle questions cut p50 from 9.9 to 8.5 ms and gained no throughput).
    const init = (slot: number, memory?: WebAssembly.Memory): Extract<ScanRequest, { kind: "open" }> => ({
      kind: "open",
      dir,
      types: [...types],
      dims,
      exact: options.exact ?? false,
      probeShare: options.probeShare,
      // Two slots per worker: a replacement scans in the other one, since the thread it replaced
      // may still be finishing a scan (terminate() is not instant) and writing scores into its own.
      codes: { slots: 2 * count, slot, memory },
    });
    const first = new VectorWorker(init(0));
    const indexes = new VectorIndexes(counts, [first]);
    try {
      const codes = await first.opened;
      if (codes) first.reopenOn(init(0, codes));
      for (let slot = 1; slot < count; slot++) indexes.workers.push(new VectorWorker(init(slot, codes)));
      await Promise.all(indexes.workers.map((w) => w.opened));
    } catch (error) {
      indexes.close();
      throw error;
    }
    return indexes;
  }

  /** The k nearest entities of each requested type, merged by similarity. `vector` need not be unit length. */
  async search(vector: Float32Array, k: number, types: readonly EntityType[]): Promise<Hit[]> {
    const wanted = types.filter((type) => (this.counts.get(type) ?? 0) > 0);
    if (wanted.length === 0) return [];
    let norm = 0;
    for (const x of vector) norm += x * x;
    if (norm === 0) return [];
    const query = Float32Array.from(vector, (x) => x / Math.sqrt(norm));
    // The least busy worker takes the question; its answer holds each type's best k.
    const worker = this.workers.reduce((best, w) => (w.inFlight < best.inFlight ? w : best));
    return mergeBySimilarity(await worker.scan(query, k, wanted));
  }

  close(): void {
    for (const worker of this.workers) worker.close();
  }
}

/**
 * Every type's hits (each type's best first) in one list, best first: a merge of the lists, equal
 * similarities in the order of the types and then of each list (a stable sort's order, without
 * sorting a scoped question's thousand hits again).
 */
function mergeBySimilarity(lists: ShardHits[]): Hit[] {
  const hits: Hit[] = [];
  const next = new Int32Array(lists.length);
  for (;;) {
    let best = -1;
    for (let t = 0; t < lists.length; t++) {
      if (next[t]! >= lists[t]!.rows.length) continue;
      if (best < 0 || lists[t]!.similarities[next[t]!]! > lists[best]!.similarities[next[best]!]!) best = t;
    }
    if (best < 0) return hits;
    const { type, rows, similarities } = lists[best]!;
    hits.push({ type, row: rows[next[best]!]!, similarity: similarities[next[best]!]! });
    next[best]!++;
  }
}

/** One scan worker; replaced by a fresh one if it dies or stops answering. */
class VectorWorker {
  private worker!: Worker;
  private pending = new Map<number, { resolve: (hits: ShardHits[]) => void; reject: (error: Error) => void; timer: Timer }>();
  private nextId = 0;
  private closed = false;
  /** Resolves with the codes' shared memory once the worker has opened its rows. */
  opened!: Promise<WebAssembly.Memory | undefined>;

  constructor(private init: Extract<ScanRequest, { kind: "open" }>) {
    this.start();
  }

  /** A worker started again (after a crash) opens on the codes already in memory. */
  reopenOn(init: Extract<ScanRequest, { kind: "open" }>): void {
    this.init = init;
  }

  private start(): void {
    const worker = new Worker(VECTOR_WORKER_URL);
    // An idle index never keeps the process alive; a worker opening or with scans in hand is
    // referenced (Bun delivers an unreferenced worker's messages late, milliseconds on every scan).
    this.worker = worker;
    this.opened = new Promise((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<ScanReply>) => {
        const reply = event.data;
        if (reply.kind === "opened") {
          if (this.pending.size === 0) worker.unref();
          return resolve(reply.codes);
        }
        if (reply.kind === "failed" && reply.id === undefined) return reject(new Error(`search index: ${reply.error}`));
        const waiting = this.pending.get(reply.id!);
        if (!waiting) return;
        this.pending.delete(reply.id!);
        if (this.pending.size === 0) worker.unref();
        clearTimeout(waiting.timer);
        if (reply.kind === "hits") waiting.resolve(reply.hits);
        else waiting.reject(new Error(`vector search failed: ${reply.error}`));
      };
      worker.onerror = (event) => {
        const error = new Error(`vector search worker crashed: ${event.message}`);
        reject(error);
        this.restart(error);
      };
    });
    this.opened.catch(() => undefined); // awaited by open() and by each scan
    worker.postMessage(this.init);
  }

  /** Fails what the old worker had in hand and starts a new one on the same slice. */
  private restart(error: Error): void {
    this.worker.terminate();
    for (const { reject, timer } of this.pending.values()) {
      clearTimeout(timer);
      reject(error);
    }
    this.pending.clear();
    if (this.closed) return;
    const { slot, slots } = this.init.codes;
    this.init = { ...this.init, codes: { ...this.init.codes, slot: (slot + slots / 2) % slots } };
    this.start();
  }

  async scan(query: Float32Array, k: number, types: EntityType[]): Promise<ShardHits[]> {
    await this.opened;
    if (this.closed) throw new Error("the search index was closed");
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.restart(new Error(`vector search took longer than ${SCAN_TIME_LIMIT_MS / 1000} s`)), SCAN_TIME_LIMIT_MS);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer });
      this.worker.ref();
      this.worker.postMessage({ kind: "scan", id, query, k, types } satisfies ScanRequest);
    });
  }

  /** Scans sent and not answered yet. */
  get inFlight(): number {
    return this.pending.size;
  }

  close(): void {
    this.closed = true;
    this.restart(new Error("the search index was closed"));
  }
}
