/**
 * @module signals/score
 * From a detector's finding to a scored candidate: band and score from the raw metric (with the
 * finding's cap or floor), screens (freshness, size floor), the evidence object, and URIs.
 */
import { type Namespaces, entityUri, typeOfId } from "../entities/vocabulary.ts";
import { type Severity, SCORE_AT, SEVERITIES, bandOf, scoreOf, severityRank } from "./bands.ts";
import type { Detector, Finding } from "./detector.ts";
import { marked } from "./synthetic.ts";

export interface Candidate {
  detector: Detector;
  finding: Finding;
  /** Entity URIs (outside ids such as wallets stay as they are). */
  uris: string[];
  key: string;
  score: number;
  severity: Severity;
  /** Screens failed: stale, below_size_floor, duplicate. */
  failed: string[];
  evidence: Record<string, unknown>;
}

/** Scores one finding; undefined when its value is below the type's detection threshold. */
export function scoreFinding(
  detector: Detector,
  finding: Finding,
  context: { asOf: string; ns: Namespaces; sources: string[]; synthetic: boolean },
): Omit<Candidate, "key"> | undefined {
  const bands = finding.metric?.bands ?? detector.bands;
  let severity = bandOf(bands, finding.value);
  let score = scoreOf(bands, finding.value);
  let note: string | undefined;
  if (severity && finding.cap && severityRank(severity) > severityRank(finding.cap.severity)) {
    severity = finding.cap.severity;
    const next = SEVERITIES[severityRank(severity) + 1]!;
    score = Math.min(score, SCORE_AT[next] - 0.01);
    note = `capped at ${severity}: ${finding.cap.reason}`;
  }
  if (finding.floor && (!severity || severityRank(severity) < severityRank(finding.floor.severity))) {
    severity = finding.floor.severity;
    score = Math.max(score, SCORE_AT[severity]);
    note = `raised to ${severity}: ${finding.floor.reason}`;
  }
  if (!severity) return undefined;

  const failed: string[] = [];
  const { maxAgeDays, sizeFloor } = detector.screens;
  if (maxAgeDays !== null && (finding.lastDataDate === null || daysBetween(finding.lastDataDate, context.asOf) > maxAgeDays)) failed.push("stale");
  if (sizeFloor && (finding.size ?? 0) < sizeFloor.minUsd) failed.push("below_size_floor");

  const uris = finding.entities.map((id) => (typeOfId(id) ? entityUri(context.ns, id) : id));
  const evidence: Record<string, unknown> = {
    severity,
    metric: finding.metric?.name ?? detector.metric.name,
    value: finding.value,
    unit: bands.unit,
    window: finding.window,
    data_points: finding.dataPoints,
    sources: context.sources,
    synthetic: context.synthetic,
    screens: { passed: failed.length === 0, failed },
    summary: marked(finding.summary, context.synthetic),
    ...(note ? { note } : {}),
    ...finding.details,
  };
  return { detector, finding, uris, score, severity, failed, evidence };
}

function daysBetween(from: string, to: string): number {
  return (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from.slice(0, 10)}T00:00:00Z`)) / 86_400_000;
}
