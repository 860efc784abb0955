/**
 * @module entities/packed-strings
 * Many short strings held as one UTF-8 buffer and their end offsets, decoded when read. The name
 * index keeps four of them (keys, ids, names, symbols of 670,000 nodes): as JavaScript strings in
 * arrays they cost about 80 bytes each beyond their characters (a string cell, its buffer's header
 * and allocation, an array slot), packed they cost their UTF-8 bytes and 4.
 */

const encoder = new TextEncoder();

export class PackedStrings {
  private constructor(
    /** A Buffer: its native UTF-8 slice decodes a short string in about 0.13 us, a TextDecoder in 0.23, String.fromCharCode in 1.5. */
    private readonly bytes: Buffer,
    /** String i is bytes[ends[i - 1], ends[i]) (from 0 for the first). */
    private readonly ends: Uint32Array,
  ) {}

  /** Packs the values; a null is read back as "". */
  static of(values: readonly (string | null | undefined)[]): PackedStrings {
    let bytes = new Uint8Array(1 << 16);
    const ends = new Uint32Array(values.length);
    let used = 0;
    for (const [i, value] of values.entries()) {
      const text = value ?? "";
      // UTF-8 takes at most 3 bytes per UTF-16 unit.
      if (used + text.length * 3 > bytes.length) {
        const grown = new Uint8Array(Math.max(bytes.length * 2, used + text.length * 3));
        grown.set(bytes.subarray(0, used));
        bytes = grown;
      }
      used += encoder.encodeInto(text, bytes.subarray(used)).written;
      ends[i] = used;
    }
    return new PackedStrings(Buffer.from(bytes.slice(0, used).buffer), ends);
  }

  get length(): number {
    return this.ends.length;
  }

  /** The UTF-8 bytes of string i (at least its UTF-16 length), without decoding it. */
  bytesOf(i: number): number {
    return this.ends[i]! - (i === 0 ? 0 : this.ends[i - 1]!);
  }

  at(i: number): string {
    const start = i === 0 ? 0 : this.ends[i - 1]!;
    const end = this.ends[i]!;
    return start === end ? "" : this.bytes.toString("utf8", start, end);
  }

  /** First index in [from, to) whose string is not less than `key` (JavaScript order), or `to`; the strings sorted. */
  lowerBound(key: string, from = 0, to = this.length): number {
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.isBelow(mid, key)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Is string i less than `key` in JavaScript's order (UTF-16 units)? Read from its bytes while they
   * are ASCII, where a byte is its unit, and any other unit, a UTF-8 lead byte's included, is
   * greater than every ASCII one: a search over 670,000 names decodes none of the twenty strings it
   * passes unless both sides leave ASCII at the same place (then string i is decoded).
   */
  private isBelow(i: number, key: string): boolean {
    const { bytes } = this;
    let at = i === 0 ? 0 : this.ends[i - 1]!;
    const end = this.ends[i]!;
    for (let c = 0; c < key.length; c++) {
      if (at === end) return true; // a proper prefix of the key
      const byte = bytes[at++]!;
      const unit = key.charCodeAt(c);
      if (byte < 0x80 && unit < 0x80) {
        if (byte !== unit) return byte < unit;
      } else if (byte < 0x80) return true;
      else if (unit < 0x80) return false;
      else return this.at(i) < key;
    }
    return false; // the key is a prefix of string i, or equal
  }

  /** Bytes held. */
  get byteLength(): number {
    return this.bytes.byteLength + this.ends.byteLength;
  }
}

/**
 * Positions by string (ids to positions): an open-addressing table of positions, hashed on the
 * string's UTF-16 units, the strings themselves read from their PackedStrings. In place of a Map of
 * every id, which holds each id string and an entry besides.
 */
export class PackedLookup {
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(private readonly strings: PackedStrings) {
    let size = 1;
    while (size < strings.length * 2) size *= 2;
    this.slots = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    for (let i = 0; i < strings.length; i++) {
      const text = strings.at(i);
      let slot = hash(text) & this.mask;
      // A string held twice keeps its first position.
      while (this.slots[slot] !== -1) {
        if (strings.at(this.slots[slot]!) === text) break;
        slot = (slot + 1) & this.mask;
      }
      if (this.slots[slot] === -1) this.slots[slot] = i;
    }
  }

  get(text: string): number | undefined {
    let slot = hash(text) & this.mask;
    for (;;) {
      const position = this.slots[slot]!;
      if (position === -1) return undefined;
      if (this.strings.at(position) === text) return position;
      slot = (slot + 1) & this.mask;
    }
  }
}

/** FNV-1a over UTF-16 units. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
