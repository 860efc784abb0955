/**
 * Scores at the exact band boundaries of docs/spec.md §2.4 land in the band that starts there, for every
 * type (through the same scoring the scan uses), and scores rise with the raw metric.
 */
import { describe, expect, test } from "bun:test";
import { SCORE_AT, type Bands, bandOf, scoreOf } from "../../src/signals/bands.ts";
import type { Finding } from "../../src/signals/detector.ts";
import { DETECTORS } from "../../src/signals/detectors/index.ts";
import { scoreFinding } from "../../src/signals/score.ts";
import { namespaces } from "../../src/entities/vocabulary.ts";

const finding = (value: number): Finding => ({
  entities: ["token/x"],
  value,
  window: { from: "2026-11-22", to: "2026-11-22" },
  dataPoints: [],
  lastDataDate: "2026-11-22",
  size: 1e12,
  summary: "test",
  details: {},
});
const context = { asOf: "2026-11-22", ns: namespaces(), sources: ["t"], synthetic: true };
/** A step toward the lower band, small against every threshold of every type. */
const nudge = (b: Bands, threshold: number) => (b.direction === "higher" ? -1 : 1) * Math.max(Math.abs(threshold) * 1e-6, 1e-9);

describe("band boundaries of every type", () => {
  for (const detector of DETECTORS) {
    test(detector.slug, () => {
      const b = detector.bands;
      const starts = [["low", b.low], ["moderate", b.moderate], ["high", b.high]] as const;
      for (const [severity, threshold] of starts) {
        if (threshold === undefined) continue;
        const at = scoreFinding(detector, finding(threshold), context)!;
        expect(at.severity).toBe(severity);
        expect(at.score).toBe(SCORE_AT[severity]);
        const below = scoreFinding(detector, finding(threshold + nudge(b, threshold)), context);
        if (severity === "high") expect(below!.severity).toBe("moderate");
        else if (severity === "moderate") expect(below?.severity).toBe(b.low === undefined ? undefined : "low");
        else expect(below).toBeUndefined();
        if (below) expect(below.score).toBeLessThan(SCORE_AT[severity]);
      }
    });
  }
});

describe("scores", () => {
  const higher: Bands = { direction: "higher", unit: "%", low: 85, moderate: 90, high: 95 };
  const lower: Bands = { direction: "lower", unit: "%", low: 5, moderate: 3, high: 1 };
  test("rise monotonically with how bad the metric is, and stay within 0..100", () => {
    let previous = -1;
    for (let v = 0; v <= 200; v += 0.5) {
      const s = scoreOf(higher, v);
      expect(s).toBeGreaterThanOrEqual(previous);
      expect(s).toBeLessThanOrEqual(100);
      previous = s;
    }
    previous = -1;
    for (let v = 10; v >= 0; v -= 0.01) {
      const s = scoreOf(lower, v);
      expect(s).toBeGreaterThanOrEqual(previous);
      previous = s;
    }
  });
  test("band and score agree everywhere", () => {
    for (let v = 80; v <= 120; v += 0.013) {
      const band = bandOf(higher, v);
      const score = scoreOf(higher, v);
      expect(band === undefined ? score < 25 : score >= SCORE_AT[band] && (band === "high" || score < SCORE_AT[band === "low" ? "moderate" : "high"])).toBe(true);
    }
  });
  test("a cap holds a finding below the band its value reaches, a floor lifts it", () => {
    const revenue = DETECTORS.find((d) => d.slug === "revenue-momentum")!;
    const capped = scoreFinding(revenue, { ...finding(150), cap: { severity: "moderate", reason: "no trend" } }, context)!;
    expect(capped.severity).toBe("moderate");
    expect(capped.score).toBeLessThan(75);
    expect(capped.evidence.note).toContain("no trend");
    const treasury = DETECTORS.find((d) => d.slug === "treasury-health")!;
    const floored = scoreFinding(treasury, { ...finding(50), floor: { severity: "high", reason: "runway under 90 days" } }, context)!;
    expect(floored.severity).toBe("high");
    expect(floored.score).toBe(75);
  });
  test("stale inputs and a size below the floor fail their screens", () => {
    const pools = DETECTORS.find((d) => d.slug === "yield-anomaly")!;
    const scored = scoreFinding(pools, { ...finding(300), lastDataDate: "2026-11-01", size: 1000 }, context)!;
    expect(scored.failed).toEqual(["stale", "below_size_floor"]);
    expect(scored.evidence.screens).toEqual({ passed: false, failed: ["stale", "below_size_floor"] });
  });
});
