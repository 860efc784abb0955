import { describe, expect, test } from "bun:test";
import { PackedLookup, PackedStrings } from "../../src/entities/packed-strings.ts";

describe("packed strings", () => {
  // Past the first buffer's 64 KiB, with non-ASCII, astral and empty values.
  const values = Array.from({ length: 20_000 }, (_, i) => (i % 1000 === 0 ? "" : i % 7 === 0 ? `Ünïcødé ${i} 🦄` : `token/ethereum-${i.toString(16)}`));

  test("reads back every value, a null as empty", () => {
    const packed = PackedStrings.of([...values, null, undefined, "last"]);
    expect(packed.length).toBe(values.length + 3);
    for (let i = 0; i < values.length; i++) expect(packed.at(i)).toBe(values[i]!);
    expect([packed.at(values.length), packed.at(values.length + 1), packed.at(values.length + 2)]).toEqual(["", "", "last"]);
  });

  test("lowerBound finds the first string not below a key, in JavaScript order, within a range", () => {
    const sorted = [...new Set(values)].sort();
    const packed = PackedStrings.of(sorted);
    for (const key of ["", "token/ethereum-1", "token/ethereum-1f", "Ünïcødé 7 🦄", "zzz", "A"]) {
      expect(packed.lowerBound(key)).toBe(sorted.findIndex((s) => s >= key) === -1 ? sorted.length : sorted.findIndex((s) => s >= key));
    }
    expect(packed.lowerBound("zzz", 0, 10)).toBe(10);
    expect(packed.lowerBound("", 5)).toBe(5);
  });

  test("lowerBound agrees with JavaScript's order where strings leave ASCII, at the same place or not, and for a prefix's upper key", () => {
    // JavaScript orders UTF-16 units: an astral character (a surrogate pair, 0xD800...) comes before
    // U+FFFD and U+FF21, where UTF-8's byte order puts it after them.
    const words = ["", "a", "ab", "abc", "abd", "ab\u00e9", "ab\u00e9z", "ab\u{1F984}", "ab\ufffd", "ab\uff21", "\u00e9", "\u00e9a", "z", "\u{1F984}", "\u{1F984}a", "\uffff", "b\u00e9\u00e9", "b\u00e9a"];
    const sorted = [...new Set(words.flatMap((w) => [w, `${w}x`, `x${w}`]))].sort();
    const packed = PackedStrings.of(sorted);
    const keys = [...sorted, ...words.map((w) => `${w}\uffff`), "ab\u00ea", "ab\u{1F985}", "ab\ud83e", "\u007f", "\u0080", "b\u00e9"];
    for (const key of keys) {
      const expected = sorted.findIndex((s) => s >= key);
      expect([key, packed.lowerBound(key)]).toEqual([key, expected === -1 ? sorted.length : expected]);
    }
  });

  test("a lookup finds each string's first position and nothing for a string not held", () => {
    const held = [...values.slice(1, 5000), "token/ethereum-2"];
    const lookup = new PackedLookup(PackedStrings.of(held));
    for (let i = 0; i < 4999; i++) expect(lookup.get(held[i]!)).toBe(held.indexOf(held[i]!));
    expect(lookup.get("token/ethereum-2")).toBe(1);
    expect(lookup.get("token/ethereum-")).toBeUndefined();
    expect(lookup.get("Ünïcødé 7 🦄 ")).toBeUndefined();
  });
});
