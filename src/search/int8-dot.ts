/**
 * @module search/int8-dot
 * Dot products of a query with rows of int8 codes, in WebAssembly SIMD: about 8 ns a row of 128
 * codes on one core, where usearch's exactSearch spends 20 to 30 ns a row on its own bookkeeping
 * (a distance matrix, a transposition and a sort for every call, whatever the dimensions: measured
 * 17 ns a row at 8 dimensions). The vector index scans its probed lists with it (vector-shard.ts).
 *
 * The kernel is one small function, emitted here as bytes for the dimensions at hand (rows and the
 * query padded with zeros to a multiple of 16): for each row, the codes are widened to int16 and multiplied pairwise with the int16
 * query (i32x4.dot_i16x8_s), the four lanes summed, and the int32 score stored. Codes and scores
 * live in the module's memory, laid out once when a scanner is made: no copy per question.
 *
 * That memory is shared (a SharedArrayBuffer): the codes are written once, by the first scanner,
 * and every scan worker's scanner runs on the same pages (77 MB of codes on the full data, which
 * each worker used to copy). Only a slot of its own, the query and the scores, is per scanner.
 */

const I32 = 0x7f;
const V128 = 0x7b;

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
};
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const name = (s: string) => vec(Array.from(s, (c) => [c.charCodeAt(0)]));
const simd = (op: number, ...immediates: number[]) => [0xfd, ...uleb(op), ...immediates];
const localGet = (i: number) => [0x20, ...uleb(i)];
const localSet = (i: number) => [0x21, ...uleb(i)];

const OP = { v128Load: 0x00, extractLane: 0x1b, extendLow: 0x87, extendHigh: 0x88, i32x4Add: 0xae, dot: 0xba } as const;

/**
 * `scores(codes, rows, query, out)`: for rows of `dims` int8 codes from byte `codes`, the dot
 * product with the `dims` int16 values at `query`, stored as int32 from byte `out`.
 */
function kernel(dims: number): Uint8Array {
  if (dims % 16 !== 0 || dims === 0) throw new Error(`int8 scan: a kernel's dimensions are a multiple of 16 (got ${dims})`);
  const [codes, rows, query, out, end] = [0, 1, 2, 3, 4];
  const chunks = dims / 8; // int16 query chunks of eight lanes
  const q = 5;
  const acc = [q + chunks, q + chunks + 1];
  const row = q + chunks + 2;
  const body: number[] = [];
  // end = codes + rows * dims; the query's chunks into locals once.
  body.push(...localGet(codes), ...localGet(rows), ...i32Const(dims), 0x6c, 0x6a, ...localSet(end));
  for (let c = 0; c < chunks; c++) body.push(...localGet(query), ...simd(OP.v128Load, 4, ...uleb(c * 16)), ...localSet(q + c));
  body.push(0x02, 0x40, ...localGet(codes), ...localGet(end), 0x4f, 0x0d, 0); // block; if codes >= end: done
  body.push(0x03, 0x40); // loop
  for (let k = 0; k < dims / 16; k++) {
    const into = acc[k % 2]!;
    body.push(...localGet(codes), ...simd(OP.v128Load, 0, ...uleb(k * 16)), ...localSet(row));
    body.push(...localGet(row), ...simd(OP.extendLow), ...localGet(q + 2 * k), ...simd(OP.dot));
    if (k >= 2) body.push(...localGet(into), ...simd(OP.i32x4Add));
    body.push(...localGet(row), ...simd(OP.extendHigh), ...localGet(q + 2 * k + 1), ...simd(OP.dot), ...simd(OP.i32x4Add), ...localSet(into));
  }
  body.push(...localGet(acc[0]!), ...localGet(acc[1]!), ...simd(OP.i32x4Add), ...localSet(acc[0]!));
  body.push(...localGet(out));
  body.push(...localGet(acc[0]!), ...simd(OP.extractLane, 0));
  for (let lane = 1; lane < 4; lane++) body.push(...localGet(acc[0]!), ...simd(OP.extractLane, lane), 0x6a);
  body.push(0x36, 2, 0); // i32.store
  body.push(...localGet(out), ...i32Const(4), 0x6a, ...localSet(out));
  body.push(...localGet(codes), ...i32Const(dims), 0x6a, 0x22, codes, ...localGet(end), 0x49, 0x0d, 0); // codes += dims; loop while codes < end
  body.push(0x0b, 0x0b, 0x0b); // end loop, block, function
  const func = [...vec([[1, I32], [chunks + 3, V128]]), ...body];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
    ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32]]), 0]])),
    // The memory is imported, shared (limits flag 3: a minimum and a maximum), up to the 4 GiB of wasm32.
    ...section(2, vec([[...name("env"), ...name("memory"), 0x02, 0x03, 0, ...uleb(MAX_PAGES)]])),
    ...section(3, vec([[0]])),
    ...section(7, vec([[...name("scores"), 0x00, 0]])),
    ...section(10, vec([[...uleb(func.length), ...func]])),
  ]);
}

/** i32.const of a non-negative value (signed LEB128). */
function i32Const(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if (n === 0 && (byte & 0x40) === 0) return [0x41, ...out, byte];
    out.push(byte | 0x80);
  }
}

/** The query's int16 range: products with int8 codes stay far inside int32 at any dimensions we use. */
const QUERY_RANGE = 16_383;
const PAGE = 65_536;
const MAX_PAGES = 65_536;
const align = (n: number) => Math.ceil(n / 16) * 16;

/** Rows of int8 codes placed in a scanner's memory. */
export interface CodeMatrix {
  readonly at: number;
  readonly rows: number;
}

/** Where a scanner's codes live: a memory another scanner made and filled, and this scanner's slot in it. */
export interface SharedCodes {
  /** The first scanner's `memory`; absent: this scanner makes the memory and writes the codes. */
  memory?: WebAssembly.Memory;
  /** Scanners that will share the memory (each with a slot for its query and scores), and this one's. */
  slots: number;
  slot: number;
}

/**
 * A module instance with room for the given matrices (placed once, by `reserve` and `write`), and per slot one
 * query and the scores of `maxScored` rows. Scanners made with the same dimensions, sizes and
 * reservations in the same order lay their matrices out alike, so one made on another's memory
 * (`shared.memory`) finds the codes in place: its writes are skipped.
 */
export class Int8DotKernel {
  private readonly scoresFn: (codes: number, rows: number, query: number, out: number) => void;
  readonly memory: WebAssembly.Memory;
  /** The codes were written by the scanner that made the memory. */
  private readonly filled: boolean;
  private next = 0;
  /** Bytes of a row in memory: the dimensions padded to a multiple of 16. */
  private readonly stride: number;
  /** Bytes of codes asked for when made: codes past them are refused. */
  private readonly capacity: number;
  private readonly queryAt: number;
  private readonly outAt: number;
  /** The int16 query of the next scan. */
  readonly query: Int16Array;
  /** Scores of the last scans, in the order they were written. */
  readonly scores: Int32Array;

  constructor(
    readonly dims: number,
    codeBytes: number,
    maxScored: number,
    shared: SharedCodes = { slots: 1, slot: 0 },
  ) {
    this.stride = align(dims);
    this.capacity = align(codeBytes);
    const slotBytes = align(this.stride * 2) + align(maxScored * 4);
    const bytes = this.capacity + shared.slots * slotBytes;
    const pages = Math.max(1, Math.ceil(bytes / PAGE));
    this.filled = shared.memory !== undefined;
    this.memory = shared.memory ?? new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
    if (shared.slot >= shared.slots) throw new Error(`int8 scan: no slot ${shared.slot} among ${shared.slots}`);
    if (this.memory.buffer.byteLength < bytes) throw new Error("int8 scan: a shared memory smaller than the scanner needs");
    const instance = new WebAssembly.Instance(new WebAssembly.Module(kernel(this.stride)), { env: { memory: this.memory } });
    this.scoresFn = instance.exports.scores as Int8DotKernel["scoresFn"];
    this.queryAt = this.capacity + shared.slot * slotBytes;
    this.outAt = this.queryAt + align(this.stride * 2);
    this.query = new Int16Array(this.memory.buffer, this.queryAt, dims);
    this.scores = new Int32Array(this.memory.buffer, this.outAt, maxScored);
  }

  private take(bytes: number): number {
    const at = this.next;
    this.next = align(at + bytes);
    if (this.next > this.capacity) throw new Error("int8 scan: more codes than the scanner was made for");
    return at;
  }

  /** Room for `rows` rows of codes in the scanner's memory, to be filled with `write`. */
  reserve(rows: number): CodeMatrix {
    return { at: this.take(rows * this.stride), rows };
  }

  /** Writes rows of codes (`dims` each) into a matrix from row `from` on. */
  write(matrix: CodeMatrix, from: number, codes: Int8Array): void {
    const rows = codes.length / this.dims;
    if (from + rows > matrix.rows) throw new Error("int8 scan: out of range");
    if (this.filled) return;
    const into = new Int8Array(this.memory.buffer, matrix.at + from * this.stride, rows * this.stride);
    if (this.stride === this.dims) into.set(codes);
    else for (let row = 0; row < rows; row++) into.set(codes.subarray(row * this.dims, (row + 1) * this.dims), row * this.stride);
  }

  /** Scores rows [from, to) of a matrix against `query`, written to `scores` from index `into`. */
  scan(matrix: CodeMatrix, from: number, to: number, into: number): void {
    if (to <= from) return;
    if (into + to - from > this.scores.length || to > matrix.rows) throw new Error("int8 scan: out of range");
    this.scoresFn(matrix.at + from * this.stride, to - from, this.queryAt, this.outAt + into * 4);
  }
}

/** Bytes a scanner needs for a matrix of `rows` (with its alignment). */
export const matrixBytes = (rows: number, dims: number) => rows * align(dims);

/**
 * Maps a query into a matrix's code scales as int16 (code_j = x_j x scale_j, so q . x = sum
 * (q_j / scale_j) code_j) and returns the factor of its scores: score / factor = q . x.
 */
export function mapQuery(query: Float32Array, scales: Float32Array, into: Int16Array): number {
  let max = 0;
  for (let j = 0; j < query.length; j++) max = Math.max(max, Math.abs(query[j]! / scales[j]!));
  if (max === 0) {
    into.fill(0);
    return 1;
  }
  const factor = QUERY_RANGE / max;
  for (let j = 0; j < query.length; j++) into[j] = Math.round((query[j]! / scales[j]!) * factor);
  return factor;
}
