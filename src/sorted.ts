/**
 * @module sorted
 * Binary search over sorted arrays: the word index's vocabulary and
 * postings, a detector's sorted scores.
 */

/** First index in [from, to) whose value is not less than `key` (JavaScript order), or `to`. */
export function lowerBound<T extends number | string>(sorted: ArrayLike<T>, key: T, from = 0, to = sorted.length): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
