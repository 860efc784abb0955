/**
 * @module entities/name-words
 * How a name or a query splits into words, one rule for the word index (word-index.ts) and search
 * scopes: letters and digits of any script, accents folded, lower case.
 */

const ASCII = /^[\x00-\x7f]*$/;

/** The words of a text: letters and digits of any script, accents folded, lower case. */
export function nameWords(text: string): string[] {
  // Most names are ASCII: no accents to fold.
  if (ASCII.test(text)) return text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0);
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}
