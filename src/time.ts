/**
 * @module time
 * Instants as the API and the snapshot files write them: ISO 8601 in UTC to the second
 * ("2026-11-22T13:42:11Z").
 */
export function isoSeconds(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d+Z$/, "Z");
}
