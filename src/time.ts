/**
 * @module time
 * Instants as the API and the snapshot files write them: ISO 8601 in UTC to the second
 * ("2026-11-22T13:42:11Z").
 */
export function isoSeconds(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d+Z$/, "Z");
}

/** The day `days` after a day ("2024-07-01", -1 -> "2024-06-30"). */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
