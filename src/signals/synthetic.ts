/**
 * @module signals/synthetic
 * Where a reader sees first that a signal rests on generated demo data: a signal, a narrative and an
 * entity's summary carry `synthetic: true` at their top level when any of their sources is
 * synthetic, and their sentences end with SYNTHETIC_MARK, so a quoted summary still says so.
 */

export const SYNTHETIC_MARK = "(synthetic demo data)";

/** `text` with the mark at its end when `synthetic` (once, however often it is asked). */
export function marked(text: string, synthetic: boolean): string {
  if (!synthetic || text.endsWith(SYNTHETIC_MARK)) return text;
  return `${text} ${SYNTHETIC_MARK}`;
}

/** `text` without the mark, for sentences built from several marked ones. */
export function unmarked(text: string): string {
  return text.endsWith(SYNTHETIC_MARK) ? text.slice(0, -SYNTHETIC_MARK.length).trimEnd() : text;
}
