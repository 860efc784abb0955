/**
 * @module signals/bands
 * Severity bands and the 0..100 score (docs/decisions/0009-score-and-severity-bands.md): each type's
 * raw metric maps monotonically onto the score so that the thresholds of docs/spec.md §2.4 land on
 * fixed points, low at 25, moderate at 50, high at 75.
 * Severity is decided on the raw value, never on the rounded score, so a value just under a
 * threshold can never round up into the next band.
 */
export const SEVERITIES = ["low", "moderate", "high"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const SCORE_AT: Record<Severity, number> = { low: 25, moderate: 50, high: 75 };

/** Where the bands start on the score, as descriptions say it: "low from 25, moderate from 50, high from 75". */
export const BAND_STARTS = SEVERITIES.map((severity) => `${severity} from ${SCORE_AT[severity]}`).join(", ");

export interface Bands {
  /** "higher": larger values are worse (utilization); "lower": smaller values are worse (turnout). */
  direction: "higher" | "lower";
  unit: string;
  /** Thresholds of the raw metric where each band starts; `low` is optional (docs/decisions/0009-score-and-severity-bands.md says when a type has one). */
  low?: number;
  moderate: number;
  high: number;
}

/** The band a raw value falls in, or undefined below the detection threshold. */
export function bandOf(bands: Bands, value: number): Severity | undefined {
  const at = (threshold: number) => (bands.direction === "higher" ? value >= threshold : value <= threshold);
  if (at(bands.high)) return "high";
  if (at(bands.moderate)) return "moderate";
  if (bands.low !== undefined && at(bands.low)) return "low";
  return undefined;
}

/**
 * Piecewise-linear between thresholds; above high it approaches 100 (half-way at one band width past
 * the threshold). Floored to two decimals so rounding never lifts a score over a band's start.
 */
export function scoreOf(bands: Bands, value: number): number {
  const sign = bands.direction === "higher" ? 1 : -1;
  const x = sign * value;
  const high = sign * bands.high;
  const moderate = sign * bands.moderate;
  const low = bands.low === undefined ? undefined : sign * bands.low;
  const step = high - moderate;
  const at = SCORE_AT;
  let score: number;
  if (x >= high) score = at.high + ((100 - at.high) * (x - high)) / (x - high + step);
  else if (x >= moderate) score = at.moderate + ((at.high - at.moderate) * (x - moderate)) / step;
  else if (low !== undefined && x >= low) score = at.low + ((at.moderate - at.low) * (x - low)) / (moderate - low);
  else {
    // Below the first band: down by one band's points per band width, to 0.
    const start = low ?? moderate;
    const width = low === undefined ? step : moderate - low;
    score = Math.max(0, (low === undefined ? at.moderate : at.low) - ((at.moderate - at.low) * (start - x)) / width);
  }
  return Math.floor(score * 100) / 100;
}

/** The scoring criteria as people read them: "high: >= 95 %". */
export function describeBands(bands: Bands): Partial<Record<Severity, string>> {
  const op = bands.direction === "higher" ? ">=" : "<=";
  const text = (v: number) => `${op} ${v}${bands.unit === "" ? "" : ` ${bands.unit}`}`;
  const out: Partial<Record<Severity, string>> = {};
  if (bands.low !== undefined) out.low = `${text(bands.low)} (score ${SCORE_AT.low}-${SCORE_AT.moderate - 1})`;
  out.moderate = `${text(bands.moderate)} (score ${SCORE_AT.moderate}-${SCORE_AT.high - 1})`;
  out.high = `${text(bands.high)} (score ${SCORE_AT.high}-100)`;
  return out;
}

export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}
