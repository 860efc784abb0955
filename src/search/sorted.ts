/**
 * @module search/sorted
 * Binary search over sorted arrays (the name index's keys, the word index's vocabulary).
 */

/** First index whose value is not less than `key` (JavaScript string order), or the length. */
export function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
