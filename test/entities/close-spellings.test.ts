import { describe, expect, test } from "bun:test";
import { closeSpellings } from "../../src/entities/close-spellings.ts";
import { Rng } from "../../src/rng.ts";

/** Optimal string alignment distance, the plain dynamic programme: the reference. */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** Every word of the vocabulary within `edits` of `word` (not the word itself) that starts with its first letter, ascending. */
function bruteForce(vocab: readonly string[], word: string, edits: number): [number, number][] {
  const out: [number, number][] = [];
  vocab.forEach((candidate, i) => {
    if (candidate[0] !== word[0]) return;
    const distance = osa(word, candidate);
    if (distance > 0 && distance <= edits) out.push([i, distance]);
  });
  return out;
}

describe("close spellings", () => {
  // A dense vocabulary (few letters, short words, some accented) so that most words have neighbours.
  const rng = new Rng("close-spellings");
  const letters = ["a", "b", "c", "d", "e", "é", "1"];
  const randomWord = () => Array.from({ length: 1 + Math.floor(rng.next() * 8) }, () => rng.pick(letters)).join("");
  const vocab = [...new Set(Array.from({ length: 4_000 }, randomWord))].sort();
  const mutate = (word: string) => {
    const at = Math.floor(rng.next() * (word.length + 1));
    return rng.next() < 0.5 ? word.slice(0, at) + rng.pick(letters) + word.slice(at) : word.slice(0, at) + word.slice(at + 1);
  };
  const words = [...Array.from({ length: 300 }, randomWord), ...Array.from({ length: 300 }, () => mutate(rng.pick(vocab))), ...vocab.slice(0, 100)].filter((w) => w !== "");

  for (const edits of [1, 2]) {
    test(`${edits} edit${edits > 1 ? "s" : ""}: exactly the words a brute-force alignment finds, in vocabulary order`, () => {
      let found = 0;
      for (const word of words) {
        const got: [number, number][] = [];
        closeSpellings(vocab, word, edits, (index, distance) => got.push([index, distance]));
        const expected = bruteForce(vocab, word, edits);
        expect({ word, got }).toEqual({ word, got: expected });
        found += got.length;
      }
      // The set is dense enough that the comparison means something.
      expect(found).toBeGreaterThan(words.length);
    });
  }
});
