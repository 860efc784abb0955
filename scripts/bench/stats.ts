/** Small helpers shared by the benchmark scripts: percentiles and a printed table. */

export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** The middle sample, or the mean of the two middle ones (percentile's nearest rank takes the lower of two). */
export function median(samples: number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function printTable(title: string, rows: [string, string][]): void {
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  console.log(`\n${title}\n${"-".repeat(title.length)}`);
  for (const [key, value] of rows) console.log(`${key.padEnd(width)}${value}`);
}
