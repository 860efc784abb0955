/**
 * @module graph/fact-sort
 * Helpers of fact-index-build.ts and fact-links.ts: a growing UTF-8 string buffer, a stable counting sort of indexes
 * by a small integer key, and dropping facts repeated in a run of one subject and predicate.
 */
import { IRI, LITERAL } from "./fact-arrays.ts";

/** Strings appended into one UTF-8 buffer; each gets the next index. */
export class TextStore {
  private bytes = new Uint8Array(1 << 20);
  private length = 0;
  private starts = new Uint32Array(1 << 16);
  private count = 0;
  private readonly decoder = new TextDecoder();

  /** A string's UTF-8 bytes (copied). */
  add(bytes: Uint8Array): number {
    if (this.length + bytes.length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.length + bytes.length, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    if (this.count + 2 > this.starts.length) {
      const grown = new Uint32Array(this.starts.length * 2);
      grown.set(this.starts);
      this.starts = grown;
    }
    this.bytes.set(bytes, this.length);
    this.starts[this.count] = this.length;
    this.length += bytes.length;
    this.count++;
    this.starts[this.count] = this.length;
    return this.count - 1;
  }

  get(index: number): string {
    return this.decoder.decode(this.bytes.subarray(this.starts[index]!, this.starts[index + 1]!));
  }

  equal(a: number, b: number): boolean {
    const from = this.starts[a]!;
    const length = this.starts[a + 1]! - from;
    const other = this.starts[b]!;
    if (this.starts[b + 1]! - other !== length) return false;
    for (let i = 0; i < length; i++) if (this.bytes[from + i] !== this.bytes[other + i]) return false;
    return true;
  }

  /** The buffer and the starts, trimmed to what was added. */
  done(): { bytes: Uint8Array; starts: Uint32Array } {
    return { bytes: this.bytes.slice(0, this.length), starts: this.starts.slice(0, this.count + 1) };
  }
}

/** An array for `length` codes below `codes`: one byte each when they fit. */
export function narrow(codes: number, length: number): Uint8Array | Uint16Array {
  if (codes > 65536) throw new Error(`too many distinct codes (${codes})`);
  return codes <= 256 ? new Uint8Array(length) : new Uint16Array(length);
}

/** Indexes 0..n-1 (or `input`'s order) stably sorted by keys[index] in [0, buckets). */
export function stableOrder(keys: ArrayLike<number>, buckets: number, input: Uint32Array | null, n: number): Uint32Array {
  const start = new Uint32Array(buckets + 1);
  for (let i = 0; i < n; i++) start[keys[input ? input[i]! : i]! + 1]!++;
  for (let b = 0; b < buckets; b++) start[b + 1]! += start[b]!;
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const at = input ? input[i]! : i;
    out[start[keys[at]!]!++] = at;
  }
  return out;
}

const textual = (kind: number) => (kind & 7) === LITERAL || (kind & 7) === IRI;

/**
 * The indexes of `order` (sorted by subject and predicate) without the facts repeated within their
 * run: same kind, source and object (for literals and IRIs, the same text).
 */
export function dedupeRuns(
  order: Uint32Array,
  sub: Uint32Array,
  pred: Uint16Array,
  src: Uint16Array,
  kind: Uint8Array,
  obj: Uint32Array,
  text: TextStore,
): Uint32Array {
  const kept = new Uint32Array(order.length);
  let m = 0;
  const same = (a: number, b: number) => kind[a] === kind[b] && src[a] === src[b] && (obj[a] === obj[b] || (textual(kind[a]!) && text.equal(obj[a]!, obj[b]!)));
  for (let i = 0; i < order.length; ) {
    const first = order[i]!;
    let j = i + 1;
    while (j < order.length && sub[order[j]!] === sub[first] && pred[order[j]!] === pred[first]) j++;
    if (j - i > 64) {
      // A long run (a fund's hundred investments): keyed, not compared pairwise.
      const seen = new Set<string>();
      for (let r = i; r < j; r++) {
        const at = order[r]!;
        const key = `${kind[at]}|${src[at]}|${textual(kind[at]!) ? text.get(obj[at]!) : obj[at]}`;
        if (seen.has(key)) continue;
        seen.add(key);
        kept[m++] = at;
      }
    } else {
      const runStart = m;
      for (let r = i; r < j; r++) {
        const at = order[r]!;
        let repeated = false;
        for (let q = runStart; q < m && !repeated; q++) repeated = same(at, kept[q]!);
        if (!repeated) kept[m++] = at;
      }
    }
    i = j;
  }
  return kept.subarray(0, m);
}
